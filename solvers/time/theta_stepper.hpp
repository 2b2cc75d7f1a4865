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
//
// Adaptive steps (ThetaOptions::adaptive; theta_adaptive.cpp, theta_locate.cpp): h is chosen by
// the local error control of step_control.hpp. A step in which a pair changes state (a diode's
// w or λ, a switch control crossing its threshold) is cut at the crossing: the step is solved in
// the previous mode, the first guard g (w_j of a blocking pair, λ_j of a conducting one, the
// distance of a switch control to its threshold) that turns negative is followed to its zero by
// the Illinois method on the step map t ↦ g(Φ_θ(t_k → t)), and the step ends there; the next
// step starts in the new mode with the restart rules above (backward-Euler substeps whose points
// also estimate their own error). Accumulating events (more than kZenoEvents within one
// error-controlled step) are taken without location by backward-Euler steps of a tenth of that
// step (the Moreau–Jean scheme), until the mode is steady again. In circuits with kink pairs
// (below) each step is solved in the previous mode first (mode system and check, no pivoting)
// and located from that solution when the mode does not hold: the MLCP's answer at the step's
// end, which pivots through every segment a long step crosses, is not needed for the first
// crossing; kink pairs take their next segment at the located instant. Between accepted points the
// solution is the quadratic through the last three points of the smooth phase (dense output).
//
// State jumps at switch openings (ThetaOptions::record_jumps; theta_jump.cpp): the points of
// the scheme do not show a jump at a switching instant by themselves (the step that ends there
// is solved in the old mode, the one after it makes the jump together with its own motion h·x'),
// so at each instant where ideal switches open the stepper solves the jump alone, by the
// event-driven mode's vanishing backward-Euler steps from the state there, extrapolated to zero
// length, and hands it out with the states before and after (take_switch_jumps).
//
// Kinks (Mlcs::kink, with ThetaOptions::smooth_kinks): a mode change of segment pairs of continuous
// PWL characteristics only leaves x, λ and the history y = B λ + b − G x continuous (y_k is right
// on both sides of the kink), so the trapezoidal rule has nothing to ring on: such a step keeps its
// θ-solution in the new mode, with neither a located instant nor a backward-Euler restart (fixed
// steps: no switching-step redo either). Its local error, O(h² |Δx''|) over the kink, is the error
// estimate's to bound (adaptive steps): the divided differences across the kink see it. When
// they did, the estimate starts a new phase at the step's end (points before the kink would
// count it again in the next steps) and the next step is no longer than this one, since the new
// phase has no estimate of its own for two steps. A step in which any other pair changes, or a
// switch control crosses, is a switching step as above.
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "solvers/lcp/mode_mlcp.hpp"
#include "solvers/linear/klu_lu.hpp"
#include "solvers/mlcs.hpp"
#include "solvers/time/decimal_grid.hpp"
#include "solvers/time/restart_state.hpp"
#include "solvers/time/step_control.hpp"

