#pragma once
// The runs of a sweep and of a Monte Carlo analysis.
//
// A dimension is one .step card or one --step-param option: a named target (a .param, a V/I
// source's DC value, or a model parameter) and its values:
//   list v1 v2 ...                     in the order written
//   lin start stop incr                start + k·incr, k = 0, 1, ... while not past stop (stop
//                                      included within 1e-9 of incr); incr ≠ 0 and pointing
//                                      from start to stop
//   dec|oct start stop n               start·10^(k/n) | start·2^(k/n) up to stop (same
//                                      tolerance); start, stop > 0, n ≥ 1
// Up to three dimensions nest, the first outermost. The runs are the Cartesian product, each
// repeated `runs` times for Monte Carlo (run index = point index · runs + trial); at most
// kMaxRuns runs in all.
//
// A Monte Carlo run's draws come from a generator seeded by mix(seed, trial) alone (SplitMix64
// of both), so run k draws the same values whatever the other runs, how many runs there are,
// which of them run (--run), the number of threads or the order of completion; trial t draws
// the same values at every sweep point (common random numbers: the points differ only by
// their swept values), and adding a sweep point changes no other run's draws.
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "netlist/ast.hpp"

namespace nsspice::app {

inline constexpr std::size_t kMaxRuns = 1'000'000;
inline constexpr std::size_t kMaxDimensions = 3;

struct SweepDimension {
  netlist::StepCard::Target target = netlist::StepCard::Target::kParam;
  std::string name;         // lower case: parameter, source or model
  std::string model_param;  // kModel: the parameter
  std::string label;        // for tables and messages: "r", "v1", "dmod(is)"
  std::vector<double> values;
};

// The points of one .step card; nullopt with `error` when the range is empty or unbounded.
std::optional<SweepDimension> dimension_of(const netlist::StepCard& card, std::string& error);
// --step-param NAME=v1,v2,... (SPICE numbers); nullopt with `error` naming the option.
std::optional<SweepDimension> dimension_of(const std::string& option, std::string& error);

// --run K or --run A:B (1 ≤ A ≤ B, whole numbers): the first and last run, from 1; nullopt
// with `error` quoting the text (the caller names the option).
std::optional<std::pair<std::size_t, std::size_t>> parse_run_range(const std::string& text,
                                                                   std::string& error);

struct SweepRun {
  std::size_t index = 0;  // 0-based run index
  std::size_t trial = 0;  // Monte Carlo trial of the point (0 without Monte Carlo)
  // The value of each dimension at this run, in dimension order.
  std::vector<double> values;
};

// The runs of `dims` × `trials` (trials ≥ 1); nullopt with `error` beyond the limits.
std::optional<std::vector<SweepRun>> sweep_runs(const std::vector<SweepDimension>& dims,
                                                std::size_t trials, std::string& error);

// A generator for Monte Carlo trial `trial` (SweepRun::trial) with `seed`, and the draws it
// gives: a standard normal value (normal = true) or a uniform one in [−1, 1].
class RunRandom {
 public:
  RunRandom(std::uint64_t seed, std::size_t trial);
  double operator()(bool normal);

 private:
  std::mt19937_64 engine_;
  std::normal_distribution<double> normal_{0.0, 1.0};
  std::uniform_real_distribution<double> uniform_{-1.0, 1.0};
};

}  // namespace nsspice::app
