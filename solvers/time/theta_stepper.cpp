#include "solvers/time/theta_stepper.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace nsspice::solvers {
namespace {
// Breakpoints closer than this fraction of h to a step end are taken as that step end.
constexpr double kSnap = 1e-9;
// Breakpoints and switch crossings closer than this fraction of h to a step end are taken as
// that step end (no sliver steps).
constexpr double kBreakpointSnap = 1e-6;
// A mode change is followed by a restart when some component of y moved by more than this
// factor times its previous increment (a jump, not smooth motion).
constexpr double kJumpFactor = 4.0;
// A restart step after a breakpoint is impulsive when its |y| exceeds the next step's by this.
constexpr double kImpulseFactor = 10.0;
constexpr double kVisibleJump = 1e-6;  // a state jump below this share of the state's peak is noise
// Circuits with at least this many complementarity pairs that K keeps as unknowns (pairs it does
// not condense, mode_structure.hpp) solve their steps through the factor of W when few pairs are
// active (ModeMlcp::enable_reduced): K(σ) has n + (those pairs) unknowns, W n.
constexpr int kReducedMinPairs = 16;
// The mode-system solvers of the step sizes met (solver_for): at most kMaxSolvers, and at most
// kMinSolvers while their own structures (ModeMlcp::bytes, O(nnz) each) exceed kSolverBytes —
// with error control nearly every step has a size of its own, so that the count, not reuse,
// would set the memory of a large circuit.
constexpr int kMaxSolvers = 256;
// Fixed steps: rounds of flips at a step's start (and re-solves) before its crossings are taken
// as they are (a switch chattering at its threshold).
constexpr int kStartFlipRounds = 8;
constexpr int kMinSolvers = 4;
// Of those, at most this many for sizes off the ladder (is_ladder_size): a location's trials and
// the steps cut at a breakpoint are mostly met once (some recur period after period: a cut at the
// same source corner), and without a queue of their own they push out the solvers (and their
// factorizations) of the ladder sizes, which recur.
constexpr int kOddSolvers = 32;
constexpr double kSolverBytes = 128.0 * 1024 * 1024;
// Some component of `first` exceeds kImpulseFactor times the same component of `later`.
bool dwarfs(const Eigen::VectorXd& first, const Eigen::VectorXd& later) {
  const double floor = 1e-12 * first.lpNorm<Eigen::Infinity>();
  for (Eigen::Index i = 0; i < first.size(); ++i)
    if (std::abs(first[i]) > kImpulseFactor * (std::abs(later[i]) + floor)) return true;
  return false;
}

}  // namespace

std::string ThetaOptions::validate() const {
  if (!(theta >= 0.5 && theta <= 1.0))
    return fmt::format("theta must be in [0.5, 1], got {}", theta);
  if (!(h > 0) || !std::isfinite(h))
    return fmt::format("the time step must be positive, got {}", h);
  if (!(t_stop > t_start)) return "the stop time must be after the start time";
  if (restart_steps < 1) return "restart_steps must be at least 1";
  if (restart_substeps < 1) return "restart_substeps must be at least 1";
  if (cache_capacity < 2) return "the factorization cache needs at least 2 entries";
  return {};
}

namespace {

// The pattern of K(σ) for every σ (all step sizes), and W's (G + E: the pattern of G + E/(θh)).
SparseMatrix w_pattern_of(const Mlcs& m) {
  SparseMatrix w = m.G + m.E;
  w.makeCompressed();
  return w;
}
// The circuit's pairs that K(σ) keeps as unknowns (not condensed).
int pairs_in_k(const Mlcs& m) {
  const std::vector<char> condensed = condensed_pairs(m.D, m.C_off);
  return static_cast<int>(std::count(condensed.begin(), condensed.end(), 0));
}
SparseMatrix mode_pattern_of(const Mlcs& m, const SparseMatrix& w_pattern) {
  return mode_matrix_pattern(w_pattern, m.B, m.C, m.D, m.C_off);
}

}  // namespace

StepperAnalyses::StepperAnalyses(const Mlcs& mlcs) {
  const SparseMatrix w_pattern = w_pattern_of(mlcs);
  mode.analyze(mode_pattern_of(mlcs, w_pattern));
  if (pairs_in_k(mlcs) >= kReducedMinPairs && w.analyze(w_pattern) != LuStatus::kOk)
    w = KluSymbolic();
}

ThetaStepper::ThetaStepper(const Mlcs& mlcs, const ThetaOptions& options)
    : mlcs_(mlcs), options_(options) {
  const SparseMatrix w_pattern = w_pattern_of(mlcs_);
  pattern_ = mode_pattern_of(mlcs_, w_pattern);
  const bool reduced = pairs_in_k(mlcs_) >= kReducedMinPairs;
  const StepperAnalyses* shared = options_.analyses;
  shared_analysis_ =
      shared != nullptr && shared->mode.fits(pattern_) && (!reduced || shared->w.fits(w_pattern));
  if (shared_analysis_)
    symbolic_ = shared->mode.share();
  else
    symbolic_.analyze(pattern_);
  structure_ = std::make_unique<ModeStructure>(w_pattern, mlcs_.B, mlcs_.C, mlcs_.D, mlcs_.C_off,
                                               mlcs_.forced);
  ++stats_.mode_structures;
  stats_.structure_bytes = structure_->bytes();
  e_rows_ = mlcs_.E;
  g_rows_ = mlcs_.G;
  e_rows_.makeCompressed();
  g_rows_.makeCompressed();
  init_kinks();
  if (reduced) {
    if (shared_analysis_)
      w_symbolic_ = shared->w.share();
    else if (w_symbolic_.analyze(w_pattern) != LuStatus::kOk)
      w_symbolic_ = KluSymbolic();
  }
}

