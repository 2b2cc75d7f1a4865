#pragma once
// `nsspice pss NETLIST --period T`: the periodic steady state by shooting (circuit/pss.hpp),
// written over one period (or --periods K) in the usual waveform format, plotted with --plot,
// measured by the netlist's .meas cards and --meas,
// with the Newton iterations and, with --compare-transient N, the periods and the time a
// transient needs to reach the same periodicity.
#include <optional>
#include <string>

#include "app/cli/run_command.hpp"
#include "app/cli/simulation.hpp"
#include "circuit/pss.hpp"

namespace nsspice::app {

constexpr int kDefaultWarmup = 5;  // warm-up periods when neither the options nor .pss say

// Unset options are taken from the .pss card, else their defaults; a value given is checked as
// given (--steps 0 is an error, not the default).
struct PssCommandOptions {
  RunOptions run;                  // netlist, -o, --format, --save, --plot, --show, --meas, -q
  std::optional<double> period;    // T [s] (unset: the .pss card's); with a trigger, the guess
  std::string trigger;             // "v(node)=level rise|fall": T is an unknown
  double stabilization = 0;        // trigger: warm-up time [s] (0: `warmup` guessed periods)
  std::optional<int> periods;      // periods written (unset: the .pss card's, else 1)
  std::string map = "event";       // the period map: event (exact Jacobian) or theta
  std::optional<long> steps;       // steps per period (unset: the card's, else event map 200;
                                   // theta map T/.tran step, else 1000)
  bool finite_difference = false;  // event map: the finite-difference Jacobian
  std::optional<int> warmup;       // warm-up periods before Newton (unset: the card's, else 5)
  int max_newton = 0;              // Newton iterations at most (0: the card's, else 30)
  long compare_transient = 0;      // > 0: also iterate the plain transient up to this many periods
};

int pss_command(const PssCommandOptions& options);
// On a netlist already loaded (`nsspice run` of a netlist whose analysis is its .pss card).
int pss_command(const PssCommandOptions& options, const LoadedNetlist& netlist);

// `options` completed from the netlist's .pss card where they leave something unsaid (ngspice's
// OSCNOB becomes the trigger only when every source is constant).
PssCommandOptions with_pss_card(PssCommandOptions options, const circuit::Circuit& circuit,
                                const circuit::Assembled& assembled);

// The shooting options of the command line; nullopt with `error` for a bad one.
std::optional<circuit::PssOptions> pss_options(const PssCommandOptions& options,
                                               std::string& error);
// "v(node)=level rise|fall" (level optional: the middle of the range; direction optional: rise)
// into `trigger`; false with `error`.
bool parse_trigger(const std::string& text, circuit::PssTrigger& trigger, std::string& error);
// "no periodic steady state (cause, status): ..." for a failed PSS.
std::string pss_failure_text(const circuit::PssResult& result);
// The exit code of a PSS-family computation that ended with `summary`: 0 with an answer,
// kBadInput for invalid input (a source not periodic in T, a trigger that is not a state, ...),
// kSimulationFailed otherwise (docs/output.md, "Exit codes").
int pss_exit_code(const solvers::Summary& summary);
// The report's lines on the orbit: map, Newton iterations, periodicity, multipliers, periods.
void print_pss_summary(const PssCommandOptions& options, const circuit::PssResult& result,
                       double wall);

}  // namespace nsspice::app
