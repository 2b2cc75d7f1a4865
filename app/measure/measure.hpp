#pragma once
// `.meas`-style measurements (grammar and MeasureSpec: netlist/measure.hpp), evaluated on a
// stream of points (memory flat), so the same code serves `run` (during the simulation), `plot`
// and `compare` (on waveforms in memory). Semantics: the waveform is linear between computed
// points; avg = ∫y dt / (T2 − T1), rms = sqrt(∫y² dt / (T2 − T1)), integ = ∫y dt, all exact for the
// piecewise-linear waveform, with the window's ends interpolated; min/max/pp over the window,
// the ends included; when = the interpolated time of the N-th crossing of the level (default:
// cross=1, either direction), crossings before td ignored; find = the signal's value there;
// trig/targ = t_targ − t_trig, each instant found as `when` finds its crossing (or given by
// at=), negative when TARG comes first; deriv = the slope of the piecewise-linear waveform at its
// instant (at=, or when's crossing): the slope of the segment holding it, or, at a point between
// two segments, the mean of their slopes (a central difference on an even grid). The crossings:
// app/measure/crossing.hpp.
//
// Only the points fed are measured (a run's rows: from the .tran TSTART on, as SPICE measures
// the data it saved). A window or an instant asked for before the first point (from=, at= before
// TSTART) is a failed measurement naming both times, as a window ending after the run is: the
// part of it the points cover is not the measurement asked for (AVG FROM=1m TO=2m of a ramp with
// TSTART 1.5m came out as the average over 1.5–2m, exit 0). A crossing not found is said to be
// not found in the points from the first one on.
//
// The same measurements run along a DC sweep's value or a frequency (.meas dc, .meas ac:
// app/measure/sweep_measures.hpp) as along time: `t` is then that value (MeasureScale), every
// at=, from=, to= one of it, and a window or an instant outside the points is a failed
// measurement the same way. A DC sweep may run downwards: a segment counts in either direction,
// and avg, rms and integ are those of the values over the sweep variable (integ signed by the
// direction of the sweep, as ngspice's sum).
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/measure/crossing.hpp"
#include "app/measure/signal_expr.hpp"
#include "netlist/measure.hpp"

namespace nsspice::app {

using netlist::Edge;
using netlist::MeasureKind;
using netlist::MeasureSpec;
using netlist::parse_measure;

struct MeasureResult {
  std::string name, text;
  std::optional<double> value;
  std::optional<double> at;  // min/max: where; when/find-when: the crossing time; trig/targ: t_targ
  std::string unit;          // "V", "A", "s", "V·s", "A·s", ""
  std::string failure;       // when !value: why ("v(out) never crosses 2.5 (rise 2)")
  std::string at_symbol = "t", at_unit = "s";  // how `at` is printed: "at t = 0.001 s"
};

// One measurement bound to the columns of a stream.
class Measurement {
 public:
  // nullopt with `error` set if a signal is not among `names`.
  static std::optional<Measurement> bind(const MeasureSpec& spec,
                                         const std::vector<std::string>& names, std::string& error,
                                         const MeasureScale& scale = {});
  void feed(double t, std::span<const double> values);
  MeasureResult result() const;
  // The columns it reads (the signal; the conditions', for when/find-when and trig/targ).
  std::vector<size_t> columns() const;

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);  // no column
  Measurement(MeasureSpec spec, const MeasureScale& scale)
      : spec_(std::move(spec)), scale_(scale), when_(spec_.when, scale), targ_(spec_.targ, scale) {}
  std::string unit() const;
  MeasureResult value() const;  // result() before its finiteness check
  void window(double t0, double y0, double t1, double y1);
  void slope(double t, double c, double y);  // deriv: the segment from the point before to t
  friend class MeasureSet;
  MeasureSpec spec_;
  MeasureScale scale_;
  size_t col_ = kNone, when_col_ = kNone, targ_col_ = kNone;
  // Arithmetic of signals in place of a column (signal_expr.hpp; slots are columns); for param,
  // of the measurements before it (slots are their indices in the set).
  std::optional<SignalExpr> expr_, when_expr_, targ_expr_;
  bool have_prev_ = false;
  double t_first_ = 0;          // the first point's time (a .tran TSTART: the rows start there)
  double t_lo_ = 0, t_hi_ = 0;  // the range of t the points cover (a DC sweep may run downwards)
  double t_prev_ = 0, y_prev_ = 0, c_prev_ = 0, d_prev_ = 0;
  // window aggregates
  double integ_ = 0, integ2_ = 0, span_ = 0;
  double min_ = 0, max_ = 0, t_min_ = 0, t_max_ = 0;
  bool any_ = false;
  // the instants: when's crossing, find's point, TRIG; TARG
  CrossingSearch when_, targ_;
  // deriv: the slopes of the segments around its instant (their sum and count), one more to
  // come when the instant is the last point fed; the slope of the segment before.
  double slope_sum_ = 0, slope_prev_ = 0;
  int slopes_ = 0;
  bool slope_pending_ = false, have_slope_ = false;
  std::optional<double> slope_at_;  // the instant the slopes are of
};

// All measurements of a run: binds them, feeds them, formats their results.
class MeasureSet {
 public:
  explicit MeasureSet(MeasureScale scale = {}) : scale_(std::move(scale)) {}
  bool add(const MeasureSpec& spec, const std::vector<std::string>& names, std::string& error);
  void feed(double t, std::span<const double> values) {
    for (auto& m : items_) m.feed(t, values);
  }
  std::vector<MeasureResult> results() const;
  bool empty() const { return items_.empty(); }
  // Sets used[c] = 1 for every column some measurement reads.
  void mark_columns(std::vector<char>& used) const {
    for (const auto& m : items_)
      for (size_t c : m.columns())
        if (c < used.size()) used[c] = 1;
  }

 private:
  MeasureScale scale_;
  std::vector<Measurement> items_;
};

// "  vavg = 4.95 V  (avg v(out) from=1m to=2m)" lines.
std::string format_measures(const std::vector<MeasureResult>& results);
// A JSON array of {"name","text","value","at","unit","failure"} (nlohmann::json).
nlohmann::ordered_json measures_json_value(const std::vector<MeasureResult>& results);
std::string measures_json(const std::vector<MeasureResult>& results, int indent = 2);
std::string json_string(const std::string& s);
std::string json_number(std::optional<double> v);

}  // namespace nsspice::app