bool ThetaStepper::is_ladder_size(double theta_h) const {
  auto on_ladder = [](double ratio) {
    const double k = std::log2(ratio) * ErrorEstimator::kLadderSteps;
    return std::abs(k - std::round(k)) < 1e-6;
  };
  return on_ladder(theta_h) || on_ladder(theta_h / options_.h);
}

ModeMlcp& ThetaStepper::solver_for(double theta_h) {
  // Step sizes that differ by rounding only (a cut at a crossing, a breakpoint reached by
  // accumulated t + h) share one solver: the key is θh's exponent and the top 30 bits of its
  // mantissa, rounded (θh > 0, so the bits order as the values do), so sizes share within
  // 2^-30 ≈ 9.3e-10 of themselves, whatever their scale (the key was θh in units of 2^-30 of
  // the first step: a 1e-19 s sliver then shared a solver with sizes 0.8 % away).
  const auto bits = std::bit_cast<std::uint64_t>(theta_h);
  const auto key = static_cast<long long>((bits + (std::uint64_t{1} << 21)) >> 22);
  ++solver_clock_;
  if (last_entry_ != nullptr) {
    const double bytes = last_entry_->solver->bytes();
    solver_bytes_ += bytes - last_entry_->bytes;
    last_entry_->bytes = bytes;
  }
  auto it = solvers_.find(key);
  if (it != solvers_.end()) {
    SolverEntry& e = it->second;
    e.last_use = solver_clock_;
    std::list<long long>& queue = e.odd ? odd_queue_ : ladder_queue_;
    queue.splice(queue.end(), queue, e.queue);
    last_entry_ = &e;
    solver_theta_h_ = e.theta_h;
    return *e.solver;
  }
  // A new solver's base for singular guesses: the last solver's (ModeMlcp::seed_base), copied
  // before that solver may be the one retargeted below.
  const std::vector<char> base_hint =
      last_entry_ != nullptr ? last_entry_->solver->base_mode() : std::vector<char>();
  last_entry_ = nullptr;
  SparseMatrix w = mlcs_.G + mlcs_.E * (1.0 / theta_h);
  w.makeCompressed();
  const bool odd = !is_ladder_size(theta_h);
  std::unique_ptr<ModeMlcp> solver;
  if (odd && static_cast<int>(odd_queue_.size()) >= kOddSolvers) {
    // The oldest odd step size's solver serves this one (ModeMlcp::retarget): odd sizes are met
    // once each (a location's trials, cut steps), and a solver built for each would cost its
    // allocations every time.
    auto node = solvers_.extract(odd_queue_.front());
    odd_queue_.pop_front();
    solver_bytes_ -= node.mapped().bytes;
    solver = std::move(node.mapped().solver);
    solver->retarget(w);
    ++stats_.retargeted_solvers;
  } else {
    solver = std::make_unique<ModeMlcp>(*structure_, w, symbolic_, options_.cache_capacity,
                                        &factor_budget_);
    LcpPolicy policy;
    policy.force = options_.lcp_solver;
    solver->set_lcp_policy(policy);
    solver->set_block_flip(options_.block_flip);
    if (w_symbolic_.analyzed()) solver->enable_reduced(w_symbolic_);
    stats_.max_solver_bytes = std::max(stats_.max_solver_bytes, solver->bytes());
  }
  if (!base_hint.empty()) solver->seed_base(base_hint);
  attach(*solver, theta_h);
  const double bytes = solver->bytes();
  evict_solvers(bytes, odd);
  ++stats_.step_solvers;
  if (odd) ++stats_.odd_step_solvers;
  stats_.max_live_solvers =
      std::max(stats_.max_live_solvers, static_cast<long>(solvers_.size()) + 1);
  std::list<long long>& queue = odd ? odd_queue_ : ladder_queue_;
  queue.push_back(key);
  SolverEntry& e = solvers_[key];
  e = SolverEntry{std::move(solver), solver_clock_, bytes, odd, std::prev(queue.end()), theta_h};
  solver_bytes_ += bytes;
  last_entry_ = &e;
  solver_theta_h_ = theta_h;
  return *e.solver;
}

void ThetaStepper::drop_oldest_solver(bool odd_only) {
  auto last_use = [this](const std::list<long long>& queue) {
    return queue.empty() ? std::numeric_limits<long>::max()
                         : solvers_.find(queue.front())->second.last_use;
  };
  std::list<long long>& queue =
      odd_only || last_use(odd_queue_) < last_use(ladder_queue_) ? odd_queue_ : ladder_queue_;
  auto it = solvers_.find(queue.front());
  queue.pop_front();
  solver_bytes_ -= it->second.bytes;
  retire(*it->second.solver);
  solvers_.erase(it);
}

