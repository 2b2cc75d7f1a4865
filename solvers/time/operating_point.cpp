#include "solvers/time/operating_point.hpp"

namespace nsspice::solvers {

OperatingPoint solve_operating_point(const Mlcs& mlcs, double t) {
  OperatingPoint op;
  SparseMatrix g = mlcs.G;
  g.makeCompressed();
  KluSymbolic symbolic;
  symbolic.analyze(mode_matrix_pattern(g, mlcs.B, mlcs.C, mlcs.D, mlcs.C_off));
  ModeMlcp solver(g, mlcs.B, mlcs.C, mlcs.D, mlcs.C_off, mlcs.forced, symbolic, 8);
  Eigen::VectorXd s, b;
  mlcs.eval_b(t, s, b);
  op.mode.assign(mlcs.m, 0);
  // Switch states: from their initial flags, then from the controls at the operating point,
  // until they agree (a few rounds at most; hysteresis makes it settle).
  std::vector<char> on;
  for (const auto& sw : mlcs.switches) on.push_back(sw.initially_on);
  for (int round = 0; round < 10; ++round) {
    for (size_t k = 0; k < on.size(); ++k) op.mode[mlcs.switches[k].pair] = on[k];
    op.outcome = solver.solve(b, mlcs.d, op.mode, op.x, op.lambda, op.w);
    if (op.outcome.status != LcpStatus::kSolved && op.outcome.status != LcpStatus::kInaccurate)
      break;
    bool changed = false;
    for (size_t k = 0; k < on.size(); ++k) {
      const auto& sw = mlcs.switches[k];
      const double v = sw.c.dot(op.x);
      const bool next = sw.next_state(v, on[k]);
      changed = changed || next != on[k];
      on[k] = next;
    }
    if (!changed) break;
  }
  return op;
}

}  // namespace nsspice::solvers
