#include "solvers/time/operating_point.hpp"

namespace nsspice::solvers {
namespace {

SparseMatrix compressed(SparseMatrix g) {
  g.makeCompressed();
  return g;
}

KluSymbolic analyzed(const Mlcs& m, const SparseMatrix& g) {
  KluSymbolic symbolic;
  symbolic.analyze(mode_matrix_pattern(g, m.B, m.C, m.D, m.C_off));
  return symbolic;
}

}  // namespace

StaticMlcp::StaticMlcp(const Mlcs& mlcs)
    : mlcs_(mlcs),
      g_(compressed(mlcs.G)),
      symbolic_(analyzed(mlcs, g_)),
      solver_(g_, mlcs.B, mlcs.C, mlcs.D, mlcs.C_off, mlcs.forced, symbolic_, 8) {
  mode_.assign(static_cast<size_t>(mlcs.m), 0);
  for (const auto& sw : mlcs.switches) on_.push_back(sw.initially_on);
}

OperatingPoint StaticMlcp::solve(const Eigen::VectorXd& b) {
  OperatingPoint op;
  op.mode = mode_;
  // Switch states: from the last ones, then from the controls at the operating point, until
  // they agree (a few rounds at most; hysteresis makes it settle).
  for (int round = 0; round < 10; ++round) {
    for (size_t k = 0; k < on_.size(); ++k) op.mode[mlcs_.switches[k].pair] = on_[k];
    op.outcome = solver_.solve(b, mlcs_.d, op.mode, op.x, op.lambda, op.w);
    if (op.outcome.status != LcpStatus::kSolved && op.outcome.status != LcpStatus::kInaccurate)
      return op;
    bool changed = false;
    for (size_t k = 0; k < on_.size(); ++k) {
      const auto& sw = mlcs_.switches[k];
      const bool next = sw.next_state(sw.c.dot(op.x), on_[k]);
      changed = changed || next != on_[k];
      on_[k] = next;
    }
    if (!changed) break;
  }
  mode_ = op.mode;
  return op;
}

OperatingPoint solve_operating_point(const Mlcs& mlcs, double t) {
  StaticMlcp solver(mlcs);
  Eigen::VectorXd s, b;
  mlcs.eval_b(t, s, b);
  return solver.solve(b);
}

}  // namespace nsspice::solvers