void ThetaStepper::evict_solvers(double new_bytes, bool odd) {
  // Odd step sizes (breakpoints, crossings, a location's trials) each get a solver: keep at most
  // kOddSolvers of them, at most kMaxSolvers in all, and while their structures exceed
  // kSolverBytes at most kMinSolvers (their counts are kept; their factors count against the
  // run's one FactorBudget).
  if (odd && static_cast<int>(odd_queue_.size()) >= kOddSolvers) drop_oldest_solver(true);
  while (!solvers_.empty() && (static_cast<int>(solvers_.size()) >= kMaxSolvers ||
                               (static_cast<int>(solvers_.size()) >= kMinSolvers &&
                                new_bytes + solver_bytes_ > kSolverBytes)))
    drop_oldest_solver(false);
}

void ThetaStepper::attach(ModeMlcp& solver, double theta_h) {
  if (!observer_) return;
  solver.set_lcp_observer(
      [this, theta_h](const StepLcp& lcp) {
        if (!jump_solve_) observer_(lcp, theta_h);
      },
      capture_);
}

void ThetaStepper::set_lcp_capture(bool capture) {
  if (capture == capture_) return;
  capture_ = capture;
  for (auto& [key, entry] : solvers_) attach(*entry.solver, entry.theta_h);
}

void ThetaStepper::retire(const ModeMlcp& solver) { add_counts(solver, retired_); }

void ThetaStepper::add_counts(const ModeMlcp& solver, RunStats& s) {
  const ModeMlcpStats& m = solver.stats();
  s.lemke_calls += m.lemke_calls;
  s.pivots += m.pivots;
  for (size_t k = 0; k < m.methods.size(); ++k) s.lcp_methods[k] += m.methods[k];
  s.mode_solves += m.mode_solves;
  s.factorizations += solver.cache().factorizations() + m.w_factorizations;
  s.refactorizations += solver.cache().refactorizations();
  s.cache_hits += solver.cache().stats().hits;
  s.cache_misses += solver.cache().stats().misses;
  s.max_dense_order = std::max(s.max_dense_order, m.max_dense_order);
  s.dense_allocations += m.dense_allocations;
  s.low_rank_modes += m.low_rank_modes;
  s.low_rank_solves += m.low_rank_solves;
  s.held_solves += m.held_solves;
  s.transform_hits += m.transform_hits;
  s.answer_reuses += m.answer_reuses;
  s.singular_answers += m.singular_answers;
}

void ThetaStepper::start(const Eigen::VectorXd& x0, const Eigen::VectorXd& q0,
                         const Eigen::VectorXd& lambda0, std::vector<char> mode0) {
  t_ = t_next_ = options_.t_start;
  grid_origin_ = t_;
  grid_count_ = 0;
  next_breakpoint_ = -std::numeric_limits<double>::infinity();
  x_ = x0;
  q_ = q0;
  y_ = Eigen::VectorXd::Zero(mlcs_.n);
  y_prev_ = y_;
  xdot_ = xdot_prev_ = xdot_pp_ = y_;
  hist_reset_ = false;
  lambda_ = lambda0;
  w_ = mlcs_.C * x_ + mlcs_.D * lambda_ + mlcs_.d;
  mode_ = std::move(mode0);
  mode_.resize(static_cast<size_t>(mlcs_.m), 0);
  switch_on_.clear();
  for (const auto& sw : mlcs_.switches) {
    const double s = sw.c.dot(x_);
    const bool before = options_.switch_state_from_mode ? mode_[static_cast<size_t>(sw.pair)] != 0
                                                        : sw.initially_on;
    const bool on = sw.next_state(s, before);
    switch_on_.push_back(on);
    mode_[static_cast<size_t>(sw.pair)] = on;
  }
  mlcs_.eval_b(t_, s_, b_);
  restart_.start(options_.restart_steps);
  pending_jump_.reset();
  jumps_.clear();
  q_prev_ = q_prev2_ = q_;
  h_prev_ = h_prev2_ = 0;
  t_prev_ = t_pp_ = t_;
  x_prev_ = x_pp_ = x_;
  lambda_prev_ = lambda_pp_ = lambda_;
  phase_len_ = 1;
  phase_break_ = false;
  if (options_.settle_switches) settle_switches();
  if (options_.adaptive) {
    span_ = options_.t_stop - options_.t_start;
    estimator_ = std::make_unique<ErrorEstimator>(
        mlcs_.E,
        options_.atol.size() == mlcs_.n ? options_.atol : Eigen::VectorXd::Constant(mlcs_.n, 1e-6),
        options_.reltol);
    estimator_->restart(t_, x_);
    h_next_ = options_.h;
    h_scale_ = h_after_event_ = options_.h;
    recent_events_.clear();
    fallback_left_ = 0;
    switch_of_pair_.assign(static_cast<size_t>(mlcs_.m), -1);
    for (size_t k = 0; k < mlcs_.switches.size(); ++k)
      switch_of_pair_[static_cast<size_t>(mlcs_.switches[k].pair)] = static_cast<int>(k);
  }
}

