#include "app/measure/crossing.hpp"

#include <fmt/format.h>

namespace nsspice::app {

using netlist::Edge;

void CrossingSearch::first(double t, double /*c*/, double f) {
  if (spec_.at && *spec_.at == t) t_ = t, f_ = f;
}

void CrossingSearch::segment(double t0, double c0, double t1, double c1, double f0, double f1) {
  if (spec_.at) {
    if (!t_ && *spec_.at > t0 && *spec_.at <= t1) {
      t_ = *spec_.at;
      f_ = f0 + (*spec_.at - t0) / (t1 - t0) * (f1 - f0);
    }
    return;
  }
  if (t_ && spec_.count != -1) return;
  const double level = spec_.level;
  const bool rise = c0 < level && c1 >= level, fall = c0 > level && c1 <= level;
  if (!(spec_.edge == Edge::kRise ? rise : spec_.edge == Edge::kFall ? fall : rise || fall)) return;
  const double theta = c1 != c0 ? (level - c0) / (c1 - c0) : 1.0;
  const double tc = t0 + theta * (t1 - t0);
  if (tc < spec_.td || (spec_.from && tc < *spec_.from) || (spec_.to && tc > *spec_.to)) return;
  ++crossings_;
  if (spec_.count == -1 || crossings_ == spec_.count) {
    t_ = tc;
    f_ = f0 + theta * (f1 - f0);
  }
}

std::string CrossingSearch::failure() const {
  if (spec_.at) return fmt::format("t = {:g} s is outside the run", *spec_.at);
  const char* edge = spec_.edge == Edge::kRise   ? "rise"
                     : spec_.edge == Edge::kFall ? "fall"
                                                 : "cross";
  const std::string which =
      spec_.count == -1 ? std::string("last") : fmt::format("{}", spec_.count);
  std::string where;
  if (spec_.td > 0) where += fmt::format(" after td = {:g} s", spec_.td);
  if (spec_.from || spec_.to)
    where += fmt::format(" in [{:g}, {}] s", spec_.from.value_or(0),
                         spec_.to ? fmt::format("{:g}", *spec_.to) : std::string("end"));
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
