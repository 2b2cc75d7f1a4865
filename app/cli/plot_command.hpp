#pragma once
// `nsspice plot FILE(.raw|.csv)`: waveforms from a file into a PNG/SVG/PDF, and the panel
// layout shared with `run --plot`.
#include <optional>
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"
#include "app/plot/plot_gnuplot.hpp"

namespace nsspice::app {

struct PlotOptions {
  std::string input;
  std::string output;  // default: <input stem>.png
  std::string signals;
  std::vector<std::string> panels;
  std::string title;
  bool show = false;
  std::optional<double> t_from, t_to;  // --window
  std::string zoom;                    // --zoom last:N ("": automatic, last 5 periods)
  std::string size;                    // --size WxH (pixels; "": from the content)

  // Empty when valid: a window has FROM < TO, both finite.
  std::string validate() const;
};

int plot_command(const PlotOptions& options);

// The plot of a DC sweep's or an AC analysis's file (w.scale not time, raw or CSV) as `run --plot`
// draws the run (app/plot/analysis_plot.hpp): a DC sweep's curves over its scale, one set per
// outer value of a nested sweep (from its outer column, "i1-sweep"; without one, as in ngspice's
// files, a new set where the scale is back at its first value); an AC analysis's Bode plot (from
// complex data, or from a CSV's dB and phase columns). The signals are --signals, else the
// default's (`left_out`: how many it leaves out). Title, output and size are left to the caller.
// nullopt with `error` for --panel, --window or --zoom (options of waveforms over time) or a
// signal the file does not have.
std::optional<PlotRequest> analysis_plot_request(const Waveforms& w, const PlotOptions& options,
                                                 std::string& error, size_t* left_out = nullptr);

// The columns of each panel: one panel per --panel list; else one panel of --signals; else the
// default: one list of the voltages, then (with `currents`) the currents, at most
// kMaxDefaultSignals (plot_layout.hpp), arranged into panels once the data is known; `left_out`
// (when given) gets how many signals the default leaves out.
std::optional<std::vector<std::vector<size_t>>> panel_layout(const std::vector<std::string>& panels,
                                                             const std::string& signals,
                                                             const std::vector<std::string>& names,
                                                             bool currents, std::string& error,
                                                             size_t* left_out = nullptr);

// The file extension of a plot is one gnuplot can write.
bool plot_extension_ok(const std::string& path);

// Panels of `w` per `layout`.
std::vector<PlotPanel> make_panels(const Waveforms& w,
                                   const std::vector<std::vector<size_t>>& layout);

}  // namespace nsspice::app
