#include "solvers/time/operating_point.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

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
  restart();
}

void StaticMlcp::restart() {
  mode_.assign(static_cast<size_t>(mlcs_.m), 0);
  on_.clear();
  for (const auto& sw : mlcs_.switches) on_.push_back(sw.initially_on);
}

void StaticMlcp::enumerate_modes(const Eigen::VectorXd& b, OperatingPoint& op) {
  std::vector<int> free;
  for (int j = 0; j < mlcs_.m; ++j)
    if (mlcs_.forced.empty() || !mlcs_.forced[static_cast<size_t>(j)]) free.push_back(j);
  if (free.empty() || free.size() > static_cast<size_t>(kEnumerateMaxPairs)) return;
  // Gray code from the mode pivoting ended in: each next mode flips one pair.
  std::vector<char> trial = op.mode;
  MlcpOutcome outcome;
  Eigen::VectorXd x, lambda, w;
  const unsigned long count = 1UL << free.size();
  for (unsigned long k = 1; k < count; ++k) {
    trial[static_cast<size_t>(free[static_cast<size_t>(std::countr_zero(k))])] ^= 1;
    if (!solver_.solve_if_mode_holds(b, mlcs_.d, trial, x, lambda, w, outcome)) continue;
    op.mode = trial;
    op.x = std::move(x);
    op.lambda = std::move(lambda);
    op.w = std::move(w);
    op.outcome = outcome;
    return;
  }
  op.outcome.message += fmt::format(" (all {} modes of the {} free pair{} tried)", count,
                                    free.size(), free.size() == 1 ? "" : "s");
}

OperatingPoint StaticMlcp::solve(const Eigen::VectorXd& b) {
  OperatingPoint op;
  op.mode = mode_;
  // Switch states: from the last ones, then from the controls at the operating point, until
  // they agree (a few rounds at most; hysteresis makes it settle). A switch whose control
  // contradicts each of its states (a relaxation oscillator) is still flipping after the last
  // round: the answer keeps the state it was solved with, and says so (unsettled).
  constexpr int kRounds = 10;
  std::vector<double> control_on(on_.size(), 0.0), control_off(on_.size(), 0.0);
  bool changed = false;
  for (int round = 0; round < kRounds; ++round) {
    for (size_t k = 0; k < on_.size(); ++k) op.mode[mlcs_.switches[k].pair] = on_[k];
    op.outcome = solver_.solve(b, mlcs_.d, op.mode, op.x, op.lambda, op.w);
    if (!has_answer(op.outcome.status) && !op.outcome.pairs.empty()) enumerate_modes(b, op);
    if (op.outcome.status != LcpStatus::kSolved && op.outcome.status != LcpStatus::kInaccurate)
      return op;
    changed = false;
    for (size_t k = 0; k < on_.size(); ++k) {
      const auto& sw = mlcs_.switches[k];
      const double control = sw.c.dot(op.x);
      (on_[k] ? control_on : control_off)[k] = control;
      const bool next = sw.next_state(control, on_[k]);
      changed = changed || next != on_[k];
      on_[k] = next;
    }
    if (!changed) break;
  }
  if (changed)
    for (size_t k = 0; k < on_.size(); ++k) {
      const bool state = op.mode[mlcs_.switches[k].pair] != 0;
      if (on_[k] != state)
        op.unsettled.push_back({static_cast<int>(k), state, control_on[k], control_off[k]});
    }
  mode_ = op.mode;
  return op;
}

bool StaticMlcp::ramp(const Eigen::VectorXd& b0, const Eigen::VectorXd& b, OperatingPoint& op) {
  // α = done/total in whole units of the finest increment, so that a ramp that never halves
  // takes exactly the fractions k/K.
  constexpr long kUnit = 1L << kSourceHalvings;
  constexpr long kTotal = kSourceSteps * kUnit;
  long done = 0, step = kUnit;
  int solves = 0;
  while (done < kTotal) {
    const long next = std::min(kTotal, done + step);
    op = solve(b0 + (static_cast<double>(next) / static_cast<double>(kTotal)) * (b - b0));
    ++solves;
    if (has_answer(op.outcome.status)) {  // (a failed solve leaves the last answer's mode)
      done = next;
      step = std::min(kUnit, 2 * step);
    } else if (step > 1) {
      step /= 2;
    } else {
      return false;
    }
  }
  op.source_steps = solves;
  return true;
}

OperatingPoint StaticMlcp::solve_stepping(const Eigen::VectorXd& b, const Eigen::VectorXd* from) {
  OperatingPoint direct = solve(b);
  if (has_answer(direct.outcome.status)) return direct;
  OperatingPoint step;
  if (from != nullptr && ramp(*from, b, step)) return step;
  restart();  // from where the direct solve started
  if (ramp(Eigen::VectorXd::Zero(b.size()), b, step)) return step;
  restart();
  if (gmin_stepping(b, step)) return step;
  restart();
  return direct;
}

bool StaticMlcp::gmin_stepping(const Eigen::VectorXd& b, OperatingPoint& op) {
  constexpr double kFirst = 1e-3, kLast = 1e-12;
  SparseMatrix eye(mlcs_.n, mlcs_.n);
  eye.setIdentity();
  std::vector<char> mode = mode_, on = on_;
  int steps = 0;
  for (double g = kFirst; g >= 0.5 * kLast; g *= 0.1) {
    Mlcs stepped = mlcs_;
    stepped.G = mlcs_.G + g * eye;
    StaticMlcp solver(stepped);
    solver.mode_ = mode;
    solver.on_ = on;
    if (!has_answer(solver.solve(b).outcome.status)) return false;
    mode = solver.mode_;
    on = solver.on_;
    ++steps;
  }
  mode_ = mode;
  on_ = on;
  op = solve(b);
  op.gmin_steps = steps;
  return has_answer(op.outcome.status);
}

OperatingPoint solve_operating_point(const Mlcs& mlcs, double t) {
  StaticMlcp solver(mlcs);
  Eigen::VectorXd s, b;
  mlcs.eval_b(t, s, b);
  return solver.solve_stepping(b);
}

}  // namespace nsspice::solvers