void ThetaStepper::settle_switches() {
  // UIC data fix the states but not the algebraic unknowns (a switch control driven through a
  // resistor is 0 in x0): the states at t0⁺ follow from a vanishing backward-Euler step
  // (G + E/δ) x⁺ − B λ⁺ = b(t0) + q0/δ, repeated until no switch changes.
  if (mlcs_.switches.empty()) return;
  const double delta = 1e-9 * (options_.t_stop - options_.t_start);
  ModeMlcp& solver = solver_for(delta);
  const double delta_used = solver_theta_h_;
  for (int round = 0; round < 8; ++round) {
    mlcs_.eval_b(t_, s_, b_next_);
    r_ = b_next_ + q_ / delta_used;
    std::vector<char> mode = mode_;
    if (!ok(solver.solve(r_, mlcs_.d, mode, x_new_, lambda_new_, w_new_))) return;
    bool changed = false;
    for (size_t k = 0; k < mlcs_.switches.size(); ++k) {
      const auto& sw = mlcs_.switches[k];
      const bool on = sw.next_state(sw.c.dot(x_new_), switch_on_[k]);
      if (on == static_cast<bool>(switch_on_[k])) continue;
      switch_on_[k] = on;
      mode_[static_cast<size_t>(sw.pair)] = on;
      changed = true;
    }
    if (!changed) return;
  }
}

void ThetaStepper::interpolate(double t, Eigen::VectorXd& x, Eigen::VectorXd& lambda,
                               Eigen::VectorXd& xdot) const {
  const double t1 = t_prev_, t2 = t_;
  if (phase_len_ >= 3 && t_pp_ < t1) {
    // Lagrange basis on (t_pp, t_prev, t).
    const double t0 = t_pp_;
    const double l0 = (t - t1) * (t - t2) / ((t0 - t1) * (t0 - t2));
    const double l1 = (t - t0) * (t - t2) / ((t1 - t0) * (t1 - t2));
    const double l2 = (t - t0) * (t - t1) / ((t2 - t0) * (t2 - t1));
    x = l0 * x_pp_ + l1 * x_prev_ + l2 * x_;
    lambda = l0 * lambda_pp_ + l1 * lambda_prev_ + l2 * lambda_;
    xdot = l0 * xdot_pp_ + l1 * xdot_prev_ + l2 * xdot_;
    return;
  }
  const double a = t2 > t1 ? (t - t1) / (t2 - t1) : 1.0;
  x = (1 - a) * x_prev_ + a * x_;
  lambda = (1 - a) * lambda_prev_ + a * lambda_;
  // The first step of a phase (with fixed steps longer than the output interval): its start
  // point is the old branch's, x' there is not this branch's; the step's own slope instead.
  xdot = phase_len_ >= 2 ? Eigen::VectorXd((1 - a) * xdot_prev_ + a * xdot_)
         : t2 > t1       ? Eigen::VectorXd((x_ - x_prev_) / (t2 - t1))
                         : xdot_;
}

void ThetaStepper::update_xdot(double t_next, double h_eff, double theta) {
  if (be_substeps_ > 0) {
    // Backward Euler: the last substep's difference quotient.
    const bool first = inner_.empty();
    const double t_s = first ? t_ : inner_.back().first;
    xdot_new_ = (x_new_ - (first ? x_ : inner_.back().second)) / (t_next - t_s);
  } else {
    xdot_new_ =
        ((x_new_ - x_) / h_eff - (1.0 - theta) * (hist_reset_ ? xdot_hist_ : xdot_)) / theta;
  }
}

MlcpOutcome ThetaStepper::attempt(double t_next, std::vector<char>& mode, bool fixed) {
  const double h_eff = t_next - t_;
  const double theta = restart_.theta(options_.theta);
  mlcs_.eval_b(t_next, s_, b_next_);
  MlcpOutcome outcome;
  inner_.clear();
  if (!options_.adaptive) kink_step_ = false;  // (adaptive steps: set by step_adaptive)
  if (theta == 1.0) {
    // Backward Euler: the scheme itself (θ = 1, one step) or a restart (substeps).
    outcome =
        backward_euler(t_next, options_.theta < 1.0 ? options_.restart_substeps : 1, mode, fixed);
  } else {
    be_substeps_ = 0;
    ModeMlcp& solver = solver_for(theta * h_eff);
    r_ = b_next_ + q_ / solver_theta_h_ + ((1.0 - theta) / theta) * y_;
    if (fixed) {
      if (!solver.solve_in_mode(r_, mlcs_.d, mode, x_new_, lambda_new_, w_new_)) {
        outcome.status = LcpStatus::kNumericalFailure;
        outcome.message = "the circuit equations of the step's mode are singular";
      }
      return outcome;
    }
    if (!options_.adaptive && !capture_) {
      // A step whose mode changes is redone by backward Euler (switching_step), so its own LCP
      // need not be solved: the mode check in the previous mode says whether it changes, and the
      // backward-Euler substeps find the new mode (one resolution instead of two, each costing
      // factorizations of K(σ) when many pairs switch). The θ-step's full answer is computed
      // only if the redo fails, or first when the change may be kinks only (kept, below).
      if (solver.solve_if_mode_holds(r_, mlcs_.d, mode, x_new_, lambda_new_, w_new_, outcome))
        return outcome;
    }
    if (!options_.adaptive && !capture_ && !has_kinks_) {
      std::vector<char> trial = mode;
      const MlcpOutcome redo = backward_euler(t_next, options_.restart_substeps, trial);
      if (ok(redo)) {
        ++stats_.switching_steps;
        outcome = redo;
        outcome.mode_changed = true;  // the previous mode does not hold over the step
        mode = std::move(trial);
        return outcome;
      }
      be_substeps_ = 0;
      inner_.clear();
    }
    outcome = solver.solve(r_, mlcs_.d, mode, x_new_, lambda_new_, w_new_);
    if (ok(outcome) && outcome.mode_changed && !options_.adaptive) {
      // A change of kink pairs only keeps its θ-step (theta_stepper.hpp, "Kinks").
      kink_step_ = kinks_only(mode) && !switch_crossed(x_new_);
      if (!kink_step_) switching_step(t_next, mode, outcome);
    }
  }
  return outcome;
}

