#pragma once
// Event-driven integration of the MLCS (docs/event-driven.md; formulation.md §4; AB08 ch. 7,
// §1.2.4, §4.2, Remark 4.8).
//
// Between events the mode σ (the conducting pairs, and the state of every ideal switch) is
// fixed and the MLCS is the linear time-invariant DAE, in z = (x, λ),
//
//   E x' = −G x + B λ + b(t)
//   0    = −K_σ z + k_σ          K_σ row j: C_j x + D_j λ  = −d_j   (j conducting)
//                                           λ_j            = 0      (free pair j blocking)
//                                           C_off_j x + λ_j = 0     (ideal switch j off)
//
// integrated by three-stage Radau IIA (radau_iia.hpp; order 5 at step ends, stiffly accurate,
// L-stable) with step-doubling error control: each step of size h is also taken as two steps of
// h/2, err = max_k |z_{h/2,h/2} − z_h|_k / (atol + rtol · peak_k) / (2⁵ − 1) over all unknowns
// (x and λ: the guards must be accurate too), the two half steps are kept.
//
// Guards, which stay ≥ 0 while the mode holds: w_j = C_j x + D_j λ + d_j for blocking free
// pairs, λ_j for conducting ones, (v_on − s) or (s − v_off) for an ideal switch with control s.
// A guard below −tol on the dense output (the collocation polynomial) marks an event; its first
// zero is bracketed on that polynomial and then refined on the step map s ↦ g(Φ(t0 + s)) (a
// fresh Radau step of length s from the step start) by the Illinois method, to
// time_tol · max(|t|, t_stop − t_start).
//
// At an event (and at t0, source breakpoints and after a θ-scheme interval) the next mode is the
// solution of the backward-Euler MLCP over a vanishing step δ from the event state x⁻:
//
//   (G + E/δ) x⁺ − B λ⁺ = b(t + δ) + E x⁻/δ,    0 ≤ C x⁺ + D λ⁺ + d ⊥ λ⁺ ≥ 0.
//
// For a pair whose guard is at zero its solution is, to O(δ), the LCP on the derivative level
// (AB08 (1.24): 0 ≤ ẇ ⊥ λ ≥ 0); when x⁻ is inconsistent with every mode it is the jump rule
// (AB08 (4.9)–(4.11), Remark 4.8: E x⁺ = E x⁻ + B ∫λ), δλ⁺ being the impulse. A step whose
// E x moves by more than jump_tol of its scale is a state jump: it is recorded with its impulse
// and followed by one more δ step, whose λ is the post-jump (regular) value. Modes are
// decided by this LCP, never by state thresholds.
//
// Accumulating events (zeno_events events within zeno_window · (t_stop − t_start)) hand the
// interval over to the θ-scheme (theta_stepper.hpp) in steps of fallback_h for fallback_steps
// steps, after which the event-driven integration resumes with a new mode selection. A mode
// whose stage matrix is numerically singular at the step the error control asks for (a fast
// transient through a large resistance beside large capacitors: E/h against G beyond the
// factorization's conditioning) hands fallback_steps such steps over to the error-controlled
// θ-scheme (step_control.hpp).
#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "solvers/lcp/mode_mlcp.hpp"
#include "solvers/mlcs.hpp"
#include "solvers/status.hpp"
#include "solvers/time/radau_iia.hpp"

