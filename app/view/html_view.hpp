#pragma once
// The waveform viewer: one self-contained HTML file (no network, no other file) with the run
// report, the measurements and interactive plots (app/view/viewer.js, drawn by uPlot, both
// compiled into the binary). Signals are stored as float32 (7 significant digits: the viewer
// shows, the CSV/raw file keeps the doubles), the time as t0 + k·h when the samples are on
// such a grid (decimal_grid.hpp), else as float64.
#include <string>
#include <vector>

#include "app/measure/measure.hpp"

namespace nsspice::app {

struct ViewSignal {
  std::string name;
  const std::vector<double>* values = nullptr;  // one per time sample
};

struct ViewData {
  std::string title;
  std::string subtitle;  // e.g. the file and its date
  std::string report;    // the run report (plain text), may be empty
  std::vector<MeasureResult> measurements;
  const std::vector<double>* time = nullptr;  // ascending (a repeated time: a jump)
  std::vector<ViewSignal> signals;
};

// The HTML text of the viewer.
std::string view_html(const ViewData& data);

// Writes it to `path`; false with `error` (naming the file) on failure.
bool write_view(const std::string& path, const ViewData& data, std::string& error);

// `base64` of bytes (RFC 4648, with padding).
std::string base64(const unsigned char* bytes, size_t size);

}  // namespace nsspice::app
