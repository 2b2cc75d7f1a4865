// pss_command.hpp: load, find the orbit, write K periods, plot, report.
#include "app/cli/pss_command.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>

#include "app/cli/analysis_command.hpp"
#include "app/cli/run_plan.hpp"
#include "app/io/output_file.hpp"
#include "app/io/signals.hpp"
#include "app/measure/measure.hpp"
#include "app/plot/plot_gnuplot.hpp"
#include "circuit/pss.hpp"
#include "circuit/transient.hpp"
#include "netlist/units.hpp"

namespace nsspice::app {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string format_multiplier(std::complex<double> mu) {
  if (std::abs(mu.imag()) <= 1e-9 * std::abs(mu)) return fmt::format("{:.4g}", mu.real());
  return fmt::format("{:.4g}{:+.4g}j", mu.real(), mu.imag());
}

void report(const PssCommandOptions& o, const circuit::PssResult& r, double wall,
            const RunFiles& files, long transient_periods, double transient_wall) {
  if (o.run.quiet) return;
  print_pss_summary(o, r, wall);
  if (o.compare_transient > 0) {
    if (transient_periods > 0)
      fmt::print("  {:<22} {} periods in {:.3g} s ({:.1f}x the PSS time)\n", "transient to settle",
                 transient_periods, transient_wall, wall > 0 ? transient_wall / wall : 0.0);
    else
      fmt::print("  {:<22} not settled within {} periods ({:.3g} s)\n", "transient to settle",
                 o.compare_transient, transient_wall);
  }
  fmt::print("  {:<22} {} ({}, {} period{})\n", "output", files.output_path,
             format_name(files.format), *o.periods, *o.periods == 1 ? "" : "s");
  if (!files.plot_path.empty()) fmt::print("  {:<22} {}\n", "plot", files.plot_path);
}

// The netlist's .meas cards and --meas, bound to the signals: a card that cannot be bound is a
// warning at its place and left out; a --meas that cannot is an error (printed; false).
bool bind_measures(const PssCommandOptions& o, const LoadedNetlist& loaded,
                   const std::vector<std::string>& names, MeasureSet& measures) {
  const auto specs = all_measures(loaded, o.run.measures);
  if (!specs) return false;
  for (size_t k = 0; k < specs->size(); ++k) {
    std::string why;
    if (measures.add((*specs)[k], names, why)) continue;
    if (k >= loaded.measures.size()) {
      print_error(why);
      return false;
    }
    netlist_warning(loaded, loaded.measure_spans[k], why + "; the measurement is left out");
  }
  return true;
}

}  // namespace

