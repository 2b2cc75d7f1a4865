#pragma once
// The instant of one event in a stream of points (memory flat), for the when, find and
// trig/targ measurements (app/measure/measure.hpp). The signal c(t) is linear between computed
// points; with L the level, a segment [t0, t1] holds
//
//   a rise if c0 < L <= c1,  a fall if c0 > L >= c1,
//   at  t_c = t0 + θ (t1 − t0),  θ = (L − c0) / (c1 − c0),  where f(t_c) = f0 + θ (f1 − f0)
//
// and, at a signal that sits exactly at L at a point (a PULSE's top as the level, a PWL corner),
// its departure to the side it did not come from: a rise if c0 = L < c1 after a fall, a fall if
// c0 = L > c1 after a rise, at t_c = t0 (θ = 0). Rises and falls alternate: a PULSE from 0 to 5
// measured at 5 rises where it reaches 5 and falls where it leaves it (the fall was never
// counted, and cross=2 was the next rise), a triangle touching 0 from above falls there and
// rises as it leaves (ngspice's sections below/above the level count the same). A run that
// starts at L has no crossing there; its first departure sets the side.
//
// (f: a second signal read at the instant, for find ... when). A crossing is counted when
// t_c >= td (time only: a sweep's values may be negative) and, if given, from <= t_c <= to; the
// event is the N-th counted crossing of the edge asked for (rise, fall or either), or the last one.
// With at = T the event is t_c = T if the run reaches T, f(T) interpolated the same way. The scale
// t may also be a DC sweep's value or a frequency (MeasureScale), and a DC sweep may run downwards:
// a segment's ends in either order.
#include <optional>
#include <string>

#include "netlist/measure.hpp"

namespace nsspice::app {

// What the measurements run along: time (.tran), a DC sweep's value, frequency (.ac); named in
// results and messages ("at t = 1e-3 s", "f = 1e6 Hz is outside the run").
struct MeasureScale {
  std::string symbol = "t";
  std::string unit = "s";
  bool time = true;  // a .tran run: its rows start at TSTART
};

class CrossingSearch {
 public:
  CrossingSearch(netlist::CrossingSpec spec, MeasureScale scale)
      : spec_(std::move(spec)), scale_(std::move(scale)) {}
  // The run's first point (only an at=T event can happen there).
  void first(double t, double c, double f);
  void segment(double t0, double c0, double t1, double c1, double f0, double f1);
  std::optional<double> time() const { return t_; }
  std::optional<double> value() const { return f_; }
  // Why there is no event ("v(out) never crosses 2.5 (rise 2)").
  std::string failure() const;

 private:
  netlist::CrossingSpec spec_;
  MeasureScale scale_;
  int crossings_ = 0;
  int side_ = 0;  // −1 below the level, +1 above, since the last crossing; 0 not yet known
  std::optional<double> t_, f_;
};

}  // namespace nsspice::app
