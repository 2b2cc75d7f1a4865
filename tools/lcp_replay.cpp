// lcp_replay: solve a stored complementarity problem (docs/solvers.md §5) with one LCP solver
// or all of them, and print status, pivots/iterations, the independent residual
// max_j |min(z_j, w_j)| (w = M z + q recomputed) and the wall time.
//
//   lcp_replay DUMP [--solver lemke|murty|enum|pgs|newton|auto|all] [--repeat N] [--print-z]
//
// Exit status: 0 when the dump was read (and, for a single solver, it succeeded), 1 when a
// single requested solver did not succeed, 2 on a usage error or an unreadable dump.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "solvers/lcp/lcp_dump.hpp"
#include "solvers/lcp/policy.hpp"

namespace {

using nsspice::solvers::LcpSolverKind;

struct Row {
  std::string name;
  nsspice::solvers::LcpResult result;
  double seconds = 0;
  std::string note;
};

Row run(LcpSolverKind kind, const nsspice::solvers::LcpDump& dump, int repeat) {
  namespace s = nsspice::solvers;
  s::LcpPolicy policy;
  policy.force = kind;
  Row row{std::string(s::to_string(kind)), {}, 0, {}};
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < repeat; ++k) {
    if (kind == LcpSolverKind::kAuto) {
      const s::PolicyResult pr = s::solve_lcp(dump.M, dump.q, policy);
      row.result = pr;
      row.note = fmt::format("method {}; tried", s::to_string(pr.method));
      for (const auto& a : pr.attempts) {
        row.note += fmt::format(" {}:{}", s::to_string(a.kind), s::to_string(a.status));
      }
    } else {
      row.result = s::run_lcp_solver(kind, dump.M, dump.q, policy);
    }
  }
  const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
  row.seconds = dt.count() / repeat;
  if (row.note.empty()) row.note = row.result.message;
  return row;
}

void print_header(const std::string& path, const nsspice::solvers::LcpDump& dump) {
  const auto s = nsspice::solvers::analyze_structure(dump.M);
  fmt::print("dump {}\n", path);
  for (const auto& [key, value] : dump.provenance) fmt::print("  {} = {}\n", key, value);
  fmt::print("  n = {}{}; symmetric {}, PSD {}, PD {}, positive diagonal {}\n", dump.q.size(),
             dump.lcp_from_blocks ? " (M, q formed from the MLCP blocks)" : "",
             s.symmetric ? "yes" : "no", s.psd ? "yes" : "no", s.pd ? "yes" : "no",
             s.positive_diagonal ? "yes" : "no");
  fmt::print("{:<8} {:<18} {:>8} {:>8} {:>11} {:>11}  {}\n", "solver", "status", "pivots", "iters",
             "residual", "time [ms]", "note");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Replay an nsspice LCP/MLCP dump with the LCP solvers"};
  std::string path, solver = "all";
  int repeat = 1;
  bool print_z = false;
  app.add_option("dump", path, "problem dump (# nsspice-mlcp 1)")->required();
  app.add_option("--solver", solver, "lemke, murty, enum, pgs, newton, auto or all");
  app.add_option("--repeat", repeat, "solve N times, report the mean time")
      ->check(CLI::PositiveNumber);
  app.add_flag("--print-z", print_z, "print the solution z of each solver");
  CLI11_PARSE(app, argc, argv);

  std::vector<LcpSolverKind> kinds;
  if (solver == "all") {
    kinds = {LcpSolverKind::kLemke, LcpSolverKind::kMurty,  LcpSolverKind::kEnumeration,
             LcpSolverKind::kPgs,   LcpSolverKind::kNewton, LcpSolverKind::kAuto};
  } else if (const auto kind = nsspice::solvers::parse_lcp_solver(solver)) {
    kinds = {*kind};
  } else {
    fmt::print(stderr,
               "lcp_replay: unknown solver '{}' (lemke, murty, enum, pgs, newton, auto, all)\n",
               solver);
    return 2;
  }
  std::string error;
  const auto dump = nsspice::solvers::read_lcp_dump(path, &error);
  if (!dump) {
    fmt::print(stderr, "lcp_replay: {}\n", error);
    return 2;
  }
  print_header(path, *dump);
  bool ok = true;
  for (const LcpSolverKind kind : kinds) {
    const Row row = run(kind, *dump, repeat);
    fmt::print("{:<8} {:<18} {:>8} {:>8} {:>11.3e} {:>11.3f}  {}\n", row.name,
               nsspice::solvers::to_string(row.result.status), row.result.pivots,
               row.result.iterations, row.result.residual, 1e3 * row.seconds, row.note);
    if (print_z) {
      for (Eigen::Index j = 0; j < row.result.z.size(); ++j) {
        fmt::print("  z[{}] = {}\n", j, row.result.z[j]);
      }
    }
    ok = ok && row.result.status == nsspice::solvers::LcpStatus::kSolved;
  }
  return kinds.size() == 1 && !ok ? 1 : 0;
}