bool ThetaStepper::attempt_in_old_mode(double t_next, MlcpOutcome& outcome, bool& solved) {
  const double h_eff = t_next - t_;
  const double theta = restart_.theta(options_.theta);
  mlcs_.eval_b(t_next, s_, b_next_);
  inner_.clear();
  outcome = MlcpOutcome{};
  if (theta == 1.0) {  // backward Euler (a restart's substeps): mode_ checked substep by substep
    bool held = true;
    std::vector<char> mode = mode_;
    outcome = backward_euler(t_next, options_.theta < 1.0 ? options_.restart_substeps : 1, mode,
                             true, &held);
    solved = ok(outcome);
    return solved && held;
  }
  be_substeps_ = 0;
  ModeMlcp& solver = solver_for(theta * h_eff);
  r_ = b_next_ + q_ / solver_theta_h_ + ((1.0 - theta) / theta) * y_;
  solved = true;
  if (solver.solve_if_mode_holds(r_, mlcs_.d, mode_, x_new_, lambda_new_, w_new_, outcome))
    return true;
  outcome = MlcpOutcome{};
  solved = solver.solve_in_mode(r_, mlcs_.d, mode_, x_new_, lambda_new_, w_new_);
  return false;
}

double ThetaStepper::switch_crossing(std::vector<int>& flips) const {
  // Fraction of the step at which the first switch control crosses its threshold (linear
  // interpolation of s = c·x between the step's ends: exact when the control is a piecewise
  // linear source, whose corners are breakpoints), and the switches that flip there.
  double first = 2.0;
  flips.clear();
  for (size_t k = 0; k < mlcs_.switches.size(); ++k) {
    const auto& sw = mlcs_.switches[k];
    const double s0 = sw.c.dot(x_), s1 = sw.c.dot(x_new_);
    const bool on = switch_on_[k];
    const bool turns = on ? s1 < sw.off_below : s1 > sw.on_above;
    if (!turns) continue;
    const double threshold = on ? sw.off_below : sw.on_above;
    const double frac = s1 == s0 ? 1.0 : std::clamp((threshold - s0) / (s1 - s0), 0.0, 1.0);
    if (frac < first - kSnap) flips.clear();
    if (frac <= first + kSnap) {
      first = std::min(first, frac);
      flips.push_back(static_cast<int>(k));
    }
  }
  return first;
}

MlcpOutcome ThetaStepper::step() { return options_.adaptive ? step_adaptive() : step_fixed(); }