namespace nsspice::solvers {

struct StepperAnalyses;

struct ThetaOptions {
  double theta = 0.5;     // θ ∈ [½, 1]
  double h = 0;           // step [s]
  double t_start = 0;     // initial time [s]
  double t_stop = 0;      // final time [s]
  int restart_steps = 2;  // backward-Euler steps after t0 and after each breakpoint
  // The switches' states at the start are mode0's (a run that continues another: a period
  // map), not SwitchControl::initially_on's.
  bool switch_state_from_mode = false;
  bool restart_on_jump = true;  // backward-Euler steps after a mode change that makes y jump
  int restart_substeps = 4;     // a restart or switching step = this many backward-Euler substeps
  int cache_capacity = 64;      // factorizations kept per step size
  LcpSolverKind lcp_solver = LcpSolverKind::kAuto;  // method of pivoting steps (auto: policy)
  bool block_flip = true;  // try flipping the violated pairs before pivoting (ModeMlcp)
  // Changes of Mlcs::kink pairs only are kinks, not switches ("Kinks" above); false: every mode
  // change is a switch (located, restarted).
  bool smooth_kinks = false;
  // Error-controlled steps (step_control.hpp); h is then the first step.
  bool adaptive = false;
  double reltol = 1e-3;          // RELTOL
  Eigen::VectorXd atol;          // absolute error floor per unknown (empty: 1e-6)
  double h_max = 0;              // adaptive: the largest step (0: (t_stop − t_start)/50)
  bool settle_switches = false;  // start(): switch states follow their control at t0 (UIC data)
  // adaptive: the output times output_from + k·output_step (0: none). The first step of a phase
  // (after a switching instant or a breakpoint) ends on the next one inside it: the point at
  // the phase's start holds the old branch's algebraic values, so that no output point is
  // interpolated from it.
  double output_step = 0, output_from = 0;
  // Symbolic analyses made once for another Mlcs of the same pattern (the runs of a sweep): used
  // when their patterns fit this Mlcs's, else it analyzes its own. Owned by the caller, read-only,
  // may be shared by the steppers of several threads.
  const StepperAnalyses* analyses = nullptr;
  // Solve the state jump at each instant where ideal switches open (SwitchJump, theta_jump.cpp):
  // three solves on the factors of the step from there, and where they show no smooth motion two
  // more (one factorization per new mode).
  bool record_jumps = false;
  // Empty when valid, otherwise what is wrong.
  std::string validate() const;
};

struct RunStats {
  long steps = 0;               // accepted steps
  long restart_steps = 0;       // backward-Euler restart steps among them
  long retargeted_solvers = 0;  // odd step sizes solved by an older odd size's solver (retarget)
  long breakpoints = 0;         // source breakpoints landed on
  long mode_changes = 0;        // steps whose mode differs from the previous step's
  long lemke_calls = 0;         // steps that needed pivoting
  long pivots = 0;              // pivots (or PGS/Newton iterations) of the LCP solver
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
  long kink_steps = 0;       // steps whose mode change was PWL kinks only (Mlcs::kink)
  double max_residual = 0;   // largest relative complementarity residual of a step
  // Adaptive steps.
  long rejected_steps = 0;   // steps retried with a smaller h (error or failed solve)
  long located_events = 0;   // switching instants located inside a step
  long located_kinks = 0;    // of them, segment changes of PWL models (Mlcs::kink pairs) only
  long location_solves = 0;  // the extra solves for that
  long floor_steps = 0;      // steps accepted at the floor step with err > 1
  long rounding_steps = 0;   // error estimates above 1 that the rounding floor brought to ≤ 1
  long damped_ringing = 0;   // trapezoidal ringing of an algebraic unknown damped by BE steps
  long fallback_steps = 0;   // steps of event accumulations (no location)
  double fallback_time = 0;  // time they covered [s]
  double h_smallest = 0, h_largest = 0;  // accepted step sizes (truncated ones included)
  // Memory: the largest order of a dense square matrix built by the mode iteration (LCP
  // transforms, Schur complements, rank tests; ModeMlcpStats::max_dense_order), and the most
  // bytes the factor caches of all step sizes held at once (one FactorBudget per run).
  long max_dense_order = 0;
  long dense_allocations = 0;  // dense square matrices built by the mode iteration (all orders)
  // Low-rank solves (ModeMlcpStats): modes answered without a factorization, the solves.
  long low_rank_modes = 0;
  long low_rank_solves = 0;
  // Mode solves in which diodes across closed ideal switches were held off (ModeMlcpStats).
  long held_solves = 0;
  // Pivoting steps on a kept transform, and steps answered by the mode the last pivoting from
  // the same base mode reached (ModeMlcpStats::transform_hits, answer_reuses).
  long transform_hits = 0;
  long answer_reuses = 0;
  long singular_answers = 0;  // steps answered in a mode whose K is singular (ModeMlcpStats)
  double factor_peak_bytes = 0;
  double factor_budget_bytes = 0;  // that budget
  long step_solvers = 0;           // mode-system solvers built (one per step size θh met)
  long odd_step_solvers = 0;       // of them, for sizes off the step ladder (is_ladder_size)
  long max_live_solvers = 0;       // the most of them held at once
  // The step-size independent structures of the mode systems (ModeStructure): built once per run
  // and shared by every step size's solver, whose own part is W alone. How many were built, their
  // bytes, and the largest bytes of one step size's own part (ModeMlcp::bytes at its creation).
  long mode_structures = 0;
  double structure_bytes = 0;
  double max_solver_bytes = 0;
  std::vector<double> impulse_times;  // end times of impulsive steps (state jumps)
  long switch_jumps = 0;     // instants of switch openings solved for their state jump (SwitchJump)
  long jump_solves = 0;      // the solves for them (screening and vanishing steps)
  long vanishing_jumps = 0;  // of those instants, the ones the screening left to vanishing steps
};

// The state at an instant t where ideal switches opened (ThetaOptions::record_jumps), on the
// branch before (x⁻, the point of the step that ends there) and just after (x⁺): two vanishing
// backward-Euler steps of δ = 1e-9 span from x⁻ in the new switch states (the event-driven
// mode's mode selection, event_driven.hpp), x₁ = x(δ) by the MLCP and x₂ = x(2δ) in its mode,
// extrapolated to δ → 0: x⁺ = 2 x₁ − x₂ (theta_jump.cpp). Where no mode of the new switch
// states holds E x⁻, E (x⁺ − x⁻) = B Λ is the jump of the impulse Λ (AB08 Remark 4.8); where one
// does, E x⁺ = E x⁻ to O(δ²) (algebraic unknowns, a switching node's voltage, still jump): the
// vanishing steps' own motion δ x' is not taken for a jump. A screening by three steps of the
// step's own size on its own factors comes first: where it shows E x moving smoothly, no state
// jump (state_jump false, x⁺ = x⁻) without the vanishing steps.
struct SwitchJump {
  double t = 0;
  Eigen::VectorXd x_minus, x_plus;
  std::vector<char> mode_minus, mode_plus;  // every pair's mode, switch states included
  // The vanishing step had no answer: x_plus is the end of the first step after t (the jump and
  // that step's own motion).
  bool from_step = false;
  // false: the screening found E x moving smoothly after t (no state jump; x_plus = x_minus).
  bool state_jump = true;
};

// The symbolic analyses a ThetaStepper makes of an Mlcs's pattern: the mode matrices K(σ)'s and,
// with kReducedMinPairs pairs or more, W = G + E/(θh)'s (ModeMlcp's reduced solves). Made once
// and handed to the steppers of other Mlcs of the same pattern (ThetaOptions::analyses).
struct StepperAnalyses {
  explicit StepperAnalyses(const Mlcs& mlcs);
  KluSymbolic mode, w;
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
  // The dense solution at t in [t_prev(), t()] (quadratic through the phase's last three points,
  // else linear), and its derivative: the scheme's own x' interpolated alike (else the slope).
  void interpolate(double t, Eigen::VectorXd& x, Eigen::VectorXd& lambda,
                   Eigen::VectorXd& xdot) const;
  double t_prev() const { return t_prev_; }
  bool finished() const { return t_ >= options_.t_stop; }