namespace nsspice::solvers {

class ThetaStepper;

struct EventOptions {
  double t_start = 0, t_stop = 0;
  double rtol = 1e-9;       // local error per step, relative to each unknown's size
  double atol = 1e-12;      // absolute floor of that error (V, A)
  double h_init = 0;        // first step (0: (t_stop − t_start)/1000)
  double h_max = 0;         // largest step (0: (t_stop − t_start)/20)
  bool fixed_step = false;  // every step h_max, no error control (order studies)
  // The switches' states at the start are mode0's (a run that continues another, as a period
  // map does: a switch whose control is inside its hysteresis band keeps its state), not
  // SwitchControl::initially_on's.
  bool switch_state_from_mode = false;
  double time_tol = 1e-12;    // event times to time_tol · max(|t|, t_stop − t_start)
  double select_step = 1e-9;  // δ of the mode selection, as a fraction of t_stop − t_start
  double jump_tol = 1e-6;     // relative change of E x over δ that counts as a jump
  int zeno_events = 64;       // Zeno: this many events within
  double zeno_window = 1e-6;  // this fraction of t_stop − t_start
  // A Zeno interval: fallback_steps θ-steps of fallback_h (0: (t_stop − t_start)/1e4). After a
  // singular stage matrix: error-controlled θ-steps (RELTOL fallback_reltol, ATOL fallback_atol
  // per unknown, empty: the θ-scheme's default) up to fallback_h_max (0: fallback_h).
  double fallback_h = 0;
  int fallback_steps = 100;
  double fallback_theta = 0.5;
  double fallback_reltol = 1e-3;
  Eigen::VectorXd fallback_atol;
  double fallback_h_max = 0;
  double output_step = 0;  // > 0: also points at t_start + k·output_step (dense output)
  double output_from = 0;  // no grid points before this time (the .tran TSTART)
  LcpSolverKind lcp_solver = LcpSolverKind::kAuto;
  std::string validate() const;
};

enum class EventCause { kStart, kGuard, kSwitch, kBreakpoint, kResume };
const char* to_string(EventCause cause);

// One mode change of one pair, or (pair = −1) a state jump where no pair changed mode (a source
// step, a switch closing onto a charged capacitor...).
struct EventRecord {
  double t = 0;
  int pair = -1;
  bool on = false;  // the new state (true: off → on)
  EventCause cause = EventCause::kGuard;
  double impulse = 0;     // δλ⁺ of the pair in a jump (A·s for a diode), else 0
  int jump_unknown = -1;  // the unknown of x with the largest jump (−1: no jump)
  double jump_from = 0, jump_to = 0;
};

struct FallbackInterval {
  double t_begin = 0, t_end = 0;
  long events = 0;        // events in the window that triggered it
  double singular_h = 0;  // > 0: triggered by a stage matrix singular at this step, not by Zeno
};

struct EventStats {
  long steps = 0;         // accepted steps (a step doubling counts once)
  long rejected = 0;      // steps rejected by the error control
  long events = 0;        // event instants (guard crossings, switch flips)
  long mode_changes = 0;  // pair mode changes (rows of the event log)
  long selections = 0;    // mode-selection MLCPs
  long jumps = 0;         // state jumps
  long refinements = 0;   // step-map evaluations spent locating events
  long radau_steps = 0;   // Radau step solves of any size
  long factorizations = 0;
  long fallback_steps = 0;  // θ-scheme steps over fallback intervals
  std::vector<FallbackInterval> fallbacks;
};

// How a run ended, in the status vocabulary of solvers/status.hpp.
struct EventOutcome {
  Status status = Status::kSolved;
  std::string message;     // on failure: what went wrong
  std::vector<int> pairs;  // on failure: the pairs involved
  double t = 0;            // on failure: where

  bool ok() const { return has_answer(status); }
};

// The pattern of every mode's J (union over modes; event_select.cpp).
SparseMatrix event_j_pattern(const Mlcs& mlcs);

class EventDriven {
 public:
  // Receives every output point in increasing time with x' there (the derivative of the
  // collocation polynomial; 0 at the start); returning false stops the run.
  using Observer = std::function<bool(double t, const Eigen::VectorXd& x,
                                      const Eigen::VectorXd& lambda, const Eigen::VectorXd& xdot)>;

  EventDriven(const Mlcs& mlcs, const EventOptions& options);
  ~EventDriven();
  EventDriven(const EventDriven&) = delete;
  EventDriven& operator=(const EventDriven&) = delete;

  // Runs from the initial point (x0, q0 = E x0 unless UIC data say otherwise, λ0, mode guess)
  // to t_stop. Points go to `observer`; events to events().
  EventOutcome run(const Eigen::VectorXd& x0, const Eigen::VectorXd& q0,
                   const Eigen::VectorXd& lambda0, std::vector<char> mode0,
                   const Observer& observer);

  const std::vector<EventRecord>& events() const { return events_; }
  EventStats stats() const;
  double t() const { return t_; }
  const std::vector<char>& mode() const { return mode_; }  // the mode in force (1 = on)
  // The last mode selection that moved the state (to t + 2δ): how many there were so far, and
  // the mode of each of its two backward-Euler steps (they differ when a change at the instant
  // causes another: a diode's turn-off that hands its current to a path it opens).
  long applied_selections() const { return applied_selections_; }
  const std::array<std::vector<char>, 2>& selection_modes() const { return selection_modes_; }

 private:
  struct Crossing {
    int guard = -1;  // index into the guard list (pairs first, then switches)
    double s = 2;    // estimated zero, as a fraction of the step
    double hi = 1;   // a point of the step where the guard is below −tol
  };

  // event_select.cpp
  void set_mode_system();
  void forcing(double t, Eigen::VectorXd& f) const;
  // Selects the mode at t from the state z_ (E x = q_minus before any jump); `before` is the
  // mode before the event (switch flips already applied to mode_). Moves to t + 2δ when the
  // mode or the state changed.
  bool select(double t, EventCause cause, const std::vector<char>& before,
              const Eigen::VectorXd& q_minus, EventOutcome& outcome);
  void record_changes(double t, const std::vector<char>& before, EventCause cause, int jump_k,
                      const Eigen::VectorXd& x_minus, const Eigen::VectorXd& x_jump,
                      const Eigen::VectorXd& lambda_jump);

