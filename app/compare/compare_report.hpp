#pragma once
// What `compare` found, as text (the report), JSON, and plots (overlay + difference panels; the
// convergence plot of --sweep-ideality).
#include <optional>
#include <string>
#include <vector>

#include "app/compare/compare_metrics.hpp"
#include "app/io/waveforms.hpp"
#include "app/measure/measure.hpp"

namespace nsspice::app {

struct PeerRun {
  double wall_seconds = 0;
  long points = 0;
  bool failed = false;
  double t_end = 0;  // last time point
  std::string failure;
  std::vector<std::string> problems;
};

struct SweepRow {
  double n = 0;             // the diode emission coefficient
  std::string diode_model;  // the full model line
  PeerRun ngspice;
  std::vector<SignalDiff> diffs;
};

struct CompareResult {
  std::string netlist, title, diode_model, switch_model, options;
  PeerRun nsspice, ngspice;
  double h = 0, theta = 0;
  std::vector<double> grid;
  std::vector<SignalDiff> diffs;
  std::vector<MeasureResult> meas_nsspice, meas_ngspice;
  std::vector<SweepRow> sweep;
  std::vector<std::string> notes;
  std::vector<std::string> files;
};

// "12.3 ms", "4.56 mV", "-1.2 A": three significant digits and an SI prefix.
std::string eng(double value, const std::string& unit);

std::string format_compare(const CompareResult& r);
std::string compare_json(const CompareResult& r);

// Overlay panels (nsspice solid, ngspice dashed; voltages and currents apart) and difference
// panels (ngspice − nsspice). Returns "" or why it failed.
std::string write_compare_plot(const CompareResult& r, const Waveforms& ns, const Waveforms& ng,
                               const std::vector<std::string>& signals, const std::string& path,
                               std::optional<double> t_from = {}, std::optional<double> t_to = {});
// Max |error| against N (log-log), one line per signal.
std::string write_sweep_plot(const CompareResult& r, const std::vector<std::string>& signals,
                             const std::string& path);

}  // namespace nsspice::app