MlcpOutcome ThetaStepper::step_fixed() {
  const double h = options_.h;
  // Times on a grid from the last breakpoint (t0 + n h, not accumulated t + h), so that
  // breakpoints on the grid are met exactly rather than one rounding error away.
  // Each time the double nearest to the decimal grid_origin_ + n h (decimal_grid.hpp).
  if (grid_.origin() != grid_origin_ || grid_.step() != h) grid_ = DecimalGrid(grid_origin_, h);
  double t_next = grid_.at(grid_count_ + 1);
  // The next breakpoint after t only changes once t has passed it: ask the sources again then.
  if (!(next_breakpoint_ > t_ + kBreakpointSnap * h))
    next_breakpoint_ = mlcs_.breakpoint_after(t_ + kBreakpointSnap * h);
  const double bp = next_breakpoint_;
  bool breakpoint = false;
  if (bp <= t_next + kBreakpointSnap * h) {
    t_next = bp;
    breakpoint = true;
  }
  if (t_next >= options_.t_stop - kBreakpointSnap * h) t_next = options_.t_stop;
  bool on_grid = !breakpoint;
  std::vector<char>& mode = mode_try_;
  mode = mode_;
  t_next_ = t_next;
  MlcpOutcome outcome = attempt(t_next, mode);
  if (!ok(outcome)) return outcome;
  // Switches driven by the circuit (or by sources between breakpoints): cut the step at the
  // first crossing, so that the state changes on a step boundary. A flip at the step's start
  // re-solves the step in the new state, whose other crossings inside the step are then looked
  // for again (otherwise each would be taken only at the next step's start: up to one step late,
  // and a cascade of such late flips along the carriers of a multilevel converter).
  std::vector<int> flips;
  std::vector<char> end_minus;  // the modes before a flip at the step's end (note_switch_flip)
  for (int round = 0; round < kStartFlipRounds; ++round) {
    const double frac = switch_crossing(flips);
    if (flips.empty()) break;
    const double t_cross = t_ + frac * (t_next - t_);
    const bool at_start = t_cross <= t_ + kBreakpointSnap * h;
    if (!at_start && t_cross < t_next - kBreakpointSnap * h) {
      ++stats_.cut_steps;
      on_grid = false;
      t_next = t_next_ = t_cross;
      mode = mode_;
      outcome = attempt(t_next, mode);
      if (!ok(outcome)) return outcome;
    }
    const std::vector<char> minus = at_start ? mode_ : mode;
    for (int k : flips) {
      switch_on_[k] = !switch_on_[k];
      mode[static_cast<size_t>(mlcs_.switches[k].pair)] = switch_on_[k];
      mode_[static_cast<size_t>(mlcs_.switches[k].pair)] = switch_on_[k];
      ++stats_.switch_events;
    }
    if (!at_start) {
      breakpoint = true;  // the topology changes here: restart as after a source corner
      end_minus = minus;
      break;
    }
    note_switch_flip(minus);
    // The control had reached its threshold at the step's start (to rounding): the whole step
    // belongs to the new state.
    restart_.flip_at_step_start(options_.restart_steps);
    outcome = attempt(t_next, mode);
    if (!ok(outcome)) return outcome;
  }
  const double h_eff = t_next - t_;
  const double theta = restart_.theta(options_.theta);
  if (breakpoint) ++stats_.breakpoints;
  accept_point(t_next, h_eff, theta, outcome, breakpoint, mode);
  if (!end_minus.empty()) note_switch_flip(end_minus);
  if (on_grid) {
    ++grid_count_;
  } else {
    grid_origin_ = t_;
    grid_count_ = 0;
  }
  return outcome;
}

void ThetaStepper::accept_point(double t_next, double h_eff, double theta,
                                const MlcpOutcome& outcome, bool breakpoint,
                                std::vector<char>& mode) {
  // The state jump at switches flipped at t_ (theta_jump.cpp), now that the step from there holds.
  if (pending_jump_)
    finish_switch_jump(mode, be_substeps_ > 0 ? h_eff / be_substeps_ : theta * h_eff);
  // y_{k+1} = B λ + b − G x: the algebraic equation at t_{k+1} (equal to the θ recurrence).
  Eigen::VectorXd& q_new = q_new_;
  Eigen::VectorXd& y_new = y_new_;
  charge_and_y(b_next_, lambda_new_, x_new_, q_new, y_new);
  update_xdot(t_next, h_eff, theta);
  account_restart(t_next, y_new, breakpoint, outcome.mode_changed && !kink_step_, theta);
  if (outcome.mode_changed && kink_step_) ++stats_.kink_steps;
  if (q_peak_.size() != q_new.size()) q_peak_ = Eigen::VectorXd::Zero(q_new.size());
  q_peak_ = q_peak_.cwiseMax(q_new.cwiseAbs());

  ++stats_.steps;
  if (outcome.mode_changed) ++stats_.mode_changes;
  if (outcome.status == LcpStatus::kInaccurate) ++stats_.inaccurate;
  stats_.max_residual = std::max(stats_.max_residual, outcome.residual);
  t_pp_ = t_prev_;
  t_prev_ = t_;
  x_pp_.swap(x_prev_);
  x_prev_.swap(x_);  // then x_ takes x_new_ below
  lambda_pp_.swap(lambda_prev_);
  lambda_prev_.swap(lambda_);
  // A new phase starts after a break: the point at the break may hold the values before an
  // algebraic jump (a switch flips there), so it does not take part in the interpolation.
  phase_len_ = (outcome.mode_changed && !kink_step_) || phase_break_ ? 1 : phase_len_ + 1;
  phase_break_ = breakpoint;
  t_ = t_next;
  x_.swap(x_new_);
  lambda_.swap(lambda_new_);
  w_.swap(w_new_);
  q_.swap(q_new);
  q_prev2_.swap(q_prev_);
  q_prev_.swap(q_new);  // the old q_
  h_prev2_ = h_prev_;
  h_prev_ = h_eff;
  y_prev_.swap(y_);
  y_.swap(y_new);
  xdot_pp_.swap(xdot_prev_);
  xdot_prev_.swap(xdot_);
  xdot_.swap(xdot_new_);
  hist_reset_ = false;
  b_.swap(b_next_);
  if (restart_.history_due()) {
    if (std::abs(h_prev_ - h_prev2_) <= kSnap * h_prev_) {
      y_ = (3.0 * q_ - 4.0 * q_prev_ + q_prev2_) / (2.0 * h_prev_);
      xdot_hist_ = (3.0 * x_ - 4.0 * x_prev_ + x_pp_) / (2.0 * h_prev_);
      hist_reset_ = true;
    } else if (options_.adaptive && h_prev2_ > 0) {
      // The same BDF2 derivative on unequal steps: q'(t_k) of the quadratic through the points.
      const double h1 = h_prev_, h2 = h_prev2_;
      y_ = (q_ - q_prev_) / h1 +
           (h1 / (h1 + h2)) * ((q_ - q_prev_) / h1 - (q_prev_ - q_prev2_) / h2);
      xdot_hist_ =
          (x_ - x_prev_) / h1 + (h1 / (h1 + h2)) * ((x_ - x_prev_) / h1 - (x_prev_ - x_pp_) / h2);
      hist_reset_ = true;
    }
  }
  mode_.swap(mode);
}

