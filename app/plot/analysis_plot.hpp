#pragma once
// The plots of a DC sweep and of an AC analysis: the same whether `run --plot` draws them while
// the run goes or `nsspice plot` draws them from the run's file (raw or CSV, ours or ngspice's).
//
//   DC sweep  x = the (inner) sweep's values in the order swept (a descending sweep too); one
//             curve per signal, and per value of the outer sweep when the sweep is nested (a new
//             set of curves where the inner sweep starts again); voltages and currents in panels
//             of their own. The x label is the swept source, or the file's scale, with its unit.
//   AC        the Bode plot: the magnitude 20·log10|z| [dB] over a log frequency axis, the phase
//             arg z [deg] (in (−180, 180]) in a panel below; a signal "v(out)" gives the series
//             "vdb(out)" and "vp(out)", ngspice's names, as the CSV's columns.
#include <complex>
#include <span>
#include <string>
#include <vector>

#include "app/plot/plot_gnuplot.hpp"

namespace nsspice::app {

// The curves of a DC sweep, point by point.
class DcSweepCurves {
 public:
  explicit DcSweepCurves(std::vector<std::string> names) : names_(std::move(names)) {}
  // Starts a curve per signal, named "<signal> (<label>)" ("<signal>" for an empty label): at
  // the sweep's first point, and at each outer value of a nested sweep.
  void start(const std::string& label);
  // A point of the curves started last: x and one value per signal (start() first).
  void point(double x, std::span<const double> values);
  bool started() const { return !curves_.empty(); }
  // The panels (voltages, then currents) and the x label of `request`.
  void draw(PlotRequest& request, std::string xlabel) &&;

 private:
  std::vector<std::string> names_;
  std::vector<PlotSeries> curves_;  // names_.size() per start()
};

// The Bode plot of `request`: the magnitudes (series in dB) in a panel over a log frequency axis,
// the phases (in degrees) in the panel below.
void draw_bode(PlotRequest& request, std::vector<PlotSeries> magnitudes,
               std::vector<PlotSeries> phases);

// The curves of an AC analysis, point by point, for draw_bode.
class BodeCurves {
 public:
  explicit BodeCurves(const std::vector<std::string>& names);
  // The response at `f`: one complex value per signal.
  void point(double f, std::span<const std::complex<double>> z);
  void draw(PlotRequest& request) && {
    draw_bode(request, std::move(magnitudes_), std::move(phases_));
  }

 private:
  std::vector<PlotSeries> magnitudes_, phases_;
};

}  // namespace nsspice::app
