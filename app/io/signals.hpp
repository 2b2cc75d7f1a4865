#pragma once
// Signal names as the user writes them ("v(out)", "i(d1)"): splitting lists, selecting columns,
// telling voltages from currents.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

std::string lower(std::string s);

// Splits "v(a),i(d1)" at commas outside parentheses; blanks removed, names lower-cased.
std::vector<std::string> split_signals(std::string_view text);

enum class SignalKind { kVoltage, kCurrent, kOther };
// "v(...)" → voltage, "i(...)" → current, anything else → other.
SignalKind signal_kind(std::string_view name);
// "voltage" / "current" / "unknown": the type column of a SPICE raw file.
const char* raw_type(SignalKind kind);
// "V", "A", "".
const char* unit_of(SignalKind kind);

// Indices of `wanted` in `names`. On an unknown name: nullopt and `error` says which one
// (with a did-you-mean suggestion), phrased for the option `option`.
std::optional<std::vector<size_t>> select_signals(const std::vector<std::string>& wanted,
                                                  const std::vector<std::string>& names,
                                                  std::string_view option, std::string& error);

}  // namespace nsspice::app

namespace nsspice::app {

// A differential voltage v(a,b) = v(a) − v(b) computed from two columns (−1: ground).
struct DerivedColumn {
  std::string name;
  long plus = -1, minus = -1;
  double value(std::span<const double> row) const {
    return (plus >= 0 ? row[static_cast<size_t>(plus)] : 0.0) -
           (minus >= 0 ? row[static_cast<size_t>(minus)] : 0.0);
  }
};

// The v(a,b) among `wanted` that `names` lacks but can compute (a, b: nodes, or 0/gnd).
std::vector<DerivedColumn> differential_columns(const std::vector<std::string>& wanted,
                                                const std::vector<std::string>& names);

// Appends derived columns to every row.
class DerivedSink : public RowSink {
 public:
  DerivedSink(RowSink& out, std::vector<DerivedColumn> columns)
      : out_(out), columns_(std::move(columns)) {}
  void row(double t, std::span<const double> values) override;
  void finish() override { out_.finish(); }

 private:
  RowSink& out_;
  std::vector<DerivedColumn> columns_;
  std::vector<double> buffer_;
};

// Adds the derived columns to waveforms in memory.
void add_columns(Waveforms& w, const std::vector<DerivedColumn>& columns);

}  // namespace nsspice::app
