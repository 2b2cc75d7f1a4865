#pragma once
// Waveform plots through gnuplot (gnuplot-iostream): the only file that sees gnuplot.
//
// A plot is one or more panels stacked over a shared x axis (time in engineering units: ns, µs,
// ms, s), each with its legend; voltages on the left axis and currents on the right one when a
// panel holds both. Event markers (switching instants, state jumps: the event-log hook) are
// dashed vertical lines through every panel. Series longer than a few thousand points are
// reduced to their min/max envelope per pixel column, so 10^7-point runs plot fast and look
// the same.
#include <optional>
#include <string>
#include <vector>

namespace nsspice::app {

struct PlotSeries {
  std::string name;
  std::vector<double> t, y;
  bool dashed = false;  // e.g. the SPICE curve of an overlay
  int color = -1;       // index into the palette; -1: next in turn
  bool points = false;  // markers at the data points (sweep plots)
};

struct PlotPanel {
  // The y label is "<ylabel> [<prefix><unit>]", the data scaled to an engineering prefix (µ, m,
  // k...). Default: from the signals ("voltage", "V"; "current", "A"). A unit "" : no scaling.
  std::string ylabel;
  std::string unit;
  std::vector<PlotSeries> series;
  bool log_y = false;
};

struct PlotEvent {
  double t = 0;
  std::string label;  // shown at the top of the first panel; may be empty
};

struct PlotRequest {
  std::string title;   // may hold '\n' (a second line)
  std::string output;  // .png, .svg or .pdf; empty with show = true: a window only
  std::vector<PlotPanel> panels;
  std::vector<PlotEvent> events;
  bool show = false;   // also open a window (needs a display)
  std::string xlabel;  // empty: the x axis is time, scaled to engineering units
  bool log_x = false;
  std::optional<double> t_from, t_to;  // a time window (zoom); default: all the data
};

// Writes the plot; returns an empty string or the reason it failed.
std::string write_plot(const PlotRequest& request);
// True when a window can be opened ($DISPLAY or $WAYLAND_DISPLAY set).
bool display_available();
// Bounded-memory min/max decimation of a series that arrives point by point (run --plot).
class SeriesDecimator {
 public:
  SeriesDecimator(double t_begin, double t_end, int buckets = 3000);
  void add(double t, double y, PlotSeries& out);
  void finish(PlotSeries& out);

 private:
  double t0_, width_;
  long bucket_ = -1;
  int n_ = 0;
  double t_lo_ = 0, y_lo_ = 0, t_hi_ = 0, y_hi_ = 0, t_last_ = 0, y_last_ = 0;
  void flush(PlotSeries& out);
};

}  // namespace nsspice::app
