#pragma once
// How far two waveforms of the same signal are apart: both interpolated (linearly) on a common
// uniform grid; maximum and RMS of the difference, relative error, where the largest deviation
// is; and, for device currents, the switching instants of each and their offsets.
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

// t_begin, t_begin + h, ..., up to t_end (t_end itself included).
std::vector<double> uniform_grid(double t_begin, double t_end, double h);

struct SwitchEvent {
  double t = 0;
  bool on = false;  // |i| rises above the threshold (on) or falls below it (off)
};
// Crossings of |y| through `threshold`, interpolated between samples.
std::vector<SwitchEvent> switching_instants(const std::vector<double>& t,
                                            const std::vector<double>& y, double threshold);

struct SignalDiff {
  std::string name;
  double max_abs = 0;  // max |ngspice − nsspice| on the grid
  double t_max = 0;    // where
  double rms = 0;      // RMS of the difference on the grid
  double scale = 0;    // max |nsspice| on the grid
  double rel = 0;      // max_abs / scale
  bool switching = false;
  double threshold = 0;
  std::vector<SwitchEvent> ref_events, other_events;
  std::vector<double> offsets;  // other − ref, per matched ref event (same direction, nearest)
  double max_offset = 0;        // largest |offset|
  double mean_offset = 0;
  std::vector<double> diff;  // on the grid (for the plot)
};

// `switching`: compute switching instants with threshold = max(rel_threshold · max|ref|, 1e-12).
SignalDiff diff_signal(const std::string& name, const std::vector<double>& ref_t,
                       const std::vector<double>& ref_y, const std::vector<double>& other_t,
                       const std::vector<double>& other_y, const std::vector<double>& grid,
                       bool switching, double rel_threshold);

}  // namespace nsspice::app
