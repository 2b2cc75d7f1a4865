#include "app/compare/spice_params.hpp"

#include <fmt/format.h>

#include <cctype>
#include <sstream>

#include "app/io/signals.hpp"
#include "netlist/units.hpp"

namespace nsspice::app {

std::string spice_number(double v) { return fmt::format("{}", v); }

std::optional<SpiceParams> SpiceParams::parse(const std::string& text, std::string& error) {
  SpiceParams p;
  std::string spaced;
  for (char c : text) {
    if (c == '=') {
      spaced += " = ";
    } else if (c == '(' || c == ')' || c == ',') {
      spaced += ' ';
    } else {
      spaced += c;
    }
  }
  std::istringstream in(spaced);
  std::string key, eq, value;
  while (in >> key) {
    if (!(in >> eq) || eq != "=" || !(in >> value)) {
      error = fmt::format("'{}': expected KEY=VALUE items, e.g. 'IS=1e-14 N=0.05'", text);
      return std::nullopt;
    }
    p.set(lower(key), value);
  }
  return p;
}

std::optional<double> SpiceParams::number(const std::string& key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return netlist::parse_spice_number(v);
  return std::nullopt;
}

bool SpiceParams::has(const std::string& key) const {
  for (const auto& item : items_)
    if (item.first == key) return true;
  return false;
}

void SpiceParams::set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : items_)
    if (k == key) {
      v = value;
      return;
    }
  items_.emplace_back(key, value);
}

void SpiceParams::set(const std::string& key, double value) { set(key, spice_number(value)); }

std::string SpiceParams::str() const {
  std::string out;
  for (const auto& [k, v] : items_) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", k, v);
  }
  return out;
}

}  // namespace nsspice::app
