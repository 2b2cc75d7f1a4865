// nsspice: command-line entry point. Thin: the work is in the libraries and the *_command files.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "app/cli/compare_command.hpp"
#include "app/cli/models_command.hpp"
#include "app/cli/plot_command.hpp"
#include "app/cli/pss_command.hpp"
#include "app/cli/run_command.hpp"
#include "app/cli/simulation.hpp"
#include "app/cli/switching_ac_command.hpp"
#include "app/cli/view_command.hpp"
#include "app/plot/plot_layout.hpp"
#include "app/sweep/mpi_runs.hpp"
#include "app/sweep/sweep_points.hpp"
#include "netlist/units.hpp"

namespace {

using nsspice::app::CompareOptions;
using nsspice::app::PlotOptions;
using nsspice::app::RunOptions;

// Numbers with SPICE suffixes on the command line: --grid 1m, --step 10u.
const CLI::Validator kSpiceNumber(
    [](std::string& text) {
      const auto v = nsspice::netlist::parse_spice_number(text);
      if (!v) return fmt::format("'{}' is not a number (SPICE suffixes allowed: 1m, 10u)", text);
      text = fmt::format("{}", *v);
      return std::string();
    },
    "NUMBER");

// --window FROM,TO (SPICE numbers): a time window of a plot.
void add_window(CLI::App* cmd, std::optional<double>& from, std::optional<double>& to) {
  cmd->add_option_function<std::string>(
      "--window",
      [&from, &to](const std::string& text) {
        const auto comma = text.find(',');
        const auto a = nsspice::netlist::parse_spice_number(text.substr(0, comma));
        const auto b = comma == std::string::npos
                           ? std::nullopt
                           : nsspice::netlist::parse_spice_number(text.substr(comma + 1));
        if (!a || !b || !(*b > *a))
          throw CLI::ValidationError("--window", "expected FROM,TO with FROM < TO, e.g. 1m,2m");
        from = a;
        to = b;
      },
      "plot only the time window FROM,TO, e.g. 1.9m,2m");
}

void add_plot_layout(CLI::App* cmd, std::string& signals, std::vector<std::string>& panels,
                     bool& show, const char* signals_help) {
  cmd->add_option("--signals", signals, signals_help);
  cmd->add_option("--panel", panels,
                  "a plot panel of these signals (repeatable: one panel each), e.g. "
                  "--panel v(out),v(in) --panel i(l1)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("--show", show, "also open the plot in a window (when a display is available)");
}

// --zoom last:N: a zoom column on the last N switching periods (0 or off: none).
void add_zoom(CLI::App* cmd, std::string& zoom) {
  cmd->add_option("--zoom", zoom,
                  "zoom column on the last N switching periods: last:N (default last:5 when "
                  "periodic switching is found; off: none)")
      ->check(CLI::Validator(
          [](std::string& text) {
            return nsspice::app::parse_zoom(text) ? std::string()
                                                  : "expected last:N (e.g. last:5) or off";
          },
          "last:N"));
}

// --size WxH: the plot's size in pixels.
void add_size(CLI::App* cmd, std::string& size) {
  cmd->add_option("--size", size,
                  "plot size in pixels, WxH (e.g. 1600x900; H 0: from the panels; default 1200 "
                  "wide, 1500 with a zoom column)")
      ->check(CLI::Validator(
          [](std::string& text) {
            return nsspice::app::parse_plot_size(text)
                       ? std::string()
                       : "expected WxH in pixels, W in 320..8000, H in 0..8000 (e.g. 1600x900)";
          },
          "WxH"));
}

// The command line's values of `run`; numbers given are copied into `run` after parsing.
struct RunCli {
  RunOptions run;
  double theta = 0, step = 0, grid = 0, evrtol = 0, dump_time = 0, max_rows = 0;
  bool no_progress = false;
  bool mpi = false;  // --mpi (the session is started in main)
  CLI::Option *theta_opt = nullptr, *step_opt = nullptr, *grid_opt = nullptr, *evrtol_opt = nullptr,
              *dump_time_opt = nullptr, *plot_opt = nullptr, *max_rows_opt = nullptr,
              *view_opt = nullptr;
  RunOptions options() const {
    RunOptions o = run;
    if (*theta_opt) o.theta = theta;
    if (*evrtol_opt) o.evrtol = evrtol;
    if (*step_opt) o.step = step;
    if (*grid_opt) o.grid = grid;
    if (*dump_time_opt) o.dump_time = dump_time;
    if (*max_rows_opt) o.max_rows = max_rows;
    o.plot_default = plot_opt->count() > 0 && o.plot.empty();
    o.view_default = view_opt->count() > 0 && o.view.empty();
    o.progress = !no_progress;
    return o;
  }
};

// Sweeps and Monte Carlo (app/cli/sweep_command.hpp).
void add_sweep_options(CLI::App* cmd, RunOptions& run) {
  cmd->add_option("--step-param", run.step_params,
                  "sweep a parameter over values (repeatable, nests up to 3 with .step cards): "
                  "NAME=v1,v2,... e.g. rload=10,20,50")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--runs", run.runs,
                  "Monte Carlo: N runs (of each sweep point), drawing agauss/gauss/aunif/unif/mc")
      ->check(CLI::Range(1L, 1'000'000L));
  cmd->add_option("--seed", run.seed,
                  "Monte Carlo seed (default 1): the draws of trial K depend only on the "
                  "seed and K");
  cmd->add_option_function<std::string>(
      "--run",
      [&run](const std::string& text) {
        std::string error;
        run.run_range = nsspice::app::parse_run_range(text, error);
        if (!run.run_range) throw CLI::ValidationError("--run", error);
      },
      "only run K (or runs A:B, from 1) of the sweep or Monte Carlo, with the values and "
      "draws they have in the whole of it");
  cmd->add_option("--jobs", run.jobs, "parallel runs of a sweep (default: every core)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--spec", run.specs,
                  "yield of a measurement over the runs: 'NAME LO HI' (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

CLI::App* add_run(CLI::App& app, RunCli& c) {
  RunOptions& run = c.run;
  CLI::App* cmd = app.add_subcommand("run", "simulate the netlist's .tran and write its waveforms");
  cmd->add_option("netlist", run.netlist, "SPICE-like netlist (.cir)")->required();
  cmd->add_option("-o,--output", run.output,
                  "waveform file: .csv, or .raw for a SPICE raw file (default: <netlist>.csv)");
  cmd->add_option("--format", run.format,
                  "file format, overriding the extension: csv, raw (binary) or rawascii")
      ->check(CLI::IsMember({"csv", "raw", "rawascii"}, CLI::ignore_case));
  cmd->add_option("--save", run.save,
                  "signals written to the file, comma separated, repeatable (default: all)")
      ->join(',');
  c.grid_opt =
      cmd->add_option("--grid", c.grid,
                      "resample the file on a uniform step H (source breakpoints kept exactly)")
          ->transform(kSpiceNumber);
  c.plot_opt = cmd->add_option("--plot", run.plot,
                               "also write a plot (.png, .svg or .pdf; default <netlist>.png)")
                   ->expected(0, 1);
  add_plot_layout(cmd, run.signals, run.panels, run.show,
                  "signals to plot, comma separated, e.g. v(out),i(d1) (default: the netlist's "
                  ".print/.save/.probe signals, else voltages and currents by kind and scale)");
  add_zoom(cmd, run.zoom);
  add_size(cmd, run.size);
  c.view_opt = cmd->add_option("--view", run.view,
                               "also write the waveform viewer, one offline HTML file (default "
                               "<netlist>.html)")
                   ->expected(0, 1);
  cmd->add_option("--meas", run.measures,
                  "a measurement (repeatable): 'avg v(out) from=1m to=2m', rms, min, max, pp, "
                  "integ; 'when v(out)=2.5 rise=2'; 'find v(a) at=1m'; 'trig v(in) val=2.5 "
                  "rise=1 targ v(out) val=2.5 fall=1'; on a .dc or .ac run along the sweep: "
                  "'when vdb(out)=-3'")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--meas-json", run.meas_json, "also write the measurements as JSON");
  c.theta_opt =
      cmd->add_option("--theta", c.theta, "theta of the scheme, in [0.5, 1] (overrides .options)")
          ->transform(kSpiceNumber);
  c.step_opt = cmd->add_option("--step", c.step, "time step in seconds (overrides .tran)")
                   ->transform(kSpiceNumber);
  cmd->add_option("--method", run.method,
                  "theta (time stepping) or event (event-driven; overrides .options method)");
  c.evrtol_opt = cmd->add_option("--evrtol", c.evrtol,
                                 "event-driven local error tolerance (overrides .options evrtol)")
                     ->transform(kSpiceNumber);
  cmd->add_option("--lcp-solver", run.lcp_solver,
                  "LCP method of pivoting steps: auto, lemke, murty, enum, pgs, newton "
                  "(overrides .options lcpsolver)");
  cmd->add_option("--dump-mlcp", run.dump_step,
                  "write the LCP of step K (1 = first) to <output stem>.stepK.lcp")
      ->check(CLI::Validator(
          [](std::string& text) {
            char* end = nullptr;
            const long k = std::strtol(text.c_str(), &end, 10);
            return end != text.c_str() && *end == '\0' && k >= 1
                       ? std::string()
                       : "expected a step number K >= 1, got " + text;
          },
          "K"));
  c.dump_time_opt = cmd->add_option("--dump-mlcp-time", c.dump_time,
                                    "write the LCP of the first step ending at or after time T")
                        ->transform(kSpiceNumber);
  c.max_rows_opt = cmd->add_option("--max-rows", c.max_rows,
                                   "the most rows the file may get (default 1e8; overrides "
                                   ".options maxrows): a larger run stops before it starts")
                       ->transform(kSpiceNumber);
  cmd->add_flag("-q,--quiet", run.quiet, "no run report");
  cmd->add_flag("--no-progress", c.no_progress, "no progress bar");
  add_sweep_options(cmd, run);
  cmd->add_flag("--mpi", c.mpi,
                "share the runs of a sweep or Monte Carlo among the ranks of an MPI job "
                "(mpirun -n K nsspice run ... --mpi; --jobs: runs at a time per rank, default 1)");
  cmd->add_option(
      "--analysis", run.analysis,
      "tran, op, dc, ac or pss (default: the netlist's .tran, else its .ac, .pss, .dc or .op)");
  return cmd;
}

CLI::App* add_plot(CLI::App& app, PlotOptions& plot) {
  CLI::App* pcmd = app.add_subcommand("plot", "plot waveforms from a .raw (ngspice's too) or .csv");
  pcmd->add_option("file", plot.input, "waveform file (.raw or .csv)")->required();
  pcmd->add_option("-o,--output", plot.output, ".png, .svg or .pdf (default: <file>.png)");
  pcmd->add_option("--title", plot.title, "plot title (default: the file's)");
  add_plot_layout(pcmd, plot.signals, plot.panels, plot.show,
                  "signals in one panel, comma separated (default: voltages, then currents)");
  add_window(pcmd, plot.t_from, plot.t_to);
  add_zoom(pcmd, plot.zoom);
  add_size(pcmd, plot.size);
  return pcmd;
}

CLI::App* add_view(CLI::App& app, nsspice::app::ViewOptions& view) {
  CLI::App* cmd = app.add_subcommand(
      "view", "write an interactive waveform viewer (one offline HTML file) of a .raw or .csv");
  cmd->add_option("file", view.input, "waveform file (.raw, ngspice's too, or .csv)")->required();
  cmd->add_option("-o,--output", view.output, "the HTML file (default: <file>.html)");
  cmd->add_option("--signals", view.signals, "signals shown, comma separated (default: all)");
  cmd->add_option("--title", view.title, "title (default: the file's)");
  cmd->add_option("--meas", view.measures, "a measurement on the file (repeatable; as for run)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  return cmd;
}

struct CompareCli {
  CompareOptions cmp;
  double theta = 0, step = 0, grid = 0, startup = 0;
  CLI::Option *theta_opt = nullptr, *step_opt = nullptr, *grid_opt = nullptr, *view_opt = nullptr,
              *startup_opt = nullptr;
  CompareOptions options() const {
    CompareOptions o = cmp;
    o.view_default = view_opt->count() > 0 && o.view.empty();
    if (*theta_opt) o.theta = theta;
    if (*step_opt) o.step = step;
    if (*grid_opt) o.grid = grid;
    if (*startup_opt && startup >= 0) o.startup = startup;  // -1: auto
    return o;
  }
};

CLI::App* add_compare(CLI::App& app, CompareCli& c) {
  CompareOptions& cmp = c.cmp;
  CLI::App* ccmd = app.add_subcommand(
      "compare",
      "run nsspice and ngspice (your SPICE models, or regularized devices) on the netlist and "
      "compare; or compare with a waveform file (--against) or nsspice's event mode (--methods)");
  ccmd->add_option("netlist", cmp.netlist, "SPICE-like netlist (.cir)")->required();
  ccmd->add_option("-d,--dir", cmp.out_dir,
                   "directory for the files written (default: <netlist>-compare)");
  ccmd->add_option("--models", cmp.models,
                   "what ngspice runs: 'user' (the netlist's own SPICE models; the default when "
                   "it has any) or 'regularized' (every device regularized)");
  ccmd->add_option("--against", cmp.against,
                   "compare with this waveform file instead of running ngspice (ngspice or "
                   "LTspice .raw, CSV with a time column)");
  ccmd->add_option("--map", cmp.map,
                   "a signal of --against FILE and its nsspice name, e.g. 'Ix(U1:1)=i(m1)' "
                   "(repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  ccmd->add_flag("--methods", cmp.methods,
                 "compare nsspice's theta-scheme with its event mode on the netlist");
  ccmd->add_flag("!--no-escalate", cmp.escalate,
                 "run ngspice once, without the escalation ladder (METHOD=GEAR, ITL4, RSHUNT, "
                 "TMAX, GMIN, tolerances)");
  c.startup_opt = ccmd->add_option_function<std::string>(
      "--startup",
      [&c](const std::string& text) {
        if (text == "auto") {
          c.startup = -1;
          return;
        }
        const auto v = nsspice::netlist::parse_spice_number(text);
        if (!v || !(*v >= 0))
          throw CLI::ValidationError("--startup", "expected seconds >= 0 or 'auto'");
        c.startup = *v;
      },
      "start-up left out of the errors [s], or 'auto' (default: the later of 1 % of "
      "the run and the first switching instant, at most 10 %)");
  ccmd->add_option("--diode-model", cmp.translate.diode_model,
                   "SPICE diode parameters replacing each ideal diode")
      ->capture_default_str();
  ccmd->add_option("--switch-model", cmp.translate.switch_model,
                   "SPICE switch RON/ROFF for ideal switches")
      ->capture_default_str();
  ccmd->add_option("--comparator-width", cmp.translate.comparator_width,
                   "input width [V] of the tanh replacing an ideal comparator")
      ->transform(kSpiceNumber)
      ->capture_default_str();
  ccmd->add_option("--spice-options", cmp.translate.options, "ngspice's .options line")
      ->capture_default_str();
  ccmd->add_option("--ngspice", cmp.ngspice, "the ngspice executable")->capture_default_str();
  ccmd->add_option("--timeout", cmp.timeout_seconds,
                   "seconds before an ngspice attempt is stopped (a timeout ends the ladder)")
      ->transform(kSpiceNumber)
      ->capture_default_str();
  ccmd->add_option("--stall", cmp.stall_seconds,
                   "seconds an ngspice attempt may go on without its time advancing by 1e-4 of "
                   "the run before it is stopped (and the ladder escalates)")
      ->transform(kSpiceNumber)
      ->capture_default_str();
  ccmd->add_option("--plot", cmp.plot, "overlay plot (default: <dir>/compare.png)");
  ccmd->add_option("--signals", cmp.signals,
                   "signals to plot (default: up to 3 node voltages and 2 diode currents)");
  ccmd->add_option("--json", cmp.json, "JSON report (default: <dir>/compare.json)");
  c.view_opt = ccmd->add_option("--view", cmp.view,
                                "also write both runs in the waveform viewer, one offline HTML "
                                "file (default <dir>/compare.html)")
                   ->expected(0, 1);
  ccmd->add_option("--meas", cmp.measures, "a measurement on both (repeatable; as for run)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  ccmd->add_flag("--sweep-ideality", cmp.sweep,
                 "also run ngspice with N = 1, 0.3, 0.1, 0.03, 0.01 (--sweep-n) and tabulate "
                 "the error");
  ccmd->add_option("--sweep-n", cmp.sweep_n, "the N values of --sweep-ideality")
      ->allow_extra_args(false)
      ->delimiter(',');
  ccmd->add_option("--switch-threshold", cmp.switch_threshold,
                   "switching = |i| crossing this fraction of the current's peak")
      ->transform(kSpiceNumber)
      ->capture_default_str();
  c.grid_opt = ccmd->add_option("--grid", c.grid,
                                "a uniform common time base of this step (default: both runs' "
                                "samples)")
                   ->transform(kSpiceNumber);
  c.theta_opt = ccmd->add_option("--theta", c.theta, "nsspice's theta")->transform(kSpiceNumber);
  c.step_opt = ccmd->add_option("--step", c.step, "nsspice's step (ngspice's TMAX)")
                   ->transform(kSpiceNumber);
  add_window(ccmd, cmp.t_from, cmp.t_to);
  ccmd->add_flag("-q,--quiet", cmp.quiet, "no report on stdout");
  return ccmd;
}

// -o, --format, --save, --plot, --show of the pss and ac commands.
void add_pss_files(CLI::App* cmd, RunOptions& run, const char* output_help, const char* plot_help) {
  cmd->add_option("-o,--output", run.output, output_help);
  cmd->add_option("--format", run.format, "csv, raw (binary) or rawascii")
      ->check(CLI::IsMember({"csv", "raw", "rawascii"}, CLI::ignore_case));
  cmd->add_option("--save", run.save, "signals written, comma separated, repeatable (default: all)")
      ->join(',');
  cmd->add_option("--plot", run.plot, plot_help);
  cmd->add_flag("--show", run.show, "also open the plot in a window");
}

CLI::App* add_pss(CLI::App& app, nsspice::app::PssCommandOptions& p) {
  CLI::App* cmd =
      app.add_subcommand("pss", "periodic steady state by shooting-Newton (docs/analyses.md)");
  cmd->add_option("netlist", p.run.netlist, "SPICE-like netlist (.cir)")->required();
  cmd->add_option("--period", p.period,
                  "the period T in seconds (the sources' period; with --trigger, a guess; "
                  "default: the netlist's .pss card)")
      ->transform(kSpiceNumber);
  cmd->add_option("--trigger", p.trigger,
                  "self-oscillating circuit: the period is an unknown and the orbit starts where "
                  "'v(node)=LEVEL rise|fall' (or v(a,b), i(L)) crosses; without =LEVEL the "
                  "middle of its range");
  cmd->add_option("--tstab", p.stabilization,
                  "with --trigger: warm-up time before crossings are sought (default: --warmup "
                  "guessed periods)")
      ->transform(kSpiceNumber);
  cmd->add_option("--periods", p.periods, "periods written (default 1)");
  cmd->add_option("--map", p.map,
                  "the period map: event (located switching, exact Jacobian; default) or theta "
                  "(fixed-step theta-scheme, finite-difference Jacobian)");
  cmd->add_option("--steps", p.steps,
                  "steps per period (default: event map 200; theta map T / .tran step, else "
                  "1000)");
  cmd->add_flag("--fd-jacobian", p.finite_difference,
                "event map: the finite-difference Jacobian instead of the exact one");
  cmd->add_option("--warmup", p.warmup, "transient periods before Newton (default 5)");
  cmd->add_option("--compare-transient", p.compare_transient,
                  "also run the plain transient up to N periods: periods and time to settle");
  add_pss_files(cmd, p.run, "waveform file: .csv or .raw",
                "also write a plot (.png, .svg or .pdf)");
  cmd->add_option("--meas", p.run.measures, "a measurement over the periods written (as for run)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("-q,--quiet", p.run.quiet, "no report");
  return cmd;
}

CLI::App* add_switching_ac(CLI::App& app, nsspice::app::SwitchingAcCommandOptions& s) {
  CLI::App* cmd = app.add_subcommand(
      "ac",
      "small-signal response of a switching circuit about its periodic steady state "
      "(docs/analyses.md)");
  nsspice::app::PssCommandOptions& p = s.pss;
  cmd->add_option("netlist", p.run.netlist, "SPICE-like netlist (.cir)")->required();
  cmd->add_option("--period", p.period, "the period T in seconds (the sources' period)")
      ->required()
      ->transform(kSpiceNumber);
  cmd->add_option("--inject", s.inject, "the perturbed source (a V or I source)")->required();
  cmd->add_option_function<std::vector<std::string>>(
         "--freq",
         [&s](const std::vector<std::string>& v) {
           const auto f1 = nsspice::netlist::parse_spice_number(v[0]);
           const auto f2 = nsspice::netlist::parse_spice_number(v[1]);
           const auto n = nsspice::netlist::parse_spice_number(v[2]);
           if (!f1 || !f2 || !n || *n != std::floor(*n))
             throw CLI::ValidationError("--freq", "expected FSTART FSTOP POINTS, e.g. 100 50k 50");
           s.fstart = *f1;
           s.fstop = *f2;
           s.points = static_cast<long>(*n);
         },
         "FSTART FSTOP POINTS: the frequencies (log spaced; --lin: linear)")
      ->expected(3)
      ->required();
  cmd->add_flag("--lin", s.linear, "linear frequency spacing");
  cmd->add_flag("--loop-gain", s.loop_gain,
                "also the loop gain -v(n-)/v(n+) of the injection source (in series with the "
                "loop, + toward the controller input)");
  cmd->add_option("--check-transient", s.check,
                  "compare K frequencies with a transient with a sine injected (brute force)");
  cmd->add_option("--check-amplitude", s.check_amplitude,
                  "the check's sine amplitude (default 1e-3 of the source's peak, at least 1e-3)")
      ->transform(kSpiceNumber);
  cmd->add_option("--map", p.map, "the period map of the PSS: event (required for the AC)");
  cmd->add_option("--steps", p.steps, "Radau steps per period (default 200)");
  cmd->add_option("--warmup", p.warmup, "transient periods before Newton (default 5)");
  add_pss_files(cmd, p.run, "file: .csv or .raw", "also write a Bode plot (.png, .svg or .pdf)");
  cmd->add_flag("-q,--quiet", p.run.quiet, "no report");
  return cmd;
}

// Parses the command line. nullopt: go on; else the exit code: 0 after --help/--version, 1
// (bad input, as documented) for every parse error, with CLI11's message and a hint.
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::RequiredError& e) {
    // CLI11 checks the required options before the arguments it does not know: name those
    // first (`nsspice ac deck.cir --perod 1u` said only "--period is required").
    const std::vector<std::string> extra = app.remaining(true);
    std::string unknown;
    for (const std::string& a : extra) unknown += (unknown.empty() ? "" : " ") + a;
    if (unknown.empty())
      fmt::print(stderr, "nsspice: error: {}\nRun 'nsspice --help' for the usage.\n", e.what());
    else
      fmt::print(stderr,
                 "nsspice: error: The following argument{} not expected: {} (and {})\nRun "
                 "'nsspice --help' for the usage.\n",
                 extra.size() == 1 ? " was" : "s were", unknown, e.what());
    return nsspice::app::kBadInput;
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "nsspice: error: {}\nRun 'nsspice --help' for the usage.\n", e.what());
    return nsspice::app::kBadInput;
  }
  return std::nullopt;
}

// The reports go to stdout: a write there that failed (stdout redirected to a full disk) is a
// lost output too: exit 3 (kOutputFailed) unless the command already failed.
int check_stdout(int code) {
  errno = 0;
  if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return code;
  fmt::print(stderr, "nsspice: error: cannot write the report to standard output: {}\n",
             std::strerror(errno != 0 ? errno : EIO));
  return code != 0 ? code : nsspice::app::kOutputFailed;
}

// `run`, with --mpi inside an MPI session: every rank runs this; a rank that stops before the
// sweep's first collective step joins it from here, so that no rank waits for it.
int run_main(const RunCli& run, int argc, char** argv) {
  RunOptions options = run.options();
  if (!run.mpi) return check_stdout(nsspice::app::run_command(options));
  std::string error;
  const auto session = nsspice::app::MpiSession::start(argc, argv, error);
  if (session == nullptr) {
    fmt::print(stderr, "nsspice: error: --mpi: {}\n", error);
    return nsspice::app::kBadInput;
  }
  options.mpi = session.get();
  const int code = check_stdout(nsspice::app::run_command(options));
  if (!session->joined()) session->join(false);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "nsspice: transient simulation of circuits with ideal diodes and switches,\n"
      "as mixed linear complementarity systems (no 'timestep too small').",
      "nsspice"};
  app.set_version_flag("--version", std::string("nsspice ") + NSSPICE_VERSION);
  app.require_subcommand(1);
  RunCli run;
  PlotOptions plot;
  CompareCli cmp;
  CLI::App* run_cmd = add_run(app, run);
  CLI::App* plot_cmd = add_plot(app, plot);
  nsspice::app::ViewOptions view;
  CLI::App* view_cmd = add_view(app, view);
  add_compare(app, cmp);
  nsspice::app::ModelsOptions models;
  CLI::App* models_cmd =
      app.add_subcommand("models", "list the device models that elements use and their PWL forms");
  models_cmd->add_option("netlist", models.netlist, "SPICE-like netlist (.cir)")->required();
  models_cmd->add_option("--plot", models.plot, "draw SPICE vs PWL characteristics (.png/.svg)");
  models_cmd->add_flag("--ideal", models.ideal, "as .options idealize: the ideal diodes");
  models_cmd->add_flag("--all", models.all,
                       "every .model card, also those no element uses (converted and checked)");
  run_cmd->add_flag("--ideal", run.run.ideal,
                    "every SPICE diode the ideal one (.options idealize)");
  nsspice::app::PssCommandOptions pss;
  CLI::App* pss_cmd = add_pss(app, pss);
  nsspice::app::SwitchingAcCommandOptions switching_ac;
  CLI::App* ac_cmd = add_switching_ac(app, switching_ac);
  if (const auto code = parse(app, argc, argv)) return *code;
  if (*pss_cmd) return check_stdout(nsspice::app::pss_command(pss));
  if (*ac_cmd) return check_stdout(nsspice::app::switching_ac_command(switching_ac));
  if (*models_cmd) return check_stdout(nsspice::app::models_command(models));
  if (*run_cmd) return run_main(run, argc, argv);
  if (*plot_cmd) return check_stdout(nsspice::app::plot_command(plot));
  if (*view_cmd) return check_stdout(nsspice::app::view_command(view));
  return check_stdout(nsspice::app::compare_command(cmp.options()));
}
