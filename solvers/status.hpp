#pragma once
// One status vocabulary for every numerical computation of nsspice: the LCP/MLCP solvers, the
// sparse factorization (LuStatus maps onto it), both transient methods and the driver.
//
// In the spirit of Ceres's Solver::Summary and OSQP's separate status and error codes:
//   * Status: what a computation on valid input ended with: solved / inaccurate /
//     no_convergence / numerical_failure / infeasible. The caller reacts to it.
//   * kInvalidInput: not an outcome but the separate error: the input (options, sizes, data)
//     was rejected before any computation, with a message saying which field and why.
//   * A broken invariant (a bug) is neither: NSSPICE_CHECK (solvers/check.hpp) stops with
//     file:line in every build.
// Options structs share one signature: `std::string validate() const`, empty when valid, else
// the message naming the field and its allowed range.
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace nsspice::solvers {

enum class Status {
  kSolved,            // the answer meets its acceptance test (residual, error estimate)
  kInaccurate,        // an answer exists but misses its acceptance test
  kNoConvergence,     // an iteration / pivot / step limit was reached
  kNumericalFailure,  // NaN/Inf, a singular matrix, a tiny pivot
  kInfeasible,        // proof (or strong evidence, said where) that no solution exists
  kInvalidInput,      // the separate error: input rejected before computing (see message)
};

// "solved", "inaccurate", "no convergence", "numerical failure", "infeasible", "invalid input".
std::string_view to_string(Status status);

// True for kSolved and kInaccurate: there is an answer to use (with care when inaccurate).
constexpr bool has_answer(Status status) {
  return status == Status::kSolved || status == Status::kInaccurate;
}

// What a computation reports to its caller (a run summary, as Ceres's Summary).
struct Summary {
  Status status = Status::kNumericalFailure;
  std::string message;               // empty when solved; else what happened
  std::vector<std::string> devices;  // the devices involved, when the caller knows them
  double time = std::numeric_limits<double>::quiet_NaN();  // simulated time [s], NaN if none

  bool solved() const { return status == Status::kSolved; }
  // "numerical failure at t = 1.5e-3 s (D1, D2): singular matrix"
  std::string describe() const;
};

// The end of a run-level computation (a transient, an analysis, a periodic steady state): a
// Summary that starts solved; ok() while there is an answer; fail() ends it with a failure.
struct RunOutcome {
  Summary summary{Status::kSolved, {}, {}, std::numeric_limits<double>::quiet_NaN()};

  bool ok() const { return has_answer(summary.status); }
  void fail(Status status, std::string message, double t = std::numeric_limits<double>::quiet_NaN(),
            std::vector<std::string> devices = {});
};

// A Summary of invalid input: status kInvalidInput with the message.
Summary invalid_input(std::string message);

// The message of a validate() for a field out of its range:
//   "<field> = <value>: must be <allowed>"   e.g. "omega = 2: must be in (0, 2)".
std::string out_of_range(std::string_view field, double value, std::string_view allowed);

}  // namespace nsspice::solvers