  double t() const { return t_; }
  // The smallest error-controlled step near t ≤ span: 16 · 10⁻¹² · max(span, |t|), a few
  // thousand units of rounding of t (shorter steps are all rounding error).
  static double floor_step(double span, double t = 0) {
    return 16e-12 * std::max(span, std::abs(t));
  }
  const Eigen::VectorXd& x() const { return x_; }
  const Eigen::VectorXd& lambda() const { return lambda_; }
  const Eigen::VectorXd& w() const { return w_; }
  // The scheme's own derivative x' at t(): the θ recurrence x'_{k+1} = ((x_{k+1} − x_k)/h −
  // (1 − θ) x'_k)/θ (backward Euler: (x_{k+1} − x_s)/h_s over the last substep), reset with the
  // history y = E x' (BDF2), so that E x' = y = B λ + b − G x at every point: a capacitor's
  // current C(v_a' − v_b') satisfies KCL with the other currents. 0 at the start.
  const Eigen::VectorXd& xdot() const { return xdot_; }
  const std::vector<char>& mode() const { return mode_; }
  // The state jumps at the switch openings since the last call (ThetaOptions::record_jumps; an
  // opening at the end of a step is handed out after the step that follows it).
  std::vector<SwitchJump> take_switch_jumps() { return std::exchange(jumps_, {}); }
  // Time at which the step being attempted (or the last step) ends.
  double t_next() const { return t_next_; }
  RunStats stats() const;

