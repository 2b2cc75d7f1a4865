#include "app/compare/spice_params.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <sstream>
#include <utility>

#include "app/io/signals.hpp"
#include "netlist/units.hpp"

namespace nsspice::app {

// The shortest text that SPICE reads back as v: plain ("1e-05", "0.25") or with a scale suffix
// ("100u"), tried at 1 to 17 significant digits. A value the netlist parser built as 100 · 1e-6
// (9.999999999999999e-05, one ulp from 1e-4) is written as it was read: "100u".
std::string spice_number(double v) {
  std::string best = fmt::format("{}", v);
  if (!std::isfinite(v) || v == 0) return best;
  static constexpr std::pair<double, const char*> kSuffixes[] = {
      {1e-15, "f"}, {1e-12, "p"}, {1e-9, "n"},  {1e-6, "u"}, {1e-3, "m"},
      {1, ""},      {1e3, "k"},   {1e6, "meg"}, {1e9, "g"},  {1e12, "t"}};
  // At equal length a plain number without exponent ("0.25") or a mantissa in [1, 1000) ("100u"
  // rather than "0.1m") is kept.
  bool best_natural = best.find('e') == std::string::npos;
  for (const auto& [scale, suffix] : kSuffixes) {
    const double m = v / scale;
    if (std::abs(m) < 1e-3 || std::abs(m) >= 1e6) continue;
    const bool natural = std::abs(m) >= 1 && std::abs(m) < 1000;
    for (int digits = 1; digits <= 17; ++digits) {
      const std::string text = fmt::format("{:.{}g}{}", m, digits, suffix);
      if (text.find('e') != std::string::npos) continue;
      if (text.size() > best.size() || (text.size() == best.size() && !(natural && !best_natural)))
        break;
      if (netlist::parse_spice_number(text) == v) {
        best = text;
        best_natural = natural;
        break;
      }
    }
  }
  return best;
}

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
