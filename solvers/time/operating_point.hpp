#pragma once
// Static operating point (docs/formulation.md §2): E x' = 0, sources at t,
//
//   G x − B λ = b,   w = C x + D λ + d,   0 ≤ w ⊥ λ ≥ 0,
//
// solved by the same mode iteration as a time step (W = G). It can have a set of solutions
// (AB08 §1.1.7); the one returned is the one the mode iteration reaches from the start mode
// (all pairs off by default), which is deterministic. Ideal switches take the state their
// control has at the solution (rounds of solve / update until the states agree, hysteresis
// settling them). When pivoting ends without a solution (no mode found, or a Lemke ray, which
// proves infeasibility only for copositive-plus matrices; a problem that is not a P-matrix:
// limiters and clamps in a feedback loop) and there are at most kEnumerateMaxPairs free pairs,
// every mode is tried, one flip at a time in Gray-code order from where pivoting ended (each a
// factorization or a cache hit, 2^f of them at most); the first mode whose solution satisfies
// the complementarity conditions is the answer; when none does, the failure stands and its
// message says every mode was tried (pivoting's "no solution" is then a checked statement).
//
// Source stepping (StaticMlcp::solve_stepping, as SPICE's): when that fails, the sources are
// ramped, b_k = (k/K)·b for k = 1..K (K = kSourceSteps; the pairs' offsets d are the devices',
// not ramped), each solve warm-started from the mode of the one before. This is a continuation:
// every step's answer is the MLCP's at its own sources and the last one is b's, held to the same
// complementarity check; it only finds a mode the search from all pairs off did not reach (a
// loop of limiters and clamp ramps with more free pairs than are enumerated: 20 steps from 0).
// A .dc sweep's point ramps first from the last point it answered, b_k = b_0 + (k/K)(b − b_0)
// from that point's mode (the sweep's own continuation, refined), then from 0 as above.
// A step without an answer is retried from the last one answered with half the increment (the
// increment grows back to 1/K after each answer), down to 1/(K·2^kSourceHalvings); below that the
// ramp has failed, and the first failure (the direct solve's) is returned. A ramp that never
// halves is exactly the K equal steps. (The 20 equal steps do not reach the bias knots' second
// initial point of a class-AB follower, with its refitted junctions; the halved ones do.)
//
// GMIN stepping (as SPICE's), the last resort after both ramps: a conductance g on every
// unknown's diagonal (a node's to ground; a branch current's row: a series g Ω), g = 10⁻³ S down
// by decades to 10⁻¹², each solve warm-started from the last one's mode, then the circuit's own
// G from the last mode. Each answer is the MLCP's at its own g, and the last one is the
// circuit's, held to the same check: a continuation through well-conditioned problems to one a
// start from all pairs off did not reach (SPICE's 1e-12 S across junctions fed by a current
// source: from all pairs off, 10 mA gives 10¹⁰ V, and pivoting in that scale failed).
#include <Eigen/Core>
#include <vector>

#include "solvers/lcp/mode_mlcp.hpp"
#include "solvers/mlcs.hpp"

namespace nsspice::solvers {

// Most free pairs of a static MLCP whose modes are enumerated when pivoting fails (2^12 = 4096).
inline constexpr int kEnumerateMaxPairs = 12;
// Steps of the source stepping, and the most halvings of one (header).
inline constexpr int kSourceSteps = 20;
inline constexpr int kSourceHalvings = 10;

struct OperatingPoint {
  MlcpOutcome outcome;
  Eigen::VectorXd x, lambda, w;
  std::vector<char> mode;
  int source_steps = 0;  // found by source stepping in this many steps (0: directly)
  int gmin_steps = 0;    // found by GMIN stepping in this many steps (0: not)
  // Switches whose state and control never agreed (StaticMlcp::solve's rounds ended with it
  // still flipping: a hysteretic switch in a relaxation oscillator has no DC state). `on`: its
  // state in this answer; the controls s = c·x last seen with it on and with it off.
  struct Unsettled {
    int index = 0;  // into Mlcs::switches
    bool on = false;
    double control_on = 0, control_off = 0;
  };
  std::vector<Unsettled> unsettled;
};

OperatingPoint solve_operating_point(const Mlcs& mlcs, double t);

// The static MLCP for many right-hand sides b (a .dc sweep): one symbolic analysis, the mode
// factors cached across solves, each solve warm-started from the previous mode and switch
// states (a sweep moves continuously, so the next mode is usually the last one).
class StaticMlcp {
 public:
  explicit StaticMlcp(const Mlcs& mlcs);
  // The operating point for b = S s (the sources' values s); warm-started from the last solve.
  OperatingPoint solve(const Eigen::VectorXd& b);
  // solve(b), and source stepping when it has no answer (header): from `from` (a right-hand
  // side answered last, whose mode the solver holds) when given, then from 0.
  OperatingPoint solve_stepping(const Eigen::VectorXd& b, const Eigen::VectorXd* from = nullptr);
  const ModeMlcpStats& stats() const { return solver_.stats(); }
  // GMIN stepping (header), solve_stepping's last resort; false when a step has no answer.
  bool gmin_stepping(const Eigen::VectorXd& b, OperatingPoint& op);

 private:
  // The next solve starts from all pairs off and the switches' initial states.
  void restart();
  // b_0 + α(b − b_0) for α from 0 to 1 in steps of at most 1/K, each from the last one's mode
  // (header); false when a step would be shorter than 1/(K·2^kSourceHalvings).
  bool ramp(const Eigen::VectorXd& b0, const Eigen::VectorXd& b, OperatingPoint& op);
  // The last resort above: every mode of the free pairs, if there are few (operating_point.cpp).
  void enumerate_modes(const Eigen::VectorXd& b, OperatingPoint& op);

  const Mlcs& mlcs_;
  SparseMatrix g_;
  KluSymbolic symbolic_;
  ModeMlcp solver_;
  std::vector<char> mode_;  // the last accepted mode
  std::vector<char> on_;    // the switch states of the last solve
};

}  // namespace nsspice::solvers
