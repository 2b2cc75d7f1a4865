#pragma once
// The parts of PeriodLinearization (pss_linearize.hpp) shared by pss_linearize.cpp (the
// propagation) and pss_orbit.cpp (the recorded orbit's structure): the phases, the events, the
// per-mode matrices and their factors.
#include <Eigen/QR>
#include <Eigen/SparseCore>
#include <map>
#include <memory>
#include <vector>

#include "circuit/src/pss_linearize.hpp"
#include "solvers/linear/klu_lu.hpp"
#include "solvers/linear/triplets.hpp"
#include "solvers/time/radau_iia.hpp"

namespace nsspice::circuit::detail {

using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

// The pair rows K_σ, times s, at row offset n: (C_j, D_j) for a conducting pair or a closed
// switch, (C_off_j, e_j) otherwise (a free pair's C_off_j is 0).
inline void append_pair_rows(solvers::Triplets& t, const solvers::Mlcs& m,
                             const std::vector<char>& mode, double s) {
  const auto on = [&](Eigen::Index row) { return mode[static_cast<size_t>(row)] != 0; };
  for (int col = 0; col < m.C.outerSize(); ++col)
    for (solvers::SparseMatrix::InnerIterator it(m.C, col); it; ++it)
      if (on(it.row())) t.emplace_back(m.n + it.row(), col, s * it.value());
  for (int col = 0; col < m.D.outerSize(); ++col)
    for (solvers::SparseMatrix::InnerIterator it(m.D, col); it; ++it)
      if (on(it.row())) t.emplace_back(m.n + it.row(), m.n + col, s * it.value());
  for (int col = 0; col < m.C_off.outerSize(); ++col)
    for (solvers::SparseMatrix::InnerIterator it(m.C_off, col); it; ++it)
      if (!on(it.row())) t.emplace_back(m.n + it.row(), col, s * it.value());
  for (int j = 0; j < m.m; ++j)
    if (!on(j)) t.emplace_back(m.n + j, m.n + j, s);
}

inline solvers::SparseMatrix from_triplets(const solvers::Triplets& t, int size) {
  solvers::SparseMatrix a(size, size);
  a.setFromTriplets(t.begin(), t.end());
  a.makeCompressed();
  return a;
}

// The union pattern of every K_δ(σ) = [G + E/δ, −B; K_σ] (explicit zeros).
inline solvers::Triplets projection_pattern(const solvers::Mlcs& m) {
  solvers::Triplets t;
  solvers::append_scaled(t, m.G, 0, 0, 0.0);
  solvers::append_scaled(t, m.E, 0, 0, 0.0);
  solvers::append_scaled(t, m.B, 0, m.n, 0.0);
  solvers::append_scaled(t, m.C, m.n, 0, 0.0);
  solvers::append_scaled(t, m.D, m.n, m.n, 0.0);
  solvers::append_scaled(t, m.C_off, m.n, 0, 0.0);
  for (int j = 0; j < m.m; ++j) t.emplace_back(m.n + j, m.n + j, 0.0);
  return t;
}

struct PeriodLinearization::Segment {
  double t0 = 0, t1 = 0;
  int mode = 0;
  std::vector<double> cuts;  // step boundaries t0 < ... < t1 (breakpoints included)
  Eigen::VectorXd zdot_end;  // ż at t1⁻
};

struct PeriodLinearization::Event {
  double t = 0;               // the instant (the pre-event point)
  double t_post = 0;          // the selection's end, where the next phase starts
  int post_mode = 0;          // the mode after the selection(s)
  std::vector<int> steps;     // the mode of each backward-Euler step of the selection(s)
  int guard = -1;             // the pair whose guard set the instant (−1: a time event)
  Eigen::VectorXd gamma;      // ∇g over z
  double rate = 0;            // γᵀ ż⁻
  Eigen::VectorXd qdot_pre;   // q̇⁻ (a state event)
  Eigen::VectorXd xdot_post;  // ẋ⁺ on the differential unknowns: (E ẋ⁺)_D = q̇⁺_D
  std::vector<Eigen::VectorXd> bdot;  // ḃ at each backward-Euler step
  Eigen::VectorXd z_jump;             // z⁺ − z⁻
};

struct PeriodLinearization::Average {
  double omega = 0;
  Eigen::VectorXcd sum;
};

struct PeriodLinearization::Modes {
  std::map<std::vector<char>, int> ids;
  std::vector<std::vector<char>> list;
  std::vector<solvers::SparseMatrix> j;                         // J_σ = [−G, B; −K_σ]
  std::vector<std::unique_ptr<solvers::KluFactor>> projection;  // K_δ(σ), factored on first use
  solvers::Triplets projection_zeros;
  solvers::KluSymbolic projection_symbolic;
  std::unique_ptr<solvers::RadauIIA> radau;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> e_dd;  // E on the differential block
  RowMatrix c_rows, d_rows;

  int id(const solvers::Mlcs& m, const std::vector<char>& mode) {
    const auto [it, inserted] = ids.emplace(mode, static_cast<int>(list.size()));
    if (!inserted) return it->second;
    list.push_back(mode);
    solvers::Triplets t;
    solvers::append_scaled(t, m.G, 0, 0, -1.0);
    solvers::append_scaled(t, m.B, 0, m.n, 1.0);
    append_pair_rows(t, m, mode, -1.0);
    j.push_back(from_triplets(t, m.n + m.m));
    projection.emplace_back();
    return it->second;
  }

  const solvers::KluFactor* factor(const solvers::Mlcs& m, int mode, double delta) {
    auto& f = projection[static_cast<size_t>(mode)];
    if (f) return f.get();
    solvers::Triplets t = projection_zeros;
    solvers::append_scaled(t, m.G, 0, 0, 1.0);
    solvers::append_scaled(t, m.E, 0, 0, 1.0 / delta);
    solvers::append_scaled(t, m.B, 0, m.n, -1.0);
    append_pair_rows(t, m, list[static_cast<size_t>(mode)], 1.0);
    f = std::make_unique<solvers::KluFactor>();
    if (f->factor(projection_symbolic, from_triplets(t, m.n + m.m)) != solvers::LuStatus::kOk) {
      f.reset();
      return nullptr;
    }
    return f.get();
  }
};

}  // namespace nsspice::circuit::detail