bool parse_trigger(const std::string& text, circuit::PssTrigger& trigger, std::string& error) {
  std::string s;
  for (char c : text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto close = s.find(')');
  const auto bad = [&](const std::string& why) {
    error = fmt::format(
        "--trigger '{}': {} (expected 'v(node)=LEVEL rise|fall', e.g. "
        "'v(cap)=2.5 rise'; v(a,b) and i(L) too)",
        text, why);
    return false;
  };
  const auto start = s.find_first_not_of(' ');
  if (start == std::string::npos || close == std::string::npos) return bad("no signal");
  trigger.signal = s.substr(start, close + 1 - start);
  std::string rest = s.substr(close + 1);
  std::string level, direction;
  const auto eq = rest.find('=');
  if (eq != std::string::npos) {
    if (rest.find_first_not_of(' ') != eq) return bad("text between the signal and '='");
    rest = rest.substr(eq + 1);
    const auto a = rest.find_first_not_of(' ');
    if (a == std::string::npos) return bad("no level after '='");
    const auto b = rest.find(' ', a);
    level = rest.substr(a, b == std::string::npos ? std::string::npos : b - a);
    rest = b == std::string::npos ? "" : rest.substr(b);
  }
  const auto a = rest.find_first_not_of(' ');
  if (a != std::string::npos) {
    const auto b = rest.find_last_not_of(' ');
    direction = rest.substr(a, b + 1 - a);
  }
  trigger.level_given = !level.empty();
  if (trigger.level_given) {
    const auto v = netlist::parse_spice_number(level);
    if (!v) return bad(fmt::format("'{}' is not a number", level));
    trigger.level = *v;
  }
  if (direction.empty() || direction == "rise" || direction == "rising") {
    trigger.rising = true;
  } else if (direction == "fall" || direction == "falling") {
    trigger.rising = false;
  } else {
    return bad(fmt::format("'{}' is not rise or fall", direction));
  }
  return true;
}

PssCommandOptions with_pss_card(PssCommandOptions o, const circuit::Circuit& c,
                                const circuit::Assembled& a) {
  if (c.pss) {
    const circuit::PssSpec& s = *c.pss;
    if (!o.period) o.period = s.period;
    const double horizon = s.stabilization + 60 * s.period;
    if (o.trigger.empty() && !s.trigger.empty() &&
        (!s.node_trigger || circuit::time_varying_source(c, a, horizon).empty()))
      o.trigger = s.trigger + (s.level_given ? fmt::format("={:.17g}", s.level) : "") +
                  (s.rising ? " rise" : " fall");
    if (o.stabilization == 0) o.stabilization = s.stabilization;
    if (!o.steps && s.steps > 0) o.steps = s.steps;
    if (!o.periods) o.periods = s.periods;
    if (!o.warmup && s.warmup >= 0) o.warmup = s.warmup;
    if (o.max_newton == 0) o.max_newton = s.max_newton;
  }
  if (!o.periods) o.periods = 1;
  if (!o.warmup) o.warmup = kDefaultWarmup;
  return o;
}

std::optional<circuit::PssOptions> pss_options(const PssCommandOptions& o, std::string& error) {
  circuit::PssOptions options;
  options.period = o.period.value_or(0);
  if (o.max_newton > 0) options.max_newton = o.max_newton;
  options.stabilization = o.stabilization;
  if (!o.trigger.empty()) {
    circuit::PssTrigger trigger;
    if (!parse_trigger(o.trigger, trigger, error)) return std::nullopt;
    options.trigger = trigger;
  }
  options.steps_per_period = o.steps.value_or(0);
  options.warmup_periods = o.warmup.value_or(kDefaultWarmup);
  options.finite_difference = o.finite_difference;
  if (o.map == "event") {
    options.map = circuit::PssMap::kEvent;
  } else if (o.map == "theta") {
    options.map = circuit::PssMap::kTheta;
  } else {
    error = fmt::format("--map {}: expected event or theta", o.map);
    return std::nullopt;
  }
  if (o.steps && *o.steps < 1)
    error = fmt::format("--steps {}: must be >= 1", *o.steps);
  else if (o.warmup && *o.warmup < 0)
    error = fmt::format("--warmup {}: must be >= 0", *o.warmup);
  else if (!o.period)
    error = o.trigger.empty() ? "no period: give --period T (or a .pss card in the netlist)"
                              : "--trigger needs a guess of the period: --period T (or the .pss "
                                "card's frequency)";
  else if (!(*o.period > 0) || !std::isfinite(*o.period))  // a .pss card's is checked at its line
    error = fmt::format("--period {:g}: the {}period must be > 0 s", *o.period,
                        o.trigger.empty() ? "" : "guessed ");
  else if (!(o.stabilization >= 0))
    error = fmt::format("--tstab {:g}: must be >= 0 s", o.stabilization);
  else
    error = options.validate();
  if (!error.empty()) return std::nullopt;
  return options;
}

std::string pss_failure_text(const circuit::PssResult& r) {
  return fmt::format("no periodic steady state ({}, {}): {}", circuit::to_string(r.failure),
                     solvers::to_string(r.summary.status), r.summary.message);
}

int pss_exit_code(const solvers::Summary& summary) {
  if (solvers::has_answer(summary.status)) return 0;
  return summary.status == solvers::Status::kInvalidInput ? kBadInput : kSimulationFailed;
}

void print_pss_summary(const PssCommandOptions& o, const circuit::PssResult& r, double wall) {
  if (r.map == circuit::PssMap::kEvent)
    fmt::print(
        "periodic steady state: T = {:.10g} s, event map (Radau IIA, h = {:.4g} s, switching "
        "instants located)\n",
        r.period, r.h);
  else
    fmt::print("periodic steady state: T = {:g} s, theta map (h = {:.4g} s, theta {:g})\n",
               r.period, r.h, r.theta);
  if (!r.theta_fallback.empty())
    fmt::print("  {:<22} the theta map did not converge, the event map found the orbit: {}\n",
               "note", r.theta_fallback);
  if (r.map == circuit::PssMap::kEvent && r.select_step > 1e-9)
    fmt::print(
        "  {:<22} mode selections over delta = {:g} T (at 1e-9 T the selections at a switching "
        "instant did not settle: a phase too fast for the steps, e.g. a large resistance beside a "
        "capacitor; the selection's backward-Euler steps pass through it)\n",
        "note", r.select_step);
  if (!o.trigger.empty()) {
    std::string periods;
    for (double t : r.period_history)
      periods += fmt::format("{}{:.9g}", periods.empty() ? "" : " ", t);
    fmt::print("  {:<22} {} (level {:g}); T per iteration: {} s (guess {:g} s)\n", "trigger",
               o.trigger, r.trigger_level, periods, o.period.value_or(0));
  }
  fmt::print("  {:<22} {} ({} Jacobian)\n", "Newton iterations", r.newton_iterations,
             r.exact_jacobian ? "exact" : "finite-difference");
  if (r.jacobian_fallbacks > 0)
    fmt::print("  {:<22} {} Jacobian{} by finite differences instead: {}\n", "note",
               r.jacobian_fallbacks, r.jacobian_fallbacks == 1 ? "" : "s", r.fallback_reason);
  if (r.broyden_updates > 0)
    fmt::print(
        "  {:<22} {} Broyden update{} of a finite-difference Jacobian instead of a new one\n",
        "note", r.broyden_updates, r.broyden_updates == 1 ? "" : "s");
  std::string history;
  for (double h : r.history) history += fmt::format("{}{:.2e}", history.empty() ? "" : " ", h);
  fmt::print("  {:<22} {}\n", "|x(T) - x(0)|/|x|", history);
  fmt::print("  {:<22} {:.3g}\n", "final periodicity", r.residual);
  std::string mu;
  for (size_t k = 0; k < r.multipliers.size() && k < 4; ++k)
    mu += (k ? ", " : "") + format_multiplier(r.multipliers[k]);
  if (!r.multipliers.empty())
    fmt::print("  {:<22} {}{} (largest |mu| {:.4g}: {})\n", "Floquet multipliers", mu,
               r.multipliers.size() > 4 ? ", ..." : "", std::abs(r.multipliers[0]),
               std::abs(r.multipliers[0]) < 1 ? "stable" : "unstable");
  if (r.transient_estimate > 0)
    fmt::print("  {:<22} about {:g} periods to 1e-9 from the initial point (by the largest |mu|)\n",
               "a transient needs", r.transient_estimate);
  fmt::print("  {:<22} {} (warm-up {}, Jacobians, line search, {} of plain transient, checks)\n",
             "periods simulated", r.periods_simulated, o.warmup.value_or(kDefaultWarmup),
             r.fallback_periods);
  fmt::print("  {:<22} {:.3g} s\n", "time", wall);
}

int pss_command(const PssCommandOptions& given) {
  const auto loaded = load_netlist(given.run.netlist, false);
  if (!loaded) return kBadInput;
  return pss_command(given, *loaded);
}

int pss_command(const PssCommandOptions& given, const LoadedNetlist& netlist) {
  const LoadedNetlist* loaded = &netlist;
  circuit::Circuit c = loaded->circuit;
  if (c.pss && c.pss->uic) {  // .pss ... UIC: the initial point as .tran UIC's
    if (!c.tran) c.tran.emplace();
    c.tran->uic = true;
  }
  const circuit::Assembled a = circuit::assemble(c);
  const PssCommandOptions o = with_pss_card(given, c, a);
  if (c.pss && c.pss->node_trigger && o.trigger.empty() && given.trigger.empty() && !o.run.quiet)
    fmt::print(
        "nsspice: note: .pss: the circuit is driven ({}), so T = 1/GFREQ = {:g} s and "
        "OSCNOB ({}) is not used\n",
        circuit::time_varying_source(c, a, c.pss->stabilization + 60 * c.pss->period), *o.period,
        c.pss->trigger);
  const circuit::SignalTable signals = circuit::make_signals(c, a);
  std::string error;
  const auto files = run_files(o.run, *loaded, error);
  const auto columns = files ? chosen_signals(o.run, *loaded, signals.names, error) : std::nullopt;
  const auto options = error.empty() ? pss_options(o, error) : std::nullopt;
  if (error.empty() && *o.periods < 1)
    error = fmt::format("--periods {}: must be >= 1", *o.periods);
  if (!error.empty()) {
    print_error(error);
    return kBadInput;
  }
  MeasureSet measures;
  if (!bind_measures(o, *loaded, signals.names, measures)) return kBadInput;
  const auto start = std::chrono::steady_clock::now();
  const circuit::PssResult r = circuit::periodic_steady_state(c, a, *options);
  const double wall = seconds_since(start);
  if (!r.ok()) {
    print_error(pss_failure_text(r));
    return pss_exit_code(r.summary);
  }
  long transient_periods = -1;
  double transient_wall = 0;
  if (o.compare_transient > 0) {
    circuit::PssOptions count = *options;
    count.max_transient_periods = o.compare_transient;
    count.map = r.map;
    count.period = r.period;  // a trigger's: the plain transient iterated over the T found
    count.trigger.reset();
    if (!r.theta_fallback.empty()) count.steps_per_period = 0;  // the event map's own steps
    count.select_step = r.select_step;                          // and selection step
    const auto t0 = std::chrono::steady_clock::now();
    transient_periods = circuit::periods_to_settle(c, a, count);
    transient_wall = seconds_since(t0);
  }
  std::vector<std::string> names;
  for (size_t k : *columns) names.push_back(signals.names[k]);
  auto writer = make_writer(files->format);
  if (!writer->open(files->output_path, c.title, names)) {
    print_error(fmt::format("cannot write '{}': {}", files->output_path, std::strerror(errno)));
    return kOutputFailed;
  }
  PlotRequest plot;
  plot.title = (c.title.empty() ? o.run.netlist : c.title) + "\nperiodic steady state";
  plot.output = files->plot_path;
  plot.show = o.run.show;
  PlotPanel volts, amps;
  for (const auto& n : names)
    (signal_kind(n) == SignalKind::kCurrent ? amps : volts).series.push_back({n, {}, {}});
  std::vector<double> all, values(columns->size());
  const solvers::Summary ran = circuit::run_periods(
      c, a, r, *options, *o.periods,
      [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& l) {
        signals.evaluate(x, l, all);
        measures.feed(t, all);
        for (size_t k = 0; k < columns->size(); ++k) values[k] = all[(*columns)[k]];
        writer->row(t, values);
        size_t v = 0, i = 0;
        for (size_t k = 0; k < names.size(); ++k) {
          PlotSeries& s =
              signal_kind(names[k]) == SignalKind::kCurrent ? amps.series[i++] : volts.series[v++];
          s.t.push_back(t);
          s.y.push_back(values[k]);
        }
      });
  if (!writer->close() || !ran.solved()) {
    print_error(ran.solved() ? fmt::format("writing '{}' failed", files->output_path)
                             : "writing the orbit's periods: " + ran.message);
    return ran.solved() ? kOutputFailed : pss_exit_code(ran);
  }
  int code = 0;
  for (auto* p : {&volts, &amps})
    if (!p->series.empty()) plot.panels.push_back(std::move(*p));
  if (!plot.output.empty() || plot.show) {
    if (const std::string why = write_plot(plot); !why.empty()) {
      print_error(fmt::format("plot '{}': {}", plot.output, why));
      code = kOutputFailed;
    }
  }
  report(o, r, wall, *files, transient_periods, transient_wall);
  if (const auto results = measures.results(); !results.empty() && !o.run.quiet)
    fmt::print("measurements (over the {} period{} written)\n{}", *o.periods,
               *o.periods == 1 ? "" : "s", format_measures(results));
  return code;
}

}  // namespace nsspice::app
