#include "app/measure/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "app/io/signals.hpp"
#include "netlist/suggest.hpp"
#include "netlist/units.hpp"

namespace nsspice::app {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

std::optional<Measurement> Measurement::bind(const MeasureSpec& spec,
                                             const std::vector<std::string>& names,
                                             std::string& error) {
  Measurement m(spec);
  auto find = [&](const std::string& s, size_t& col) {
    auto it = std::find(names.begin(), names.end(), s);
    if (it == names.end()) {
      error = fmt::format("measurement '{}': unknown signal '{}'{}", spec.name, s,
                          netlist::did_you_mean(s, names));
      return false;
    }
    col = static_cast<size_t>(it - names.begin());
    return true;
  };
  if (!find(spec.signal, m.col_)) return std::nullopt;
  m.when_col_ = m.col_;
  if (spec.kind == MeasureKind::kFindWhen && !find(spec.when_signal, m.when_col_))
    return std::nullopt;
  return m;
}

void Measurement::window(double t0, double y0, double t1, double y1) {
  const double lo = spec_.from.value_or(-kInf), hi = spec_.to.value_or(kInf);
  const double a = std::max(t0, lo), b = std::min(t1, hi);
  if (a > b) return;
  auto at = [&](double t) { return t1 > t0 ? y0 + (t - t0) / (t1 - t0) * (y1 - y0) : y1; };
  const double ya = at(a), yb = at(b);
  integ_ += 0.5 * (ya + yb) * (b - a);
  integ2_ += (ya * ya + ya * yb + yb * yb) / 3.0 * (b - a);
  span_ += b - a;
  for (auto [t, y] : {std::pair{a, ya}, std::pair{b, yb}}) {
    if (!any_ || y < min_) min_ = y, t_min_ = t;
    if (!any_ || y > max_) max_ = y, t_max_ = t;
    any_ = true;
  }
}

void Measurement::crossing(double t0, double c0, double t1, double c1, double f0, double f1) {
  if (hit_t_ && spec_.count != -1) return;
  const double level = spec_.level;
  const bool rise = c0 < level && c1 >= level, fall = c0 > level && c1 <= level;
  if (!(spec_.edge == Edge::kRise ? rise : spec_.edge == Edge::kFall ? fall : rise || fall)) return;
  const double frac = c1 != c0 ? (level - c0) / (c1 - c0) : 1.0;
  const double tc = t0 + frac * (t1 - t0);
  if (tc < spec_.td) return;
  ++crossings_;
  if (spec_.count == -1 || crossings_ == spec_.count) {
    hit_t_ = tc;
    hit_value_ = f0 + frac * (f1 - f0);
  }
}

void Measurement::feed(double t, std::span<const double> values) {
  const double y = values[col_], c = values[when_col_];
  if (!have_prev_) {
    have_prev_ = true;
    window(t, y, t, y);
    if (spec_.at && *spec_.at == t) hit_value_ = y, hit_t_ = t;
  } else {
    window(t_prev_, y_prev_, t, y);
    if (spec_.kind == MeasureKind::kWhen || spec_.kind == MeasureKind::kFindWhen)
      crossing(t_prev_, c_prev_, t, c, y_prev_, y);
    if (spec_.at && !hit_value_ && *spec_.at > t_prev_ && *spec_.at <= t) {
      hit_t_ = *spec_.at;
      hit_value_ = y_prev_ + (*spec_.at - t_prev_) / (t - t_prev_) * (y - y_prev_);
    }
  }
  t_prev_ = t, y_prev_ = y, c_prev_ = c;
}

std::string Measurement::unit() const {
  const std::string base = unit_of(signal_kind(spec_.signal));
  if (spec_.kind == MeasureKind::kWhen) return "s";
  if (spec_.kind == MeasureKind::kInteg) return base.empty() ? "s" : base + "·s";
  return base;
}

MeasureResult Measurement::result() const {
  MeasureResult r{spec_.name, spec_.text, {}, {}, unit(), {}};
  const double end_tol = 1e-9 * std::max(1e-15, std::abs(t_prev_));
  switch (spec_.kind) {
    case MeasureKind::kWhen:
    case MeasureKind::kFindWhen:
    case MeasureKind::kFindAt: {
      if (!hit_t_) {
        r.failure =
            spec_.kind == MeasureKind::kFindAt
                ? fmt::format("t = {:g} s is outside the run", spec_.at.value_or(0))
                : fmt::format(
                      "{} never crosses {:g} ({} {})", spec_.when_signal, spec_.level,
                      spec_.edge == Edge::kRise   ? "rise"
                      : spec_.edge == Edge::kFall ? "fall"
                                                  : "cross",
                      spec_.count == -1 ? std::string("last") : std::to_string(spec_.count));
        return r;
      }
      r.value = spec_.kind == MeasureKind::kWhen ? *hit_t_ : *hit_value_;
      if (spec_.kind == MeasureKind::kFindWhen) r.at = hit_t_;
      return r;
    }
    default:
      break;
  }
  if (!any_ || (spec_.to && *spec_.to > t_prev_ + end_tol)) {
    r.failure = fmt::format("the window is not inside the run (which ends at t = {:g} s)", t_prev_);
    return r;
  }
  switch (spec_.kind) {
    case MeasureKind::kAvg:
    case MeasureKind::kRms:
      if (span_ <= 0) {
        r.failure = "empty window";
        return r;
      }
      r.value = spec_.kind == MeasureKind::kAvg ? integ_ / span_
                                                : std::sqrt(std::max(0.0, integ2_ / span_));
      break;
    case MeasureKind::kMin:
      r.value = min_, r.at = t_min_;
      break;
    case MeasureKind::kMax:
      r.value = max_, r.at = t_max_;
      break;
    case MeasureKind::kPp:
      r.value = max_ - min_;
      break;
    case MeasureKind::kInteg:
      r.value = integ_;
      break;
    default:
      break;
  }
  return r;
}

bool MeasureSet::add(const MeasureSpec& spec, const std::vector<std::string>& names,
                     std::string& error) {
  auto m = Measurement::bind(spec, names, error);
  if (!m) return false;
  items_.push_back(std::move(*m));
  return true;
}

std::vector<MeasureResult> MeasureSet::results() const {
  std::vector<MeasureResult> out;
  for (const auto& m : items_) out.push_back(m.result());
  return out;
}

std::string format_measures(const std::vector<MeasureResult>& results) {
  std::string out;
  for (const auto& r : results) {
    if (!r.value) {
      out += fmt::format("  {:<18} failed: {}  ({})\n", r.name, r.failure, r.text);
      continue;
    }
    std::string at = r.at ? fmt::format(" at t = {:.6g} s", *r.at) : std::string();
    out += fmt::format("  {:<18} {:.6g}{}{}{}  ({})\n", r.name + " =", *r.value,
                       r.unit.empty() ? "" : " ", r.unit, at, r.text);
  }
  return out;
}

// JSON through nlohmann::json (invalid UTF-8 replaced, never a throw); keys in the order written.
std::string json_string(const std::string& s) {
  return nlohmann::ordered_json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_number(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "null";
  return nlohmann::ordered_json(*v).dump();
}

nlohmann::ordered_json measures_json_value(const std::vector<MeasureResult>& results) {
  auto number = [](std::optional<double> v) {
    return v && std::isfinite(*v) ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
  };
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& r : results)
    out.push_back({{"name", r.name},
                   {"text", r.text},
                   {"value", number(r.value)},
                   {"at", number(r.at)},
                   {"unit", r.unit},
                   {"failure", r.failure.empty() ? nlohmann::ordered_json()
                                                 : nlohmann::ordered_json(r.failure)}});
  return out;
}

std::string measures_json(const std::vector<MeasureResult>& results, int indent) {
  return measures_json_value(results).dump(indent, ' ', false,
                                           nlohmann::json::error_handler_t::replace);
}

}  // namespace nsspice::app
