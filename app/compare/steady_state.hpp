#pragma once
// The parts of a run a person compares: where the start-up ends, and the steady state's
// averages and ripples.
//
//   period T      the longest period among the periodic sources (PULSE per, SIN 1/f, a
//                 repeating PWL) shorter than the run: a converter's switching period, a
//                 rectifier's mains period
//   start-up      --startup auto: t_skip = the later of 1 % of the run and the reference's first
//                 switching instant, at most 10 % of the run (the UIC start, the first charge of
//                 a filter); --startup T: T
//   steady state  the last K = 5 periods of the window (fewer when fewer fit, at least one), or
//                 without a period (or when less than one fits) the last 10 % of the window;
//                 when every judged signal is constant there in both runs (pp ≤ kConstant ·
//                 max |y_ref| over the run: a single pulse long over), the whole window instead
//   avg           = (1/(b − a)) ∫_a^b y dt (trapezoidal rule on the run's own samples, the ends
//                 interpolated)
//   pp (ripple)   = max y − min y over [a, b]
//   relative      Δavg / scale and Δpp / scale, scale = max |y_ref| over [a, b] (the signal's
//                 size: a current averaging 0 is judged against its peak), at least
//                 kQuietShare · max |y_ref| over the run (a signal quiet in the steady state, a
//                 switch transistor off: −20 pA against 1.4 fA is not "1.4e+06 %" of a current
//                 that swung 20 mA)
#include <optional>
#include <string>
#include <vector>

#include "circuit/circuit.hpp"

namespace nsspice::app {

struct SourcePeriod {
  double period = 0;
  std::string source;  // the source that sets it
};
// The longest period of the periodic sources shorter than `t_run`; nullopt without one.
std::optional<SourcePeriod> source_period(const circuit::Circuit& circuit, double t_run);

// --startup auto (see the top of this file): `first_switch` is the reference run's first
// switching instant (nullopt: none).
double auto_startup(double t_begin, double t_end, std::optional<double> first_switch);

struct SteadyWindow {
  double from = 0, to = 0;
  int periods = 0;  // 0: the last 10 % (no period, or less than one fits)
  double period = 0;
  std::string how;     // "last 5 periods of 10 µs (vpwm)", "last 10 % of the window"
  bool whole = false;  // the whole window: the steady state's was constant
};
SteadyWindow steady_window(const std::optional<SourcePeriod>& period, double t_from, double t_to);
// The whole window [t_from, t_to], in place of `constant`, a steady window without activity.
SteadyWindow whole_window(const SteadyWindow& constant, double t_from, double t_to);

inline constexpr double kQuietShare = 1e-3;
inline constexpr double kConstant = 1e-6;

struct SteadyMetrics {
  std::string name;
  double avg_ref = 0, avg_other = 0;
  double pp_ref = 0, pp_other = 0;
  double scale = 0;     // max |y_ref| over the window, at least kQuietShare of it over the run
  double run_peak = 0;  // max |y_ref| over the run
  double rel_avg() const;
  double rel_pp() const;
  // Both runs constant over the window: pp ≤ kConstant · run_peak.
  bool constant() const;
};

SteadyMetrics steady_metrics(const std::string& name, const std::vector<double>& ref_t,
                             const std::vector<double>& ref_y, const std::vector<double>& other_t,
                             const std::vector<double>& other_y, const SteadyWindow& window);

}  // namespace nsspice::app