void ThetaStepper::charge_and_y(const Eigen::VectorXd& b, const Eigen::VectorXd& lambda,
                                const Eigen::VectorXd& x, Eigen::VectorXd& q,
                                Eigen::VectorXd& y) const {
  // The sums of q = E x and of y = b; y += B λ; y −= G x, each in the same order as the
  // column-major products (a column of B times λ_j = 0 adds nothing).
  y = b;
  const SparseMatrix& bm = mlcs_.B;
  for (int j = 0; j < bm.outerSize(); ++j) {
    const double lj = lambda[j];
    if (lj == 0.0) continue;
    for (SparseMatrix::InnerIterator it(bm, j); it; ++it) y[it.row()] += it.value() * lj;
  }
  const int n = static_cast<int>(x.size());
  q.resize(n);
  const int* eo = e_rows_.outerIndexPtr();
  const int* ei = e_rows_.innerIndexPtr();
  const double* ev = e_rows_.valuePtr();
  const int* go = g_rows_.outerIndexPtr();
  const int* gi = g_rows_.innerIndexPtr();
  const double* gv = g_rows_.valuePtr();
  const double* xp = x.data();
  for (int i = 0; i < n; ++i) {
    double qi = 0.0;
    for (int p = eo[i]; p < eo[i + 1]; ++p) qi += ev[p] * xp[ei[p]];
    q[i] = qi;
    double yi = y[i];
    for (int p = go[i]; p < go[i + 1]; ++p) yi += gv[p] * -xp[gi[p]];
    y[i] = yi;
  }
}

void ThetaStepper::switching_step(double t_next, std::vector<char>& mode, MlcpOutcome& outcome) {
  // Energy at a switch. Over a step in a fixed mode the θ = ½ balance is exact:
  //   V_{k+1} − V_k = −h x_{½}ᵀ G x_{½} + h x_{½}ᵀ b_{½} + h/4 (λ_kᵀ w_{k+1} + λ_{k+1}ᵀ w_k)
  // (V = ½ xᵀ E x), and the last term vanishes because each pair is on (w = 0) or off (λ = 0)
  // at both ends. Across a switch it is > 0: the averaged ideal device would deliver energy.
  // So a step whose mode changes is redone by backward-Euler substeps, whose pair terms
  // λ_{j+1}ᵀ w_{j+1} are 0: first order for that one step (as any step containing an event),
  // never creating energy.
  std::vector<char> trial = mode;
  const Eigen::VectorXd x = x_new_, lambda = lambda_new_, w = w_new_;
  const MlcpOutcome second = backward_euler(t_next, options_.restart_substeps, trial);
  if (!ok(second)) {  // keep the trapezoidal solution
    be_substeps_ = 0;
    inner_.clear();
    x_new_ = x;
    lambda_new_ = lambda;
    w_new_ = w;
    return;
  }
  ++stats_.switching_steps;
  mode = std::move(trial);
  outcome.status = second.status;
  outcome.residual = std::max(outcome.residual, second.residual);
}

MlcpOutcome ThetaStepper::backward_euler(double t_next, int substeps, std::vector<char>& mode,
                                         bool fixed, bool* held) {
  // q_{j+1} − q_j = h_s (B λ_{j+1} + b_{j+1} − G x_{j+1}),  h_s = (t_next − t)/substeps.
  const double h_s = (t_next - t_) / substeps;
  ModeMlcp& solver = solver_for(h_s);
  const double h_used = solver_theta_h_;  // h_s, or a size within rounding of it
  Eigen::VectorXd& q = be_q_;
  Eigen::VectorXd& b = be_b_;
  q = q_;
  MlcpOutcome total;
  std::vector<char>& start = be_start_;
  start = mode;
  be_substeps_ = substeps;
  inner_.clear();
  for (int j = 1; j <= substeps; ++j) {
    if (j < substeps) {
      mlcs_.eval_b(t_ + j * h_s, be_s_, b);
    } else {
      b = b_next_;
    }
    r_ = b + q / h_used;
    MlcpOutcome o;
    bool answered = !fixed;
    if (!fixed) {
      o = solver.solve(r_, mlcs_.d, mode, x_new_, lambda_new_, w_new_);
    } else if (held != nullptr && *held) {
      answered = solver.solve_if_mode_holds(r_, mlcs_.d, mode, x_new_, lambda_new_, w_new_, o);
      if (!answered) *held = false;
    }
    if (!answered && !solver.solve_in_mode(r_, mlcs_.d, mode, x_new_, lambda_new_, w_new_)) {
      o = MlcpOutcome{};
      o.status = LcpStatus::kNumericalFailure;
      o.message = "the circuit equations of the step's mode are singular";
    }
    if (!ok(o)) return o;
    if (j < substeps) inner_.emplace_back(t_ + j * h_s, x_new_);
    total.status = o.status == LcpStatus::kInaccurate ? o.status : total.status;
    total.residual = std::max(total.residual, o.residual);
    q.noalias() = mlcs_.E * x_new_;
  }
  total.mode_changed = mode != start;
  return total;
}