  // Called with every LCP of the steps (StepLcp, mode_mlcp.hpp) and the θh it was built for;
  // with capture on, also with the transform of steps that needed no pivoting.
  using LcpObserver = std::function<void(const StepLcp&, double theta_h)>;
  void set_lcp_observer(LcpObserver observer) { observer_ = std::move(observer); }
  void set_lcp_capture(bool capture);
  // The analyses came from ThetaOptions::analyses (their patterns fit).
  bool shared_analysis() const { return shared_analysis_; }

 private:
  const Mlcs& mlcs_;
  ThetaOptions options_;
  SparseMatrix pattern_;  // pattern of K(σ) shared by all step sizes
  KluSymbolic symbolic_;
  KluSymbolic w_symbolic_;  // pattern of W = G + E/(θh), for ModeMlcp's reduced solves
  bool shared_analysis_ = false;
  // One memory budget for the factors of every step size's solver, and the structures of the
  // mode systems that do not depend on the step size (declared before the solvers, so that they
  // outlive them).
  FactorBudget factor_budget_;
  std::unique_ptr<ModeStructure> structure_;
  struct SolverEntry {
    std::unique_ptr<ModeMlcp> solver;
    long last_use = 0;
    double bytes = 0;  // solver->bytes() as of its last use (evict_solvers' sum)
    bool odd = false;  // a size off the step ladder (is_ladder_size): kept in a short queue
    std::list<long long>::iterator queue;  // its place in its recency queue
    double theta_h = 0;                    // the θh its W = G + E/(θh) was built with
  };
  // Keyed by θh (quantized), least recent evicted. The bookkeeping is incremental (a lookup per
  // step, a creation for nearly every odd size): the keys of each kind by last use, least recent
  // first, the sum of the entries' bytes (whole numbers: exact in any order) and the odd count.
  std::unordered_map<long long, SolverEntry> solvers_;
  std::list<long long> ladder_queue_, odd_queue_;
  double solver_bytes_ = 0;
  long solver_clock_ = 0;
  SolverEntry* last_entry_ = nullptr;  // the solver handed out last (its bytes refreshed next)
  // θh is a step-ladder value (ErrorEstimator::ladder_floor), or one relative to the first step
  // h (fixed steps: θh, h/s): the sizes that recur. Others (cut at a breakpoint or a located
  // instant, the trials of a location) rarely do.
  bool is_ladder_size(double theta_h) const;
  RunStats retired_;  // counts of solvers dropped from the map
  RunStats stats_;
  double t_ = 0, t_next_ = 0;
  double grid_origin_ = 0;  // step times are grid_origin_ + k h until the next breakpoint/cut
  long grid_count_ = 0;
  DecimalGrid grid_;            // grid_origin_ + k h as exact decimals
  double next_breakpoint_ = 0;  // cached breakpoint_after(t) (valid while t is before it)
  Eigen::VectorXd x_, q_, y_, y_prev_, lambda_, w_;
  Eigen::VectorXd xdot_, xdot_prev_, xdot_pp_, xdot_new_;  // x' at the points (xdot())
  // The history's x' at t_ when it was reset from BDF2 (as y_ is; E xdot_hist_ = y_), while
  // xdot_ stays the point's own (E xdot_ = B λ + b − G x).
  Eigen::VectorXd xdot_hist_;
  bool hist_reset_ = false;
  int be_substeps_ = 0;  // the attempted step: backward Euler of this many substeps (0: θ-step)
  std::vector<char> mode_;
  RestartState restart_;
  Eigen::VectorXd restart_y_;         // y at the first point after the start or a breakpoint
  Eigen::VectorXd q_prev_, q_prev2_;  // q at the two previous points
  double h_prev_ = 0, h_prev2_ = 0;   // the two previous step sizes
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

