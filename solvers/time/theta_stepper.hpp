#pragma once
// θ-method time stepping with one MLCP per step (Moreau–Jean; docs/formulation.md §3, AB08 §9.5).
//
// With y = E x' (capacitor currents in KCL rows, inductor voltages in inductor rows) and
// q = E x, the θ-method on the differential part with every algebraic relation at t_{k+1}:
//
//   q_{k+1} − q_k = h [θ y_{k+1} + (1−θ) y_k],      y_{k+1} + G x_{k+1} = B λ_{k+1} + b(t_{k+1})
//
// gives the step's MLCP
//
//   W x_{k+1} − B λ_{k+1} = r_k,   W = G + E/(θh),   r_k = b(t_{k+1}) + q_k/(θh) + (1−θ)/θ · y_k
//   w_{k+1} = C x_{k+1} + D λ_{k+1} + d,   0 ≤ w_{k+1} ⊥ λ_{k+1} ≥ 0
//
// and y_{k+1} = ((q_{k+1} − q_k)/h − (1−θ) y_k)/θ. θ = 1 is backward Euler, θ = ½ the
// trapezoidal rule (order 2 on smooth phases, not L-stable). A step in which the mode changes
// is redone by backward Euler, which cannot create energy at the switch (switching_step).
// Restarts (§3.1): the first
// `restart_steps` steps after t0 and after every source breakpoint are backward-Euler steps
// (each made of `restart_substeps` substeps, which divides their O(h²) error by as much),
// which do not use y_k, so a jump of y (or a state jump: an impulsive step, §3.3) does not
// leave a (−1)^k oscillation; the trapezoidal history then starts from the BDF2 derivative
// y = (3q_k − 4q_{k−1} + q_{k−2})/(2h) of the last three points (after an impulsive step, one
// more restart step so that the pre-jump point is not among them); a mode change after which y
// jumps (detected as an increment of y far larger than the previous one) is followed by two
// backward-Euler steps, after which the history y restarts from the second-order BDF2 derivative of
// the three post-switch points. Breakpoints always land on a step boundary; the step then continues
// with h from there.
#include <Eigen/Core>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "solvers/lcp/mode_mlcp.hpp"
#include "solvers/linear/klu_lu.hpp"
#include "solvers/mlcs.hpp"

namespace nsspice::solvers {

struct ThetaOptions {
  double theta = 0.5;           // θ ∈ [½, 1]
  double h = 0;                 // step [s]
  double t_start = 0;           // initial time [s]
  double t_stop = 0;            // final time [s]
  int restart_steps = 2;        // backward-Euler steps after t0 and after each breakpoint
  bool restart_on_jump = true;  // backward-Euler steps after a mode change that makes y jump
  int restart_substeps = 4;     // a restart or switching step = this many backward-Euler substeps
  int cache_capacity = 64;      // factorizations kept per step size
  LcpSolverKind lcp_solver = LcpSolverKind::kAuto;  // method of pivoting steps (auto: policy)
  bool block_flip = true;  // try flipping the violated pairs before pivoting (ModeMlcp)
  // Empty when valid, otherwise what is wrong.
  std::string validate() const;
};

struct RunStats {
  long steps = 0;          // accepted steps
  long restart_steps = 0;  // backward-Euler restart steps among them
  long breakpoints = 0;    // source breakpoints landed on
  long mode_changes = 0;   // steps whose mode differs from the previous step's
  long lemke_calls = 0;    // steps that needed pivoting
  long pivots = 0;         // pivots (or PGS/Newton iterations) of the LCP solver
  std::array<long, kLcpSolverKindCount> lcp_methods{};  // pivoting calls per method answering
  long mode_solves = 0;                                 // sparse triangular solve pairs
  long factorizations = 0;                              // numeric factorizations with pivoting
  long refactorizations = 0;  // numeric refactorizations (same pivot order)
  long cache_hits = 0;
  long cache_misses = 0;
  long inaccurate = 0;       // steps accepted with the looser tolerance
  long switching_steps = 0;  // mode-change steps redone by backward Euler (θ < 1)
  long switch_events = 0;    // ideal-switch state changes
  long cut_steps = 0;        // steps cut at a switch control crossing (the longer try rejected)
  double max_residual = 0;   // largest relative complementarity residual of a step
  std::vector<double> impulse_times;  // end times of impulsive steps (state jumps)
};

class ThetaStepper {
 public:
  ThetaStepper(const Mlcs& mlcs, const ThetaOptions& options);
  ThetaStepper(const ThetaStepper&) = delete;
  ThetaStepper& operator=(const ThetaStepper&) = delete;

