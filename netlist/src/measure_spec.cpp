// The measurement grammar of .meas cards and `--meas` (netlist/measure.hpp): tokens → MeasureSpec.
#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "netlist/measure.hpp"
#include "netlist/src/lines.hpp"
#include "netlist/units.hpp"

namespace nsspice::netlist {
namespace {

using detail::ascii_lower;

// Words (parentheses kept together) and '=' as separate items.
std::vector<std::string> lex(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  auto push = [&] {
    if (!cur.empty()) out.push_back(ascii_lower(cur));
    cur.clear();
  };
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (std::isspace(static_cast<unsigned char>(c)) || c == '=')) {
      push();
      if (c == '=') out.emplace_back("=");
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur += c;
    }
  }
  push();
  return out;
}

std::optional<MeasureKind> kind_of(const std::string& w) {
  if (w == "avg") return MeasureKind::kAvg;
  if (w == "rms") return MeasureKind::kRms;
  if (w == "min") return MeasureKind::kMin;
  if (w == "max") return MeasureKind::kMax;
  if (w == "pp") return MeasureKind::kPp;
  if (w == "integ" || w == "integral") return MeasureKind::kInteg;
  if (w == "when") return MeasureKind::kWhen;
  if (w == "find") return MeasureKind::kFindAt;
  return std::nullopt;
}

std::string signal_name(std::string s) {
  if (s.find('(') == std::string::npos) return "v(" + s + ")";
  return s;
}

}  // namespace

std::optional<MeasureSpec> parse_measure(const std::vector<std::string>& tokens, std::string name,
                                         std::string& error) {
  std::string text;
  for (const auto& t : tokens) {
    if (!text.empty()) text += ' ';
    text += t;
  }
  const std::vector<std::string> w = lex(text);
  MeasureSpec spec;
  spec.text = text;
  size_t i = 0;
  auto fail = [&](const std::string& why) {
    error = fmt::format("measurement '{}': {}", text, why);
    return std::nullopt;
  };
  auto at_end = [&] { return i >= w.size(); };
  if (!at_end() && w[i] == "tran") ++i;
  if (!at_end() && !kind_of(w[i]) && name.empty()) name = w[i++];
  if (at_end() || !kind_of(w[i]))
    return fail("expected avg, rms, min, max, pp, integ, when or find");
  spec.kind = *kind_of(w[i++]);
  if (at_end()) return fail("expected a signal, e.g. v(out)");
  spec.signal = signal_name(w[i++]);
  auto number = [&]() -> std::optional<double> {
    if (at_end()) return std::nullopt;
    auto v = parse_spice_number(w[i]);
    if (v) ++i;
    return v;
  };
  // key = value pairs (and, for when, the "= level" right after the signal).
  if (spec.kind == MeasureKind::kWhen) {
    if (at_end() || w[i] != "=") return fail("expected SIGNAL=LEVEL after 'when'");
    ++i;
    auto level = number();
    if (!level) return fail("expected a number for the level");
    spec.level = *level;
    spec.when_signal = spec.signal;
  } else if (spec.kind == MeasureKind::kFindAt && !at_end() && w[i] == "when") {
    spec.kind = MeasureKind::kFindWhen;
    ++i;
    if (at_end()) return fail("expected SIGNAL=LEVEL after 'when'");
    spec.when_signal = signal_name(w[i++]);
    if (at_end() || w[i] != "=") return fail("expected SIGNAL=LEVEL after 'when'");
    ++i;
    auto level = number();
    if (!level) return fail("expected a number for the level");
    spec.level = *level;
  }
  while (!at_end()) {
    const std::string key = w[i++];
    if (at_end() || w[i] != "=") return fail(fmt::format("expected '{}=VALUE'", key));
    ++i;
    if (at_end()) return fail(fmt::format("expected a value after '{}='", key));
    if ((key == "cross" || key == "rise" || key == "fall") && w[i] == "last") {
      ++i;
      spec.count = -1;
      spec.edge = key == "rise" ? Edge::kRise : key == "fall" ? Edge::kFall : Edge::kCross;
      continue;
    }
    auto v = number();
    if (!v) return fail(fmt::format("'{}={}': not a number", key, w[i]));
    const bool crossing = spec.kind == MeasureKind::kWhen || spec.kind == MeasureKind::kFindWhen;
    if (key == "from" && !crossing && spec.kind != MeasureKind::kFindAt) {
      spec.from = *v;
    } else if (key == "to" && !crossing && spec.kind != MeasureKind::kFindAt) {
      spec.to = *v;
    } else if (key == "at" && spec.kind == MeasureKind::kFindAt) {
      spec.at = *v;
    } else if (key == "td" && crossing) {
      spec.td = *v;
    } else if ((key == "rise" || key == "fall" || key == "cross") && crossing) {
      if (*v < 1 || *v != std::floor(*v)) return fail(fmt::format("{}= must be 1, 2, ...", key));
      spec.count = static_cast<int>(*v);
      spec.edge = key == "rise" ? Edge::kRise : key == "fall" ? Edge::kFall : Edge::kCross;
    } else {
      return fail(fmt::format("'{}=' does not apply here", key));
    }
  }
  if (spec.kind == MeasureKind::kFindAt && !spec.at)
    return fail("'find' needs at=T or when SIGNAL=LEVEL");
  if (spec.from && spec.to && *spec.to <= *spec.from) return fail("to= must be after from=");
  if (name.empty()) {
    static constexpr const char* kNames[] = {"avg",   "rms",  "min",  "max", "pp",
                                             "integ", "when", "find", "find"};
    name = fmt::format("{}_{}", kNames[static_cast<int>(spec.kind)], spec.signal);
  }
  spec.name = ascii_lower(name);
  return spec;
}

std::optional<MeasureSpec> parse_measure(const std::string& text, std::string& error) {
  return parse_measure(std::vector<std::string>{text}, "", error);
}

}  // namespace nsspice::netlist