  // Dense output: the two accepted points before t_ and how many points the phase has.
  double t_prev_ = 0, t_pp_ = 0;
  Eigen::VectorXd x_prev_, lambda_prev_, x_pp_, lambda_pp_;
  void update_xdot(double t_next, double h_eff, double theta);
  int phase_len_ = 1;
  bool phase_break_ = false;  // the derivatives may jump at t_ (breakpoint, switching instant)
  // Adaptive steps.
  std::unique_ptr<ErrorEstimator> estimator_;
  double span_ = 0, h_next_ = 0, h_scale_ = 0, h_after_event_ = 0;
  std::vector<std::pair<double, Eigen::VectorXd>> inner_;  // substep points of the last try
  std::deque<double> recent_events_;
  int fallback_left_ = 0, fallback_quiet_ = 0;
  long since_event_ = 0;
  std::vector<int> at_edge_;  // pairs located at t_ (their guard is zero there)  // accepted steps
                              // since the last located switching instant
  std::vector<int> switch_of_pair_;  // forced pair → index in mlcs_.switches (−1: none)
  // State jumps at switch openings (theta_jump.cpp): the instant whose x⁻ is kept until the step
  // from it is accepted (more flips may follow at the same instant), and the finished ones.
  std::optional<SwitchJump> pending_jump_;
  std::vector<SwitchJump> jumps_;
  bool jump_solve_ = false;  // the vanishing steps are not the step's LCPs (observer)
  // Ideal switches flipped at t_ (x_ the state there on the old branch; `mode_minus` the modes
  // before the flip): opens the instant's jump if one of them opened, or keeps it open.
  void note_switch_flip(const std::vector<char>& mode_minus);
  // The step from the instant was accepted in `mode` (its substeps or θ-step of size h_step):
  // the jump, screened by three steps of h_step, else from the vanishing steps (x_new_: that
  // step's end, for when they fail).
  void finish_switch_jump(const std::vector<char>& mode, double h_step);
  // `count` backward-Euler steps of h from x0 at t into x[0..count−1], the first an MLCP from
  // `mode` (its answer left there), the others in that mode; how many were solved.
  int jump_steps(double t, const Eigen::VectorXd& x0, double h, int count, std::vector<char>& mode,
                 Eigen::VectorXd* x);
  // The three steps x[0..2] from x0 move E x smoothly (no jump at their start).
  bool smooth_after(const Eigen::VectorXd& x0, const Eigen::VectorXd* x) const;
  std::vector<char> kink_;  // Mlcs::kink, one per pair (checked against D): 0, 1 or 2 (smooth)
  void init_kinks();
  // The pairs in which `mode` differs from mode_ are all kink pairs (and there is one).
  bool kinks_only(const std::vector<char>& mode) const;
  // `pairs` is not empty and holds kink pairs only (Mlcs::kink).
  bool kink_pairs(const std::vector<int>& pairs) const;
  bool kink_step_ = false;         // the attempted step's mode change is kinks only
  bool has_kinks_ = false;         // some pair is a kink pair
  bool has_kink_pairs_ = false;    // some pair is marked Mlcs::kink (whatever smooth_kinks)
  bool has_smooth_pairs_ = false;  // some pair is marked Mlcs::kink = 2 (always smooth)
  // Some switch control at x is past the threshold that flips its present state.
  bool switch_crossed(const Eigen::VectorXd& x) const;
  struct Location {
    bool kink = false;       // only kink pairs changed and no switch crossed: the answer stands
    bool at_start = false;   // the first crossing is at the step's start
    bool located = false;    // the step was cut at a crossing (state in x_new_, ...)
    std::vector<int> pairs;  // the pairs crossing there
  };

  MlcpOutcome step_fixed();
  MlcpOutcome step_adaptive();
  // Guards of the mode `mode_` at (x, λ, w), one per pair (≥ 0 while the mode holds).
  // (`mode`: another mode's guards.)
  void guards(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda, const Eigen::VectorXd& w,
              Eigen::VectorXd& g, const std::vector<char>* mode = nullptr) const;
  // After an MLCP answer that kept pairs whose guard crossed at t_ (`pairs`), the mode with those
  // pairs flipped, when its solution keeps their new guards ≥ 0 (true: taken into `mode`).
  bool flip_at_start(double t_next, const std::vector<int>& pairs, std::vector<char>& mode);
  // Flips the ideal switches among `pairs` (their state and mode_); true if any.
  bool flip_switches(const std::vector<int>& pairs);
  // Finds the first crossing in the step to t_next whose MLCP answer is `mode` (theta_locate.cpp).
  Location locate(double t_next, const std::vector<char>& mode, MlcpOutcome& outcome);
  void accept_point(double t_next, double h_eff, double theta, const MlcpOutcome& outcome,
                    bool breakpoint, std::vector<char>& mode);
  void mark_discontinuity();
  // err of the attempted step (step_control.hpp), negative without an estimate.
  double step_error(std::span<const TrajectoryPoint> candidate, double h_eff, double theta,
                    int substeps, bool jump, const std::vector<char>& mode);
  Eigen::VectorXd tau_, rhs_, zero_d_, delta_, delta_lambda_, delta_w_, noise_;
  SparseMatrix e_abs_;  // |E| (the rounding floor's right side), made on first use
  bool ringing_ = false;
  Eigen::VectorXd q_peak_;  // max |q| over the accepted points (the visible size of a jump)
  // A state jump in the backward-Euler substeps (inner_) of the step from t_ to t_next.
  bool jump_in_substeps(
      double t_next) const;  // step_error's dense-output error is trapezoidal ringing
  std::vector<TrajectoryPoint> candidate_;    // the points of the attempted step (scratch)
  Eigen::VectorXd g0_, g1_, g_eps_, g_prev_;  // guards (locate's scratch)
  bool zeno_event(double t);
  double next_output_time(double t) const;  // the first output time after t
  void settle_switches();

