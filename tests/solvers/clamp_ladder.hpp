// A diode-clamped RC ladder with an ideal switch at its end, as the MLCP blocks of one
// backward-Euler step: the test circuit of ModeMlcp's reduced solves (mode_mlcp_reduced_test.cpp)
// and kept transforms (transform_reuse_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

#include "lcp_problems.hpp"
#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers::testing {

// N nodes (R = 1 kΩ sections, C = 1 nF to ground), pair j < N: ideal diode from node j to a
// 1 V rail (w_j = 1 − v_j), pair N: a switch (RON = 0.1 Ω, GOFF = 1e-9 S) from node N−1 to
// ground, forced. One backward-Euler step matrix W = G + E/h.
struct Ladder {
  using Triplets = std::vector<Eigen::Triplet<double, int>>;
  int n;
  SparseMatrix w, b, c, d, c_off;
  Eigen::VectorXd dvec;
  std::vector<char> forced;
  explicit Ladder(int sections, double h) : n(sections) {
    const int m = n + 1;
    const double g = 1e-3, cap = 1e-9;
    Triplets tw, tb, tc, td, toff;
    for (int i = 0; i < n; ++i) {
      tw.emplace_back(i, i, (i + 1 < n ? 2 * g : g) + cap / h);
      if (i + 1 < n) {
        tw.emplace_back(i, i + 1, -g);
        tw.emplace_back(i + 1, i, -g);
      }
      tb.emplace_back(i, i, -1.0);
      tc.emplace_back(i, i, -1.0);
    }
    tb.emplace_back(n - 1, n, -1.0);
    tc.emplace_back(n, n - 1, 1.0);
    td.emplace_back(n, n, -0.1);
    toff.emplace_back(n, n - 1, -1e-9);
    w = sparse(n, n, tw);
    b = sparse(n, m, tb);
    c = sparse(m, n, tc);
    d = sparse(m, m, td);
    c_off = sparse(m, n, toff);
    dvec = Eigen::VectorXd::Ones(m);
    dvec[n] = 0.0;
    forced.assign(static_cast<size_t>(m), 0);
    forced[static_cast<size_t>(n)] = 1;
  }
};

// Two solvers' answers to one drive (k: the drive, for the message) agree: x and λ to 1e-12 of
// the reference's size.
inline void expect_same_answer(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                               const Eigen::VectorXd& x_ref, const Eigen::VectorXd& lambda_ref,
                               int k) {
  EXPECT_LE((x - x_ref).lpNorm<Eigen::Infinity>(), 1e-12 * (1 + x_ref.lpNorm<Eigen::Infinity>()))
      << k;
  EXPECT_LE((lambda - lambda_ref).lpNorm<Eigen::Infinity>(),
            1e-12 * (1 + lambda_ref.lpNorm<Eigen::Infinity>()))
      << k;
}

}  // namespace nsspice::solvers::testing