  // Initial point: x0, q0 = E x0 for consistent data (UIC data may give another q0),
  // λ0 and the initial mode guess.
  void start(const Eigen::VectorXd& x0, const Eigen::VectorXd& q0, const Eigen::VectorXd& lambda0,
             std::vector<char> mode0);
  // Advances one step. On failure the state stays at the last accepted point.
  MlcpOutcome step();
  bool finished() const { return t_ >= options_.t_stop; }

  double t() const { return t_; }
  const Eigen::VectorXd& x() const { return x_; }
  const Eigen::VectorXd& lambda() const { return lambda_; }
  const Eigen::VectorXd& w() const { return w_; }
  const std::vector<char>& mode() const { return mode_; }
  // Time at which the step being attempted (or the last step) ends.
  double t_next() const { return t_next_; }
  RunStats stats() const;

  // Called with every LCP of the steps (StepLcp, mode_mlcp.hpp) and the θh it was built for;
  // with capture on, also with the transform of steps that needed no pivoting.
  using LcpObserver = std::function<void(const StepLcp&, double theta_h)>;
  void set_lcp_observer(LcpObserver observer) { observer_ = std::move(observer); }
  void set_lcp_capture(bool capture);

 private:
  const Mlcs& mlcs_;
  ThetaOptions options_;
  SparseMatrix pattern_;  // pattern of K(σ) shared by all step sizes
  KluSymbolic symbolic_;
  KluSymbolic w_symbolic_;  // pattern of W = G + E/(θh), for ModeMlcp's reduced solves
  std::map<long long, std::unique_ptr<ModeMlcp>> solvers_;  // keyed by θh (quantized)
  RunStats retired_;  // counts of solvers dropped from the map
  RunStats stats_;
  double t_ = 0, t_next_ = 0;
  double grid_origin_ = 0;  // step times are grid_origin_ + k h until the next breakpoint/cut
  long grid_count_ = 0;
  double next_breakpoint_ = 0;  // cached breakpoint_after(t) (valid while t is before it)
  Eigen::VectorXd x_, q_, y_, y_prev_, lambda_, w_;
  std::vector<char> mode_;
  int restart_left_ = 0;
  int since_breakpoint_ = 0;
  Eigen::VectorXd restart_y_;
  Eigen::VectorXd q_prev_, q_prev2_;  // q at the two previous points
  double h_prev_ = 0, h_prev2_ = 0;   // the two previous step sizes
  int bdf2_pending_ = 0;              // steps until the history is reset from BDF2
  bool impulsive_ = false;            // the last backward_euler() saw a state jump
  std::vector<char> switch_on_;       // state of each Mlcs::switches entry
  Eigen::VectorXd s_, b_, b_next_, r_, x_new_, lambda_new_, w_new_, q_new_, y_new_;
  std::vector<char> mode_try_;  // the mode of the step being attempted (scratch)
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> e_rows_, g_rows_;  // E, G by rows
  // q = E x and y = b + B λ − G x (without the columns of B whose λ_j is 0: most pairs, most
  // steps), in one pass over the rows.
  void charge_and_y(const Eigen::VectorXd& b, const Eigen::VectorXd& lambda,
                    const Eigen::VectorXd& x, Eigen::VectorXd& q, Eigen::VectorXd& y) const;

  LcpObserver observer_;
  bool capture_ = false;

  ModeMlcp& solver_for(double theta_h);
  void attach(ModeMlcp& solver, double theta_h);
  void retire(const ModeMlcp& solver);
  static void add_counts(const ModeMlcp& solver, RunStats& s);
  static void add_counts_into(const RunStats& from, RunStats& s);
  void switching_step(double t_next, std::vector<char>& mode, MlcpOutcome& outcome);
  // Solves the step from t_ to t_next (θ-step or restart) into x_new_, lambda_new_, w_new_.
  MlcpOutcome attempt(double t_next, std::vector<char>& mode);
  // First switch-control crossing in the attempted step, as a fraction of it; `flips` = the
  // switches that change state there (empty: none).
  double switch_crossing(std::vector<int>& flips) const;
  // Backward Euler from (t_, q_) to t_next in `substeps` equal substeps; the result goes to
  // x_new_, lambda_new_, w_new_ and `mode`.
  MlcpOutcome backward_euler(double t_next, int substeps, std::vector<char>& mode);
  bool y_jumped(const Eigen::VectorXd& y_new) const;
  void account_restart(const Eigen::VectorXd& y_new, bool breakpoint, bool mode_changed,
                       double theta_eff);
};

}  // namespace nsspice::solvers