  // The solver of the step size θh: one of the sizes within rounding of θh (solver_for's key),
  // whose own θh is solver_theta_h_ until the next call. The right-hand side q/(θh) of the step
  // must use that θh, not the caller's: W and the right-hand side then make one step, of the
  // solver's size (a time shift below 1e-9 of the step), where a mismatch δ between them would
  // add δ·q/(θh) to the multipliers' currents (866 A on a 2 pF clamp through a 1e-19 s step).
  ModeMlcp& solver_for(double theta_h);
  double solver_theta_h_ = 0;
  void attach(ModeMlcp& solver, double theta_h);
  // Retires the least recently used solvers before one of `new_bytes` joins them (the limits of
  // theta_stepper.cpp).
  void evict_solvers(double new_bytes, bool odd);
  // Drops the least recently used solver (of the odd sizes only, or of all).
  void drop_oldest_solver(bool odd_only);
  void retire(const ModeMlcp& solver);
  static void add_counts(const ModeMlcp& solver, RunStats& s);
  static void add_counts_into(const RunStats& from, RunStats& s);
  void switching_step(double t_next, std::vector<char>& mode, MlcpOutcome& outcome);
  // Solves the step from t_ to t_next (θ-step or restart) into x_new_, lambda_new_, w_new_;
  // `fixed`: in `mode` as given (no pivoting, no switching-step redo).
  MlcpOutcome attempt(double t_next, std::vector<char>& mode, bool fixed = false);
  // The θ-step to t_next in mode_ alone (no pivoting): true when mode_ holds over it (the step's
  // answer, as attempt's); otherwise `solved` says whether x_new_, lambda_new_, w_new_ hold
  // mode_'s solution (false: K(σ) singular).
  bool attempt_in_old_mode(double t_next, MlcpOutcome& outcome, bool& solved);
  // Circuits with kink pairs: the step's answer from attempt_in_old_mode, located when that mode
  // does not hold (true: `outcome` and `loc` are the step's; false: solve its MLCP).
  bool answer_in_old_mode(double t_next, MlcpOutcome& outcome, Location& loc);
  // First switch-control crossing in the attempted step, as a fraction of it; `flips` = the
  // switches that change state there (empty: none).
  double switch_crossing(std::vector<int>& flips) const;
  // Backward Euler from (t_, q_) to t_next in `substeps` equal substeps; the result goes to
  // x_new_, lambda_new_, w_new_ and `mode`.
  // `held` (fixed only): each substep is first solved as solve_if_mode_holds while `mode` holds;
  // *held is false after the first substep it does not.
  MlcpOutcome backward_euler(double t_next, int substeps, std::vector<char>& mode,
                             bool fixed = false, bool* held = nullptr);
  Eigen::VectorXd be_q_, be_b_, be_s_;  // backward_euler's q_j, b_j and sources (scratch)
  std::vector<char> be_start_;          // backward_euler's mode on entry (scratch)
  bool y_jumped(const Eigen::VectorXd& y_new) const;
  void account_restart(double t_next, const Eigen::VectorXd& y_new, bool breakpoint,
                       bool mode_changed, double theta_eff);
};

}  // namespace nsspice::solvers