bool ThetaStepper::jump_in_substeps(double t_next) const {
  // Average derivative of each backward-Euler substep of the step to t_next: an impulse (state
  // jump) puts nearly all of Δq in the first substep, far above what any later substep sees,
  // and moves the state visibly against its magnitude over the run (a rounding-level Δq, the
  // residue of an interpolated crossing state over a substep cut to a sliver, is not one).
  if (inner_.empty()) return false;
  const size_t n = inner_.size() + 1;
  const auto t_at = [&](size_t j) { return j == 0 ? t_ : j < n ? inner_[j - 1].first : t_next; };
  const auto x_at = [&](size_t j) -> const Eigen::VectorXd& {
    return j == 0 ? x_ : j < n ? inner_[j - 1].second : x_new_;
  };
  const double h_first = t_at(1) - t_at(0);
  Eigen::VectorXd first = mlcs_.E * (x_at(1) - x_at(0)) / h_first;
  Eigen::VectorXd later = Eigen::VectorXd::Zero(first.size());
  for (size_t j = 1; j < n; ++j)
    later =
        later.cwiseMax((mlcs_.E * (x_at(j + 1) - x_at(j)) / (t_at(j + 1) - t_at(j))).cwiseAbs());
  for (Eigen::Index i = 0; i < first.size(); ++i) {
    const double peak = i < q_peak_.size() ? q_peak_[i] : 0.0;
    if (std::abs(first[i]) * h_first <= kVisibleJump * peak) first[i] = 0;
  }
  return dwarfs(first, later);
}

bool ThetaStepper::y_jumped(const Eigen::VectorXd& y_new) const {
  const double floor =
      1e-9 * std::max(y_.lpNorm<Eigen::Infinity>(), y_new.lpNorm<Eigen::Infinity>());
  for (Eigen::Index i = 0; i < y_new.size(); ++i) {
    if (std::abs(y_new[i] - y_[i]) > kJumpFactor * std::abs(y_[i] - y_prev_[i]) + floor)
      return true;
  }
  return false;
}

void ThetaStepper::account_restart(double t_next, const Eigen::VectorXd& y_new, bool breakpoint,
                                   bool mode_changed, double theta_eff) {
  if (restart_.step_taken()) ++stats_.restart_steps;
  // Impulse (state jump) in the first step after t0 or a breakpoint: within the step from its
  // backward-Euler substeps; for θ = 1 (one substep) from the first two steps' Δq/h.
  bool impulse = false;
  if (restart_.first_after_break()) {
    impulse = jump_in_substeps(t_next);
    restart_y_ = y_new;
  } else if (restart_.since_break == 2 && options_.theta == 1.0) {
    impulse = dwarfs(restart_y_, y_new.cwiseAbs());
  }
  if (impulse) {
    stats_.impulse_times.push_back(restart_.first_after_break() ? t_next_ : t_);
    // The point before the jump is not on the smooth branch: two more restart steps and the
    // BDF2 history from the three points after the jump.
    if (options_.theta < 1.0) restart_.extend(2);
  }
  if (breakpoint) {
    restart_.breakpoint(options_.restart_steps);
  } else if (mode_changed && options_.restart_on_jump && theta_eff < 1.0 && y_jumped(y_new)) {
    // y jumped at the switch (e.g. a capacitor put across a source): two backward-Euler steps,
    // then the trapezoidal history restarts from the BDF2 derivative of the three post-switch
    // points, y = (3q_{k} − 4q_{k−1} + q_{k−2})/(2h), accurate to O(h²): a backward-Euler
    // derivative (O(h)) would leave a (−1)^k ringing of that size in the trapezoidal rule.
    restart_.extend(2);
  }
}

void ThetaStepper::add_counts_into(const RunStats& from, RunStats& s) {
  s.lemke_calls += from.lemke_calls;
  s.pivots += from.pivots;
  for (size_t k = 0; k < from.lcp_methods.size(); ++k) s.lcp_methods[k] += from.lcp_methods[k];
  s.mode_solves += from.mode_solves;
  s.factorizations += from.factorizations;
  s.refactorizations += from.refactorizations;
  s.cache_hits += from.cache_hits;
  s.cache_misses += from.cache_misses;
  s.max_dense_order = std::max(s.max_dense_order, from.max_dense_order);
  s.dense_allocations += from.dense_allocations;
  s.low_rank_modes += from.low_rank_modes;
  s.low_rank_solves += from.low_rank_solves;
  s.held_solves += from.held_solves;
  s.transform_hits += from.transform_hits;
  s.answer_reuses += from.answer_reuses;
  s.singular_answers += from.singular_answers;
}

RunStats ThetaStepper::stats() const {
  RunStats s = stats_;
  add_counts_into(retired_, s);
  for (const auto& [key, entry] : solvers_) add_counts(*entry.solver, s);
  s.factor_peak_bytes = factor_budget_.peak();
  s.factor_budget_bytes = factor_budget_.limit();
  return s;
}

}  // namespace nsspice::solvers