  // event_guards.cpp
  void guard_values(const Eigen::VectorXd& z, Eigen::VectorXd& g) const;
  void update_scales(const Eigen::VectorXd& z);
  Crossing first_crossing(const RadauStep& seg) const;
  // Refines a crossing of `seg` on the step map: the event time (−1: no crossing after all);
  // `at_event` receives the step from seg's start to it.
  double locate(const RadauStep& seg, Crossing c, RadauStep& at_event);

  // One attempted step from t_: its length, where it may end (a breakpoint or t_stop), its
  // segments (the full step, or the two half steps of the error control) and the next step.
  struct Trial {
    double h = 0, limit = 0, h_next = 0;
    bool to_limit = false;
    std::vector<const RadauStep*> segs;
  };
  enum class Next { kGo, kRetry, kStop };  // go on, try again from t_, stop the run

  // event_driven.cpp: the loop. begin(): the initial point and mode; plan_step(): the trial's
  // length and limit (false: t_ is at t_stop); attempt_step(): the Radau steps and the error
  // control (kRetry: rejected, or a θ-scheme interval was run); accept_step(): output, the first
  // guard crossing (handle_event(): the event's mode selection and Zeno check), else the
  // advance and a breakpoint's mode selection.
  bool begin(const Eigen::VectorXd& x0, const Eigen::VectorXd& q0, const Eigen::VectorXd& lambda0,
             std::vector<char> mode0, EventOutcome& outcome);
  bool plan_step(double h, Trial& trial) const;
  Next attempt_step(double& h, Trial& trial, EventOutcome& outcome);
  Next accept_step(const Trial& trial, double& h, EventOutcome& outcome);
  // The first crossing of the step: c located, then any other guard that crossed before it.
  double locate_first(const RadauStep& seg, Crossing& c, RadauStep& at);
  bool handle_event(double te, const RadauStep& at, const Crossing& c, EventOutcome& outcome);
  bool radau(double t0, double h, const Eigen::VectorXd& z0, RadauStep& out);
  double error_norm(const Eigen::VectorXd& z0, const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                    bool algebraic) const;
  // A point: (x, λ) = z, x' = the head of zdot (empty: 0).
  bool emit(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zdot);
  // The end of a step segment, or t within it.
  bool emit_end(const RadauStep& seg, double t);
  bool emit_grid(const RadauStep& seg, double t_until);
  // Calls `at` with every grid point in (t_from, t_until) not emitted yet.
  bool emit_grid_points(double t_from, double t_until, const std::function<bool(double)>& at);
  // event_fallback.cpp. The grid points of a θ-scheme step (its dense output), up to t_until.
  bool emit_grid(const ThetaStepper& stepper, double t_until);
  bool zeno(double t);
  // The θ-scheme from t_ over `length` (Zeno: grown when intervals follow each other) with steps
  // of h0; `singular_h` > 0 when a singular stage matrix at that step asked for it (the steps are
  // then error-controlled, h0 the first).
  bool fallback(double length, double h0, double singular_h, EventOutcome& outcome);
  bool zeno_fallback(EventOutcome& outcome);

  const Mlcs& mlcs_;
  EventOptions opt_;
  int n_, m_, nz_;
  double span_;
  SparseMatrix m_mat_, j_pattern_, j_;
  std::vector<char> differential_;  // x_k with a nonzero column of E
  std::unique_ptr<RadauIIA> radau_;
  std::map<std::vector<char>, long> mode_ids_;
  // The mode selection: backward Euler over δ.
  SparseMatrix select_pattern_;
  KluSymbolic select_symbolic_;
  std::unique_ptr<ModeMlcp> select_;
  double delta_ = 0;
  long applied_selections_ = 0;
  std::array<std::vector<char>, 2> selection_modes_;

  double t_ = 0;
  Eigen::VectorXd z_;  // (x, λ) at t_
  std::vector<char> mode_;
  std::vector<char> switch_on_;
  Eigen::VectorXd z_scale_, guard_scale_;  // peaks of |z_k|, of each guard's quantities
  Eigen::VectorXd guard_tol_;
  std::vector<EventRecord> events_;
  std::deque<double> recent_;  // times of the latest events (Zeno detection)
  Observer observer_;
  double next_grid_ = 0;
  double last_fallback_end_ = -1e300, fallback_scale_ = 1;  // growing Zeno intervals
  long grid_k_ = 0;
  double last_emitted_ = -1e300;
  EventStats stats_;
  RadauStep full_, half_[2];  // the attempted step and its two halves
  Eigen::VectorXd g_;         // guards at an event
  mutable Eigen::VectorXd s_, b_, scratch_, rate_;
  Eigen::VectorXd no_rate_;    // empty: x' = 0
  Eigen::VectorXd zero_rate_;  // x' = 0 for the observer
};

}  // namespace nsspice::solvers
