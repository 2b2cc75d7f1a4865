#include "app/measure/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <utility>

#include "app/io/signals.hpp"
#include "app/measure/ac_part.hpp"
#include "netlist/suggest.hpp"
#include "netlist/units.hpp"

namespace nsspice::app {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

std::optional<Measurement> Measurement::bind(const MeasureSpec& spec,
                                             const std::vector<std::string>& names,
                                             std::string& error, const MeasureScale& scale) {
  Measurement m(spec, scale);
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
  // A signal, or arithmetic of signals (its references must be columns).
  const SignalExpr::Resolver column = [&](const std::string& ref, std::string& why) {
    size_t col = 0;
    if (find(ref, col)) return std::optional<size_t>(col);
    why = error;
    return std::optional<size_t>();
  };
  auto bind_to = [&](const std::string& s, size_t& col, std::optional<SignalExpr>& expr) {
    if (s.empty()) return true;
    if (!netlist::is_measure_expression(s)) return find(s, col);
    std::string why;
    expr = SignalExpr::compile(s, column, why);
    if (!expr && error.empty()) error = fmt::format("measurement '{}': {}", spec.name, why);
    return expr.has_value();
  };
  if (spec.kind == MeasureKind::kParam) return m;  // bound by MeasureSet::add
  if (!bind_to(spec.signal, m.col_, m.expr_) ||
      !bind_to(spec.when.signal, m.when_col_, m.when_expr_) ||
      !bind_to(spec.targ.signal, m.targ_col_, m.targ_expr_))
    return std::nullopt;
  return m;
}

std::vector<size_t> Measurement::columns() const {
  std::vector<size_t> out;
  for (size_t c : {col_, when_col_, targ_col_})
    if (c != kNone) out.push_back(c);
  if (spec_.kind != MeasureKind::kParam)
    for (const auto* e : {&expr_, &when_expr_, &targ_expr_})
      if (*e) out.insert(out.end(), (*e)->slots().begin(), (*e)->slots().end());
  return out;
}

void Measurement::window(double t0, double y0, double t1, double y1) {
  const double lo = spec_.from.value_or(-kInf), hi = spec_.to.value_or(kInf);
  // A segment of a DC sweep running downwards counts with the sign of its direction.
  const double sign = t1 < t0 ? -1.0 : 1.0;
  const double a = std::max(std::min(t0, t1), lo), b = std::min(std::max(t0, t1), hi);
  if (a > b) return;
  auto at = [&](double t) { return t1 != t0 ? y0 + (t - t0) / (t1 - t0) * (y1 - y0) : y1; };
  const double ya = at(a), yb = at(b);
  integ_ += sign * 0.5 * (ya + yb) * (b - a);
  integ2_ += sign * (ya * ya + ya * yb + yb * yb) / 3.0 * (b - a);
  span_ += sign * (b - a);
  for (auto [t, y] : {std::pair{a, ya}, std::pair{b, yb}}) {
    if (!any_ || y < min_) min_ = y, t_min_ = t;
    if (!any_ || y > max_) max_ = y, t_max_ = t;
    any_ = true;
  }
}

void Measurement::feed(double t, std::span<const double> values) {
  if (spec_.kind == MeasureKind::kParam) return;
  auto read = [&](size_t col, const std::optional<SignalExpr>& expr) {
    return expr ? expr->eval(values) : col != kNone ? values[col] : 0.0;
  };
  const double y = read(col_, expr_), c = read(when_col_, when_expr_),
               d = read(targ_col_, targ_expr_);
  const bool instant = spec_.kind == MeasureKind::kWhen || spec_.kind == MeasureKind::kFindAt ||
                       spec_.kind == MeasureKind::kFindWhen ||
                       spec_.kind == MeasureKind::kTrigTarg || spec_.kind == MeasureKind::kDeriv;
  t_lo_ = have_prev_ ? std::min(t_lo_, t) : t;
  t_hi_ = have_prev_ ? std::max(t_hi_, t) : t;
  if (!have_prev_) {
    have_prev_ = true;
    t_first_ = t;
    window(t, y, t, y);
    if (instant) when_.first(t, c, y);
    if (spec_.kind == MeasureKind::kTrigTarg) targ_.first(t, d, d);
  } else if (spec_.kind == MeasureKind::kDeriv) {
    slope(t, c, y);
  } else {
    window(t_prev_, y_prev_, t, y);
    if (instant) when_.segment(t_prev_, c_prev_, t, c, y_prev_, y);
    if (spec_.kind == MeasureKind::kTrigTarg) targ_.segment(t_prev_, d_prev_, t, d, d_prev_, d);
  }
  t_prev_ = t, y_prev_ = y, c_prev_ = c, d_prev_ = d;
}

void Measurement::slope(double t, double c, double y) {
  const double s = (y - y_prev_) / (t - t_prev_);
  if (slope_pending_) {  // the instant was the point before: this segment's slope too
    slope_sum_ += s, ++slopes_;
    slope_pending_ = false;
  }
  when_.segment(t_prev_, c_prev_, t, c, y_prev_, y);
  if (when_.time() && when_.time() != slope_at_) {  // a new instant, in this segment
    slope_at_ = when_.time();
    const bool at_start = *slope_at_ == t_prev_ && have_slope_;
    slope_sum_ = s + (at_start ? slope_prev_ : 0.0);
    slopes_ = at_start ? 2 : 1;
    slope_pending_ = *slope_at_ == t;
  }
  slope_prev_ = s, have_slope_ = true;
}

std::string Measurement::unit() const {
  if (spec_.kind == MeasureKind::kParam || expr_) return "";  // arithmetic: no known unit
  const auto form = ac_form(spec_.signal);
  const std::string base = form ? ac_unit(*form) : unit_of(signal_kind(spec_.signal));
  if (spec_.kind == MeasureKind::kWhen || spec_.kind == MeasureKind::kTrigTarg ||
      spec_.kind == MeasureKind::kMinAt || spec_.kind == MeasureKind::kMaxAt)
    return scale_.unit;
  if (spec_.kind == MeasureKind::kInteg)
    return base.empty() || scale_.unit.empty() ? base + scale_.unit : base + "·" + scale_.unit;
  if (spec_.kind == MeasureKind::kDeriv)
    return scale_.unit.empty() ? base : (base.empty() ? "1" : base) + "/" + scale_.unit;
  return base;
}

MeasureResult Measurement::result() const {
  // A value that is not finite (arithmetic that divided by zero or left a function's domain at
  // some point) is a failed measurement, never a printed "nan".
  MeasureResult r = value();
  if (r.value && !std::isfinite(*r.value)) {
    r.failure = fmt::format(
        "the value is not finite ({:g}): '{}' divides by zero or leaves a "
        "function's domain somewhere in the window",
        *r.value, spec_.signal);
    r.value.reset();
    r.at.reset();
  }
  return r;
}

MeasureResult Measurement::value() const {
  MeasureResult r{spec_.name, spec_.text, {}, {}, unit(), {}, scale_.symbol, scale_.unit};
  const double end_tol = 1e-9 * std::max({1e-15, std::abs(t_lo_), std::abs(t_hi_)});
  const std::string unit = scale_.unit.empty() ? "" : " " + scale_.unit;
  // from= or at= before the first point: the points do not cover what was asked for.
  const bool instant = spec_.kind == MeasureKind::kWhen || spec_.kind == MeasureKind::kFindWhen ||
                       spec_.kind == MeasureKind::kFindAt || spec_.kind == MeasureKind::kTrigTarg ||
                       spec_.kind == MeasureKind::kDeriv;
  const bool targ = spec_.kind == MeasureKind::kTrigTarg;
  const std::pair<const char*, std::optional<double>> asked[] = {
      {"from", spec_.from},
      {"from", instant ? spec_.when.from : std::nullopt},
      {"at", instant ? spec_.when.at : std::nullopt},
      {"from", targ ? spec_.targ.from : std::nullopt},
      {"at", targ ? spec_.targ.at : std::nullopt}};
  if (have_prev_)
    for (const auto& [key, t] : asked)
      if (t && *t < t_lo_ - end_tol) {
        r.failure =
            scale_.time
                ? fmt::format(
                      "{}={:g} s is before the first point, t = {:g} s (the rows start at the "
                      ".tran TSTART): only the points from there on are measured; lower TSTART "
                      "to {:g} s or measure from {:g} s on",
                      key, *t, t_first_, *t, t_first_)
                : fmt::format("{}={:g}{} is below the sweep, which covers {} = {:g} … {:g}{}", key,
                              *t, unit, scale_.symbol, t_lo_, t_hi_, unit);
        return r;
      }
  // A crossing not found: in the points from the first one on.
  const std::string since = scale_.time && t_first_ > end_tol
                                ? fmt::format(" in the points from t = {:g} s on", t_first_)
                                : "";
  switch (spec_.kind) {
    case MeasureKind::kWhen:
    case MeasureKind::kFindWhen:
    case MeasureKind::kFindAt:
      if (!when_.time()) {
        r.failure = when_.failure() + since;
        return r;
      }
      r.value = spec_.kind == MeasureKind::kWhen ? when_.time() : when_.value();
      if (spec_.kind == MeasureKind::kFindWhen) r.at = when_.time();
      return r;
    case MeasureKind::kDeriv:
      if (!when_.time()) {
        r.failure = when_.failure() + since;
        return r;
      }
      if (slopes_ == 0) {
        r.failure = "a single point has no slope";
        return r;
      }
      r.value = slope_sum_ / slopes_;
      if (!spec_.when.signal.empty()) r.at = when_.time();
      return r;
    case MeasureKind::kTrigTarg:
      if (!when_.time() || !targ_.time()) {
        r.failure =
            (!when_.time() ? "trig: " + when_.failure() : "targ: " + targ_.failure()) + since;
        return r;
      }
      r.value = *targ_.time() - *when_.time();
      r.at = targ_.time();
      return r;
    default:
      break;
  }
  if (!any_ || (spec_.to && *spec_.to > t_hi_ + end_tol)) {
    r.failure =
        scale_.time
            ? fmt::format("the window is not inside the run (which ends at t = {:g} s)", t_hi_)
            : fmt::format(
                  "the window is not inside the sweep, which covers {} = "
                  "{:g} … {:g}{}",
                  scale_.symbol, t_lo_, t_hi_, unit);
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
    case MeasureKind::kMinAt:
      r.value = t_min_;
      break;
    case MeasureKind::kMaxAt:
      r.value = t_max_;
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
  auto m = Measurement::bind(spec, names, error, scale_);
  if (!m) return false;
  if (spec.kind == MeasureKind::kParam) {
    // Its names are the measurements before it (LTspice and ngspice evaluate in order).
    const SignalExpr::Resolver earlier = [&](const std::string& ref, std::string& why) {
      for (size_t k = 0; k < items_.size(); ++k)
        if (items_[k].spec_.name == ref) return std::optional<size_t>(k);
      std::vector<std::string> known;
      for (const auto& item : items_) known.push_back(item.spec_.name);
      why = fmt::format("'{}' is not a measurement before it{}", ref,
                        netlist::did_you_mean(ref, known));
      return std::optional<size_t>();
    };
    std::string why;
    m->expr_ = SignalExpr::compile(spec.signal, earlier, why);
    if (!m->expr_) {
      error = fmt::format("measurement '{}': {}", spec.name, why);
      return false;
    }
  }
  items_.push_back(std::move(*m));
  return true;
}

std::vector<MeasureResult> MeasureSet::results() const {
  std::vector<MeasureResult> out;
  std::vector<double> values;  // the results so far (NaN: failed), for param
  for (const auto& m : items_) {
    if (m.spec_.kind != MeasureKind::kParam) {
      out.push_back(m.result());
    } else {
      MeasureResult r{m.spec_.name, m.spec_.text, {}, {}, "", {}};
      for (size_t k : m.expr_->slots())
        if (!out[k].value) r.failure = fmt::format("'{}' failed", out[k].name);
      if (r.failure.empty()) {
        const double v = m.expr_->eval(values);
        if (std::isfinite(v))
          r.value = v;
        else
          r.failure = fmt::format("'{}' is not finite", m.spec_.signal);
      }
      out.push_back(r);
    }
    values.push_back(out.back().value.value_or(std::nan("")));
  }
  return out;
}

std::string format_measures(const std::vector<MeasureResult>& results) {
  std::string out;
  for (const auto& r : results) {
    if (!r.value) {
      out += fmt::format("  {:<18} failed: {}  ({})\n", r.name, r.failure, r.text);
      continue;
    }
    std::string at = r.at ? fmt::format(" at {} = {:.6g}{}{}", r.at_symbol, *r.at,
                                        r.at_unit.empty() ? "" : " ", r.at_unit)
                          : std::string();
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
