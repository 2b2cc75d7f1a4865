#pragma once
// Three-stage Radau IIA collocation for a linear time-invariant DAE (docs/event-driven.md §2).
//
//   M z' = J z + f(t),        M, J sparse N × N, M possibly singular (index ≤ 2 in practice)
//
// One step of size h from (t0, z0) solves for the stage values z_i ≈ z(t0 + c_i h),
//
//   M (z_i − z0) = h Σ_j a_ij (J z_j + f(t0 + c_j h)),     i = 1, 2, 3,
//
// with the Radau IIA tableau (c = ((4 − √6)/10, (4 + √6)/10, 1), Hairer & Wanner, Solving ODEs
// II, §IV.5 and §VI.1). It is stiffly accurate (the step end is the last stage, z(t0 + h) = z_3)
// and L-stable. Multiplying by A⁻¹/h gives one sparse linear system in the increments Z_i = z_i −
// z0,
//
//   Σ_j (A⁻¹)_ij / h · M Z_j − J Z_i = J z0 + f(t0 + c_i h),
//
// of size 3N; its matrix depends only on h (and J), so its KLU factorization is cached per
// (J, h). Only M z0 matters: the algebraic components of z0 cancel. Orders (Hairer & Wanner,
// vol. II, ch. VI): 5 at the step end for ODE and index-1 components, 3 for index-2 algebraic
// components; the collocation polynomial through (0, z0), (c_i, z_i) is the dense output, of
// order 3 (the stage order).
#include <Eigen/Core>
#include <array>
#include <functional>
#include <list>
#include <memory>

#include "solvers/linear/klu_lu.hpp"

namespace nsspice::solvers {

// The result of one step: enough to evaluate the collocation polynomial anywhere in it.
struct RadauStep {
  double t0 = 0, h = 0;
  Eigen::VectorXd z0;
  std::array<Eigen::VectorXd, 3> z;  // stage values at t0 + c_i h; z[2] is the step end
  const Eigen::VectorXd& end() const { return z[2]; }
  // The collocation polynomial at t0 + s h, s ∈ [0, 1].
  void dense(double s, Eigen::VectorXd& out) const;
  // Its derivative with respect to t at t0 + s h.
  void rate(double s, Eigen::VectorXd& out) const;
  // Its Lagrange weights on the nodes (0, c1, c2, 1): u(s) = Σ_k weights[k] node_k.
  static std::array<double, 4> weights(double s);
  // The weights' derivatives d/ds: u'(s) = Σ_k slopes[k] node_k.
  static std::array<double, 4> slopes(double s);
};

struct RadauStats {
  long steps = 0;           // step solves (any size)
  long factorizations = 0;  // numeric factorizations of the 3N stage matrix
};

class RadauIIA {
 public:
  static constexpr std::array<double, 3> kC = {0.15505102572168219018, 0.64494897427831780982, 1.0};
  // `m` and `j_pattern` fix the sparsity of every stage matrix; the J given to set_j must have
  // no entry outside j_pattern.
  RadauIIA(const SparseMatrix& m, const SparseMatrix& j_pattern, int cache_capacity = 8);
  ~RadauIIA();
  RadauIIA(const RadauIIA&) = delete;
  RadauIIA& operator=(const RadauIIA&) = delete;

  // Selects the system matrix J; `id` names it (factorizations are cached per (id, h)).
  void set_j(const SparseMatrix& j, long id);

  // One step of size h from (t0, z0); f(t, out) fills the forcing at time t. False when the
  // stage matrix is singular (the mode's DAE is not regular).
  bool step(double t0, double h, const Eigen::VectorXd& z0,
            const std::function<void(double, Eigen::VectorXd&)>& f, RadauStep& out);

  const RadauStats& stats() const { return stats_; }

 private:
  struct Cached {
    long id;
    double h;
    KluFactor factor;
  };
  const KluFactor* factor_for(double h);

  int n_;
  SparseMatrix m_, j_, pattern_;
  long id_ = -1;
  std::array<std::array<double, 3>, 3> ainv_{};
  KluSymbolic symbolic_;
  std::list<Cached> cache_;  // most recently used first
  int capacity_;
  RadauStats stats_;
  Eigen::VectorXd rhs_, fz_, jz0_;
};

}  // namespace nsspice::solvers
