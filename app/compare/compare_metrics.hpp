#pragma once
// How far two waveforms of the same signal are apart, on a common time base.
//
//   time base    every sample time of either run in [t_a, t_b] (the analysis window), or a
//                uniform grid of step H (--grid); each run is interpolated linearly between
//                its own samples (after a jump, a repeated time, its later value), so that no
//                peak of either run falls between grid points
//   e(t)         = y_other(t) − y_ref(t) on the time base
//   max|e|       and where (t_max); rel = max|e| / max|y_ref|
//   RMS          = sqrt( ∫ e² dt / (t_b − t_a) ), the trapezoidal rule on the time base (a
//                non-uniform base is weighted by its intervals)
//   switching    crossings of |i| through threshold = rel_threshold · max|i_ref| in (t_a, t_b]
//                (an instant at t_a ends an automatic start-up), interpolated, for each run,
//                dropped outside the window on both sides before pairing; a reference crossing
//                and a crossing of the other run in the same direction are paired when each is
//                the other's nearest (one to one; a crossing whose nearest partner is nearer to
//                another crossing of its own run stays unpaired): offset = t_o − t_r
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

// t_begin, t_begin + h, ..., up to t_end (t_end itself included).
std::vector<double> uniform_grid(double t_begin, double t_end, double h);

// The sample times of `a` and `b` within [t_begin, t_end], both ends included, sorted; times
// closer than 1e-12 · (t_end − t_begin) are merged.
std::vector<double> union_grid(const std::vector<double>& a, const std::vector<double>& b,
                               double t_begin, double t_end);

struct SwitchEvent {
  double t = 0;
  bool on = false;  // |i| rises above the threshold (on) or falls below it (off)
};
// Crossings of |y| through `threshold`, interpolated between samples.
std::vector<SwitchEvent> switching_instants(const std::vector<double>& t,
                                            const std::vector<double>& y, double threshold);

struct SignalDiff {
  std::string name;
  double max_abs = 0;  // max |other − ref| on the time base
  double t_max = 0;    // where
  double rms = 0;      // time-weighted RMS of the difference
  double scale = 0;    // max |ref| on the time base
  double rel = 0;      // max_abs / scale
  bool switching = false;
  double threshold = 0;
  std::vector<SwitchEvent> ref_events, other_events;
  std::vector<double> offsets;  // other − ref, per paired ref event (in order; see above)
  double max_offset = 0;        // largest |offset|
  double mean_offset = 0;
  std::vector<double> diff;  // on the time base (for the plot)
};

// `switching`: compute switching instants with threshold = max(rel_threshold · max|ref|, 1e-12),
// only those within (grid.front(), grid.back()].
SignalDiff diff_signal(const std::string& name, const std::vector<double>& ref_t,
                       const std::vector<double>& ref_y, const std::vector<double>& other_t,
                       const std::vector<double>& other_y, const std::vector<double>& grid,
                       bool switching, double rel_threshold);

}  // namespace nsspice::app
