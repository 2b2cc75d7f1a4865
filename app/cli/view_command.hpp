#pragma once
// `nsspice view FILE.raw|FILE.csv [-o FILE.html]`: the waveform viewer (app/view/html_view.hpp)
// of a file, with measurements on it; and the viewer of a finished `run` (--view).
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"
#include "app/measure/measure.hpp"

namespace nsspice::app {

struct ViewOptions {
  std::string input;
  std::string output;                 // default: <input stem>.html
  std::string signals;                // comma separated; default: all
  std::string title;                  // default: the file's
  std::vector<std::string> measures;  // --meas texts, measured on the file
};

int view_command(const ViewOptions& options);

// Empty when `path` ends in .html or .htm (any case); else the error naming `option`: the viewer
// wrote its HTML under any name before, `view out.csv -o out.csv` over its own input, `run
// buck.cir --view buck.cir` over the netlist.
std::string view_path_error(const std::string& path, const std::string& option);

// Writes the viewer of `w` (all its signals) to `path`; exit code 0, or kOutputFailed with the
// error printed.
int write_view_file(const std::string& path, const Waveforms& w, const std::string& title,
                    const std::string& subtitle, const std::string& report,
                    const std::vector<MeasureResult>& measurements);

}  // namespace nsspice::app
