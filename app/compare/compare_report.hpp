#pragma once
// What `compare` found, as text (the report, ending in a one-line verdict), JSON, and plots
// (overlay + difference panels; the convergence plot of --sweep-ideality).
#include <optional>
#include <string>
#include <vector>

#include "app/compare/compare_metrics.hpp"
#include "app/compare/ngspice_ladder.hpp"
#include "app/compare/steady_state.hpp"
#include "app/io/waveforms.hpp"
#include "app/measure/measure.hpp"

namespace nsspice::app {

// Which question a compare answers (docs/compare.md).
enum class Question {
  kUserModels,   // 1: how far is the ideal/PWL result from my real SPICE models?
  kRegularized,  // 2: does regularized SPICE converge to the ideal answer?
  kFile,         // --against: how far is it from a waveform produced elsewhere?
  kMethods,      // --methods: do the θ-scheme and the event mode agree?
};

struct PeerRun {
  double wall_seconds = 0;  // 0: not measured (a file)
  long points = 0;
  bool failed = false;  // did not reach TSTOP
  double t_end = 0;     // last time point
  std::string failure;
  std::vector<std::string> problems;
  std::vector<Attempt> attempts;  // ngspice: the escalation ladder's attempts
  size_t used_attempt = 0;        // whose waveforms are compared
  std::string ladder_ended;       // why the ladder stopped early ("" if it did not)
};

struct SweepRow {
  double n = 0;             // the diode emission coefficient
  std::string diode_model;  // the full model line
  PeerRun ngspice;
  std::vector<SignalDiff> diffs;
};

struct CompareResult {
  std::string netlist, title;
  Question question = Question::kRegularized;
  std::string ref_label = "nsspice", peer_label = "ngspice";
  std::string diode_model, switch_model, options;  // the regularized models (questions 1, 2)
  std::vector<std::string> user_cards;             // question 1: the models run unchanged
  std::vector<std::string> regularized;            // devices given a regularized model
  bool idealized = false;  // question 2: nsspice ran the SPICE diodes ideal (.options idealize)
  std::string against;     // --against FILE
  PeerRun nsspice, peer;
  double h = 0, theta = 0;
  std::string step_rule;  // how nsspice chose its steps
  double t_start = 0, t_stop = 0;
  // The analysis window [t_from, t_to]: the common interval without the start-up.
  double t_from = 0, t_to = 0;
  double startup = 0;
  std::string startup_how;  // "1 % of the run", "--startup", "the first switching instant"
  std::string time_base;    // "both runs' samples" or "uniform, step 10 ns"
  std::vector<double> grid;
  std::vector<SignalDiff> diffs;
  SteadyWindow steady;
  std::vector<SteadyMetrics> steady_metrics;
  std::vector<MeasureResult> meas_nsspice, meas_ngspice;
  // Per measurement: |peer − ref| / scale (compare_analysis.hpp), nullopt when one failed.
  std::vector<std::optional<double>> meas_rel;
  std::vector<SweepRow> sweep;
  std::vector<std::string> unmatched_peer;  // signals only the peer has (a file)
  std::vector<std::string> notes;
  std::vector<std::string> files;
  std::string verdict;

  bool peer_failed() const { return peer.failed; }
  bool has_window() const { return t_to > t_from && !grid.empty(); }
};

// "12.3 ms", "4.56 mV", "-1.2 A": three significant digits and an SI prefix.
std::string eng(double value, const std::string& unit);

// "it stopped at t = 350 µs", or "it wrote no point" (killed before its first).
std::string stopped_text(const PeerRun& p);

// The question in words, e.g. "does regularized SPICE converge to the ideal answer?".
std::string question_text(Question q);

// The one-line verdict, e.g. "agree within 1.2 % (v(out) avg), SPICE 23× slower", or
// "SPICE FAILED: ...". Reads the steady state (over the whole window when it was constant: the
// judged signals' max|err| then), the user's measurements (the largest difference heads the
// verdict when it exceeds the averages'; one failed on one side only is named), the window and
// the wall times.
std::string verdict_line(const CompareResult& r);

std::string format_compare(const CompareResult& r);
std::string compare_json(const CompareResult& r);

// Overlay panels (reference solid, peer dashed; voltages and currents apart) and difference
// panels (peer − reference); where the peer stopped early, a marker and a note. Returns "" or
// why it failed.
std::string write_compare_plot(const CompareResult& r, const Waveforms& ns, const Waveforms& ng,
                               const std::vector<std::string>& signals, const std::string& path,
                               std::optional<double> t_from = {}, std::optional<double> t_to = {});
// Max |error| against N (log-log), one line per signal; failed runs as separate marked points.
std::string write_sweep_plot(const CompareResult& r, const std::vector<std::string>& signals,
                             const std::string& path);

}  // namespace nsspice::app
