#pragma once
// After a transient run: how much the forward Early voltage VAF, which the PWL Ebers–Moll model
// leaves out (docs/devices.md), would have changed each bipolar transistor's collector current.
// In ngspice's Gummel–Poon model (q_b ≈ 1 − v_bc/VAF) the forward transport current is
// I_F/q_b ≈ I_F·(1 + v_cb/VAF), the base current unchanged. At each accepted point, with
// i_t = α_F·i_DE the PWL transport current (the B-E pairs' current times α_F; PNP: the E-B
// pairs, v_bc for v_cb) and f = 1 + v_cb/VAF on the internal nodes, the run's current-weighted
// mean f̄ = ∫ f·i_t dt / ∫ i_t dt (trapezoids over the points). |f̄ − 1| > kEarlyTolerance: a
// warning with f̄ and the range of f where the transistor conducted (i_t ≥ kEarlyShare of its
// peak). A switch transistor carrying 1 mH/10 Ω from 48 V (VAF 100 V) drew a load current 25 %
// below ngspice's with only the model card's general warning; this says by how much it mattered
// in the run. A .dc sweep or .op has no such check (its model warning stands).
#include <Eigen/Core>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"

namespace nsspice::circuit::detail {

inline constexpr double kEarlyTolerance = 0.02;
inline constexpr double kEarlyShare = 1e-2;

class BjtEarlyCheck {
 public:
  BjtEarlyCheck(const Circuit& circuit, const Assembled& assembled);
  bool empty() const { return watches_.empty(); }
  void add(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda);
  void warn(std::vector<std::string>& warnings) const;

  // The run's figures of watch k (tests): f̄ (1 when nothing conducted), the range of f.
  struct Figures {
    double mean = 1, f_lo = 1, f_hi = 1;
  };
  Figures figures(size_t k) const;
  size_t size() const { return watches_.size(); }

 private:
  struct Watch {
    std::string name, model;
    std::vector<int> pairs;  // the B-E (E-B) junction pairs
    int c = 0, b = 0;        // internal nodes (0: ground)
    double sign = 1, vaf = 0, alpha = 1;
    double t_last = 0, i_last = 0, fi_last = 0, weight = 0, weighted = 0, peak = 0;
    double f_lo = 1e300, f_hi = -1e300;
    bool seen = false;
  };
  std::vector<Watch> watches_;
};

}  // namespace nsspice::circuit::detail
