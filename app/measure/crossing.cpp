#include "app/measure/crossing.hpp"

#include <fmt/format.h>

#include <cmath>

namespace nsspice::app {

using netlist::Edge;

void CrossingSearch::first(double t, double c, double f) {
  if (spec_.at && *spec_.at == t) t_ = t, f_ = f;
  const double level = spec_.level;
  side_ = std::abs(c - level) <= 1e-12 * std::abs(level) ? 0 : c > level ? 1 : -1;
}

void CrossingSearch::segment(double t0, double c0, double t1, double c1, double f0, double f1) {
  if (spec_.at) {
    if (!t_ && ((*spec_.at > t0 && *spec_.at <= t1) || (*spec_.at < t0 && *spec_.at >= t1))) {
      t_ = *spec_.at;
      f_ = f0 + (*spec_.at - t0) / (t1 - t0) * (f1 - f0);
    }
    return;
  }
  if (t_ && spec_.count != -1) return;
  const double level = spec_.level;
  // A value within rounding of the level is at it (a PULSE's top evaluated at its corner time,
  // 5 − 1e-12: the fall was placed a step early, where the top was still exactly 5).
  const auto snap = [&](double c) {
    return std::abs(c - level) <= 1e-12 * std::abs(level) ? level : c;
  };
  c0 = snap(c0), c1 = snap(c1);
  // The side of the level the last crossing left the signal on (crossing.hpp); at the level
  // itself a departure to the other side is the crossing, at t0.
  if (side_ == 0) side_ = c0 > level ? 1 : c0 < level ? -1 : 0;
  const bool rise = side_ < 0 && c1 >= level && (c0 < level || c1 > level);
  const bool fall = side_ > 0 && c1 <= level && (c0 > level || c1 < level);
  if (side_ == 0 && c1 != level) side_ = c1 > level ? 1 : -1;  // the run starts at the level
  if (rise) side_ = 1;
  if (fall) side_ = -1;
  if (!(spec_.edge == Edge::kRise ? rise : spec_.edge == Edge::kFall ? fall : rise || fall)) return;
  const double theta = c0 != level && c1 != c0 ? (level - c0) / (c1 - c0) : c0 == level ? 0.0 : 1.0;
  const double tc = t0 + theta * (t1 - t0);
  if ((scale_.time && tc < spec_.td) || (spec_.from && tc < *spec_.from) ||
      (spec_.to && tc > *spec_.to))
    return;
  ++crossings_;
  if (spec_.count == -1 || crossings_ == spec_.count) {
    t_ = tc;
    f_ = f0 + theta * (f1 - f0);
  }
}

std::string CrossingSearch::failure() const {
  if (spec_.at)
    return fmt::format("{} = {:g}{}{} is outside the run", scale_.symbol, *spec_.at,
                       scale_.unit.empty() ? "" : " ", scale_.unit);
  const char* edge = spec_.edge == Edge::kRise   ? "rise"
                     : spec_.edge == Edge::kFall ? "fall"
                                                 : "cross";
  const std::string which =
      spec_.count == -1 ? std::string("last") : fmt::format("{}", spec_.count);
  std::string where;
  if (spec_.td > 0) where += fmt::format(" after td = {:g} s", spec_.td);
  if (spec_.from || spec_.to)
    where += fmt::format(" in [{}, {}]{}{}",
                         spec_.from || scale_.time ? fmt::format("{:g}", spec_.from.value_or(0))
                                                   : std::string("start"),
                         spec_.to ? fmt::format("{:g}", *spec_.to) : std::string("end"),
                         scale_.unit.empty() ? "" : " ", scale_.unit);
  if (crossings_ == 0)
    return fmt::format("{} never crosses {:g}{} ({} {})", spec_.signal, spec_.level, where, edge,
                       which);
  const char* plural = spec_.edge == Edge::kRise   ? "rises"
                       : spec_.edge == Edge::kFall ? "falls"
                                                   : "crossings";
  return fmt::format("{} has only {} {} through {:g}{} ({} {})", spec_.signal, crossings_,
                     crossings_ == 1 ? edge : plural, spec_.level, where, edge, which);
}

}  // namespace nsspice::app
