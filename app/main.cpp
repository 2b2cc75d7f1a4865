// nsspice: command-line entry point. Thin: the work is in the libraries and run_command.
#include <CLI/CLI.hpp>

#include "app/run_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "nsspice: transient simulation of circuits with ideal diodes and switches,\n"
      "as mixed linear complementarity systems (no 'timestep too small')."};
  app.set_version_flag("--version", std::string("nsspice ") + NSSPICE_VERSION);
  app.require_subcommand(1);

  nsspice::app::RunOptions run;
  double theta = 0, step = 0;
  CLI::App* cmd = app.add_subcommand("run", "simulate the netlist's .tran and write its waveforms");
  cmd->add_option("netlist", run.netlist, "SPICE-like netlist (.cir)")->required();
  cmd->add_option("-o,--output", run.output, "CSV file to write (default: <netlist>.csv)");
  cmd->add_option("--plot", run.plot, "also write a plot (.png, .svg or .pdf)");
  cmd->add_option(
      "--signals", run.signals,
      "signals to plot, comma separated, e.g. v(out),i(d1) (default: all node voltages)");
  auto* theta_opt =
      cmd->add_option("--theta", theta, "theta of the scheme, in [0.5, 1] (overrides .options)");
  auto* step_opt = cmd->add_option("--step", step, "time step in seconds (overrides .tran)");
  cmd->add_flag("-q,--quiet", run.quiet, "no run report");
  bool no_progress = false;
  cmd->add_flag("--no-progress", no_progress, "no progress bar");

  CLI11_PARSE(app, argc, argv);
  if (*theta_opt) run.theta = theta;
  if (*step_opt) run.step = step;
  run.progress = !no_progress;
  return nsspice::app::run_command(run);
}
