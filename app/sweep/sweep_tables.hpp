#pragma once
// The tables of a sweep, from its runs' records (run_record.hpp):
//   * <stem>.meas.csv: one row per run: run (from 1), trial (Monte Carlo), each dimension's
//     value, each value a Monte Carlo run drew (RunRecord::drawn: names in order of first
//     appearance; empty when the run failed before drawing it), status (ok, stopped, failed,
//     interrupted, not run), each measurement (empty when the run has no value); numbers in their
//     shortest exact form;
//   * the summary: per measurement, over the runs that completed with a value, the count n,
//     mean x̄ = Σx/n, standard deviation s = √(Σ(x − x̄)²/(n − 1)), min, max, and with a spec
//     'NAME LO HI' the yield: the share of ALL runs with LO ≤ x ≤ HI (a failed run is out);
//     then, for a measurement without a value in some completed runs, how many and the first
//     one's reason ("early failed in 3 of the 3 runs that completed: from=0.001 s is before ...");
//   * histograms: k = clamp(⌈2·n^(1/3)⌉, 5, 50) equal bins (Rice's rule) over [min, max] of a
//     measurement's values; a value equal to max falls in the last bin.
#include <optional>
#include <string>
#include <vector>

#include "app/sweep/run_record.hpp"
#include "app/sweep/sweep_points.hpp"

namespace nsspice::app {

// --spec 'NAME LO HI'.
struct Spec {
  std::string name;  // lower case
  double lo = 0, hi = 0;
};
// nullopt with `error` naming the option when the text is not 'NAME LO HI' with LO ≤ HI.
std::optional<Spec> parse_spec(const std::string& text, std::string& error);

// "ok", "stopped", "failed", "interrupted" or "not run".
const char* run_status(const RunRecord& record);

// The measurement names over all records, in order of first appearance.
std::vector<std::string> measure_names(const std::vector<RunRecord>& records);

// The names of the drawn values over all records, in order of first appearance.
std::vector<std::string> drawn_names(const std::vector<RunRecord>& records);

// The values of measurement `name` of the runs that completed (code 0) with a value.
std::vector<double> measure_values(const std::vector<RunRecord>& records, const std::string& name);

// The whole .meas.csv text.
std::string meas_csv(const std::vector<SweepDimension>& dims, const std::vector<SweepRun>& runs,
                     const std::vector<RunRecord>& records, bool monte_carlo);

// The summary table (header and one line per measurement); "" without measurements.
std::string summary_table(const std::vector<RunRecord>& records, const std::vector<Spec>& specs);

// The dimensions whose values changed nothing: for each dimension, the runs that completed are
// grouped by trial and the other dimensions' values; when some group has two values of it and in
// every group the runs' points are equal bit for bit (RunRecord::rows_hash), a message naming
// the dimension, two of its runs and their values. (A source's DC value under SIN(...), a
// parameter nothing uses, a model parameter the model ignores, a temperature nothing depends on.)
std::vector<std::string> no_effect_warnings(const std::vector<SweepDimension>& dims,
                                            const std::vector<SweepRun>& runs,
                                            const std::vector<RunRecord>& records);

struct Histogram {
  std::vector<double> edges;  // k + 1 ascending bin edges
  std::vector<long> counts;   // k counts
};
// nullopt for fewer than two distinct values (nothing to bin).
std::optional<Histogram> histogram(const std::vector<double>& values);

}  // namespace nsspice::app
