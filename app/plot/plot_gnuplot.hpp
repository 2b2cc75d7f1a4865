#pragma once
// Waveform plots through gnuplot: the script of a plot request (gnuplot_runner.hpp runs it).
//
// A plot is one or more panels stacked over a shared x axis (time in engineering units: ns, µs,
// ms, s), each with its legend inside the image (plot_geometry.hpp); voltages on the left axis
// and currents on the right one when a panel holds both. Switching signals sit in thin panels.
// Event markers (switching instants, state jumps) sit on a thin strip of their own under the
// panels. An optional zoom column repeats every panel over a short window (the last periods of a
// switching run). Series are reduced to their min/max per pixel column (decimate.hpp), so
// 10^7-point runs plot fast and a PWM node looks like one. gnuplot's own output (warnings such as
// "empty y2 range") is captured, never shown; its errors are returned as errors.
#include <optional>
#include <string>
#include <vector>

#include "app/plot/decimate.hpp"

namespace nsspice::app {

struct PlotSeries {
  std::string name;
  std::vector<double> t, y;
  bool dashed = false;    // e.g. the SPICE curve of an overlay
  int color = -1;         // index into the palette; -1: next in turn
  bool points = false;    // markers at the data points (sweep plots)
  bool in_legend = true;  // false: drawn without a legend entry (the other runs of a sweep)
  // Samples for the zoom column when t/y are decimated (the raw tail of a streamed run); empty:
  // the zoom column draws from t/y.
  DecimatedSeries detail = {};
};

struct PlotPanel {
  // The y label is "<ylabel> [<prefix><unit>]", the data scaled to an engineering prefix (µ, m,
  // k...). Default: from the signals ("voltage", "V"; "current", "A"). A unit "" : no scaling.
  std::string ylabel;
  std::string unit;
  std::vector<PlotSeries> series;
  bool log_y = false;
  bool thin = false;  // switching signals: a low panel
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
  struct Zoom {
    double from = 0, to = 0;
    std::string label;  // e.g. "last 5 periods"
  };
  std::optional<Zoom> zoom;   // a zoom column beside the panels
  std::string note;           // a line under the plot (e.g. signals left out)
  int width = 0, height = 0;  // pixels; 0: chosen from the content (plot_geometry.hpp)
};

// Writes the plot; returns an empty string or the reason it failed.
std::string write_plot(const PlotRequest& request);
// True when a window can be opened ($DISPLAY or $WAYLAND_DISPLAY set).
bool display_available();

// Empty when the window FROM,TO (--window) overlaps the time range lo .. hi of `what` (a file, a
// run); else the error naming the option: a window beside the data drew nothing but gnuplot's
// "all points y value undefined" (exit 3) before.
std::string window_outside(std::optional<double> from, std::optional<double> to, double lo,
                           double hi, const std::string& what);
// The gnuplot script of a request (without the terminal and output lines): for tests.
std::string plot_script(const PlotRequest& request);

}  // namespace nsspice::app
