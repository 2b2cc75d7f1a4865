#pragma once
// `nsspice run NETLIST`: parse, elaborate, simulate the .tran, stream the waveforms to a CSV or
// SPICE raw file (optionally a subset, optionally resampled), measure, plot, report.
#include <optional>
#include <string>
#include <vector>

namespace nsspice::app {

struct RunOptions {
  std::string netlist;
  std::string output;               // default: <netlist stem>.csv in the current directory
  std::string format;               // "", csv, raw, rawascii ("" = by the extension of output)
  std::string save;                 // columns of the file, comma separated (default: all signals)
  std::optional<double> grid;       // resample the file on this uniform step
  std::string plot;                 // optional .png/.svg/.pdf
  bool plot_default = false;        // --plot without a file: <netlist stem>.png
  std::string signals;              // plot selection, comma separated; default: all node voltages
  std::vector<std::string> panels;  // plot panels, each comma separated
  bool show = false;
  std::string zoom;                   // --zoom last:N ("": automatic, last 5 periods)
  std::string size;                   // --size WxH (pixels; "": from the content)
  std::string view;                   // --view FILE.html: the waveform viewer
  bool view_default = false;          // --view without a file: <netlist stem>.html
  std::vector<std::string> measures;  // --meas texts
  std::string meas_json;
  std::optional<double> theta;
  std::optional<double> step;
  std::string lcp_solver;           // "" = the netlist's .options lcpsolver
  std::string method;               // "" = the netlist's .options method; theta or event
  std::optional<double> evrtol;     // event-driven tolerance (overrides .options evrtol)
  long dump_step = 0;               // --dump-mlcp K (> 0)
  std::optional<double> dump_time;  // --dump-mlcp-time T
  std::optional<double> max_rows;   // --max-rows N: the most rows the file may get
  bool quiet = false;
  bool progress = true;

  // Empty when the command line's own numbers are in range (--grid, --dump-mlcp,
  // --dump-mlcp-time), else the option and its allowed range. theta, step and evrtol are
  // checked with the netlist's values (circuit/tran_settings.hpp), by the run plan.
  std::string validate() const;
};

// Returns the process exit code (0 success, 1 bad input, 2 simulation failure, 3 output failure).
int run_command(const RunOptions& options);

}  // namespace nsspice::app
