#pragma once
// "IS=1e-14 N=0.05 RS=1m": the user's regularized-model parameters, in order, keys lower case.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nsspice::app {

class SpiceParams {
 public:
  // nullopt with `error` set unless every item is KEY=VALUE.
  static std::optional<SpiceParams> parse(const std::string& text, std::string& error);
  std::optional<double> number(const std::string& key) const;
  void set(const std::string& key, const std::string& value);
  void set(const std::string& key, double value);
  bool has(const std::string& key) const;
  std::string str() const;  // "IS=1e-14 N=0.05 RS=0.001"

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// A number as ngspice reads it back exactly (shortest round-trip form).
std::string spice_number(double v);

}  // namespace nsspice::app
