// Autonomous periodic steady state: shooting with the period T as an unknown (circuit/pss.hpp,
// PssOptions::trigger; docs/theory.md §13, "Self-oscillating circuits").
//
// Every source is constant, so the circuit is autonomous and Φ_T (the event map over [0, T],
// pss_event_map.hpp) depends on T only through the length of the period. The orbit starts where
// the trigger signal s = γᵀx_D crosses the level L. The unknowns are (x_D, T), the equations
//
//   F(x_D, T) = Φ_T(x0)_D − x_D = 0    (periodicity, n_D equations)
//   g(x_D)    = γᵀx_D − L = 0           (the phase condition: the start lies on the trigger)
//
// and Newton's step solves the bordered system
//
//   [ J − I    ẋ_D(T) ] [ Δx ]     [ F ]
//   [ γᵀ       0      ] [ ΔT ] = − [ g ],
//
// J = ∂Φ_D/∂x_D the exact monodromy over [0, T] (the per-mode transition matrices and the
// saltation of every state-dependent switching instant: pss_linearize.hpp), ∂Φ_T/∂T = ẋ_D(T) the
// vector field at the period's end, E_DD ẋ_D = (b − G x + B λ)_D at (x(T), λ(T)). The step is
// damped: x_D + αΔx, T + αΔT for the first α of 1, ½, ¼, ⅛ that decreases max(‖F‖∞, |g|) with
// T + αΔT in [T/2, 2T]; when none does, 5 periods of plain transient from x(T).
// Accepted as the fixed-T orbit (pss_newton.cpp): one more period from x(T) returns within tol
// over the whole x; and the orbit must cross the trigger in the given direction at its start:
// γᵀẋ_D(0) > 0 rising, < 0 falling (not a tangency).
// The Floquet multipliers: J has the trivial multiplier 1 (along the flow, J ẋ = ẋ); the others
// are the eigenvalues of the Poincaré return map's Jacobian P' = (I − ẋ_D γᵀ / γᵀẋ_D) J, which
// maps ẋ_D to 0: that eigenvalue 0 is dropped.
// The first guess: the warm-up (the stabilization time, else the warm-up periods of the guessed
// T), then chunks of the guessed T observed until the signal crosses L twice in the direction:
// T0 = the time between the last two crossings, x0 the state linearly interpolated at the last.
#include "circuit/src/pss_trigger.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "circuit/src/initial_point.hpp"
#include "circuit/src/pss_event_map.hpp"

namespace nsspice::circuit::detail {
namespace {

constexpr double kFloor = 1e-9;           // V or A: the smallest scale of ‖x‖∞
constexpr int kFallbackPeriods = 5;       // plain periods where no damped step helps
constexpr int kObserveRound = 4;          // guessed periods observed per round for crossings
constexpr int kObserveMax = 40;           // guessed periods observed at most
constexpr double kUnstableMargin = 1e-6;  // |μ| above 1 + this: unstable
constexpr double kTangent = 1e-9;
constexpr double kPeriodRange = 8;  // T within [T0/8, 8 T0] of the first guess T0         // |γᵀẋ|
                                    // below this share of |γ|ᵀ|ẋ|: no crossing

double scale_of(const Eigen::VectorXd& x) { return std::max(x.cwiseAbs().maxCoeff(), kFloor); }

struct Sample {
  double t;
  Eigen::VectorXd x, lambda;
  std::vector<char> mode;
};

class AutonomousShooting {
 public:
  AutonomousShooting(const Circuit& c, const Assembled& a, const PssOptions& o,
                     const Eigen::VectorXd& gamma_d, PssResult& r)
      : c_(c), a_(a), o_(o), r_(r), d_(dynamic_columns(a.mlcs.E)), gamma_(gamma_d) {
    Eigen::MatrixXd e = Eigen::MatrixXd(a.mlcs.E), e_dd(d_.size(), d_.size());
    for (size_t i = 0; i < d_.size(); ++i)
      for (size_t k = 0; k < d_.size(); ++k) e_dd(i, k) = e(d_[i], d_[k]);
    e_dd_.compute(e_dd);
  }

  // The warm-up and the first guess (T0, x0), then Newton. r_ solved with the orbit, else failed
  // with the cause.
  void solve(PssState s) {
    if (!warm_up(s) || !first_guess(s)) return;
    newton(s);
  }

  long periods() const { return periods_ + (map_ ? map_->count() : 0); }
  // Exact Jacobians replaced by forward differences (no linearization), and the last reason.
  long fallbacks() const { return fallbacks_ + (map_ ? map_->fallbacks() : 0); }
  std::string fallback_reason() const {
    return map_ && map_->fallbacks() > 0 ? map_->fallback_reason() : fallback_reason_;
  }

 private:
  const Circuit& c_;
  const Assembled& a_;
  const PssOptions& o_;
  PssResult& r_;
  std::vector<Eigen::Index> d_;
  Eigen::VectorXd gamma_;  // over x_D
  Eigen::FullPivLU<Eigen::MatrixXd> e_dd_;
  std::unique_ptr<EventMap> map_;
  double map_period_ = 0;
  long periods_ = 0;    // periods run by maps already replaced
  long fallbacks_ = 0;  // their Jacobian fallbacks
  std::string fallback_reason_;
  double level_ = 0;
  double period_ = 0;
  double first_period_ = 0;  // T0 of the first guess

  bool fail(PssFailure why, std::string text) {
    r_.fail(why, std::move(text));
    return false;
  }
  bool fail(PssFailure why, const solvers::Summary& cause) {
    r_.fail(why, cause);
    return false;
  }

  // The event map over [0, t]; rebuilt when t changes.
  EventMap* map_for(double t) {
    if (map_ && map_period_ == t) return map_.get();
    if (map_) {
      periods_ += map_->count();
      fallbacks_ += map_->fallbacks();
      if (map_->fallbacks() > 0) fallback_reason_ = map_->fallback_reason();
    }
    PssOptions o = o_;
    o.period = t;
    const solvers::EventOptions eo = event_map_options(c_, o);
    map_.reset();
    map_period_ = t;
    if (std::string why = eo.validate(); !why.empty())
      fail(PssFailure::kInput, solvers::invalid_input("the event map: " + std::move(why)));
    else
      map_ = std::make_unique<EventMap>(a_, eo, o_.finite_difference);
    return map_.get();
  }

  bool run(double t, const PssState& from, PssState& to) {
    EventMap* map = map_for(t);
    if (map == nullptr) return false;
    if (const solvers::Summary run = map->run(from, to); !run.solved())
      return fail(PssFailure::kStep, run);
    return true;
  }

  double signal(const Eigen::VectorXd& x) const { return gamma_.dot(part(x, d_)); }

  // ẋ_D from E_DD ẋ_D = (b − G x + B λ)_D (every source constant: b at t = 0).
  Eigen::VectorXd rate(const PssState& s) const {
    Eigen::VectorXd b, scratch;
    a_.mlcs.eval_b(0, scratch, b);
    const Eigen::VectorXd y = b - a_.mlcs.G * s.x + a_.mlcs.B * s.lambda;
    return e_dd_.solve(part(y, d_));
  }

  bool warm_up(PssState& s) {
    const long chunks =
        o_.stabilization > 0
            ? std::max(1L, static_cast<long>(std::ceil(o_.stabilization / o_.period - 1e-9)))
            : o_.warmup_periods;
    PssState next;
    for (long k = 0; k < chunks; ++k) {
      if (!run(o_.period, s, next)) return false;
      s = std::move(next);
    }
    return true;
  }

  // The last two crossings of the level in the direction among the samples (indices of the
  // samples just after them), or fewer.
  std::vector<size_t> crossings(const std::vector<Sample>& samples) const {
    std::vector<size_t> out;
    const bool rising = o_.trigger->rising;
    for (size_t k = 1; k < samples.size(); ++k) {
      const double p = signal(samples[k - 1].x) - level_, q = signal(samples[k].x) - level_;
      if (rising ? (p < 0 && q >= 0) : (p > 0 && q <= 0)) out.push_back(k);
    }
    return out;
  }

  bool first_guess(PssState& s) {
    std::vector<Sample> samples;
    // lo, hi: the signal's range over everything observed; the default level is the middle of
    // the last round's range (the start-up's overshoot left behind).
    double offset = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
    const auto n = a_.mlcs.n, m = a_.mlcs.m;
    std::vector<size_t> cross;
    for (int round = 0; round * kObserveRound < kObserveMax; ++round) {
      PssState next;
      const size_t first = samples.size();
      for (int k = 0; k < kObserveRound; ++k, offset += o_.period) {
        if (!run(o_.period, s, next)) return false;
        s = std::move(next);
        for (const OrbitPoint& p : map_->orbit()) {
          samples.push_back({p.t + offset, p.z.head(n), p.z.tail(m), p.mode});
          lo = std::min(lo, signal(samples.back().x));
          hi = std::max(hi, signal(samples.back().x));
        }
      }
      const auto [low, high] = std::minmax_element(
          samples.begin() + static_cast<std::ptrdiff_t>(first), samples.end(),
          [&](const Sample& a, const Sample& b) { return signal(a.x) < signal(b.x); });
      level_ =
          o_.trigger->level_given ? o_.trigger->level : 0.5 * (signal(low->x) + signal(high->x));
      cross = crossings(samples);
      if (cross.size() >= 2) break;
    }
    r_.trigger_level = level_;
    if (cross.size() < 2)
      return fail(PssFailure::kNoCrossing,
                  fmt::format("no crossing: {} does not cross {:g} {} twice in {:g} s after the "
                              "warm-up (it ranges over [{:.6g}, {:.6g}] there): the circuit does "
                              "not oscillate from its initial point, or the level is outside the "
                              "signal's range, or the warm-up (--tstab, TSTAB) or the guessed "
                              "period {:g} s is far too short",
                              o_.trigger->signal, level_, o_.trigger->rising ? "rising" : "falling",
                              kObserveMax * o_.period, lo, hi, o_.period));
    const size_t k = cross.back(), j = cross[cross.size() - 2];
    const auto at = [&](size_t i) {
      const Sample &p = samples[i - 1], &q = samples[i];
      const double u = (level_ - signal(p.x)) / (signal(q.x) - signal(p.x));
      return std::pair{p.t + u * (q.t - p.t), Sample{0, p.x + u * (q.x - p.x), q.lambda, q.mode}};
    };
    const auto [tk, xk] = at(k);
    period_ = first_period_ = tk - at(j).first;
    s = {xk.x, xk.lambda, samples[k].mode};
    return true;
  }

  double norm(const PssState& from, const PssState& to) const {
    const double f = (part(to.x, d_) - part(from.x, d_)).cwiseAbs().maxCoeff();
    return std::max(f, std::abs(signal(from.x) - level_));
  }

  void newton(PssState s);
  bool step(PssState& s, PssState& out, const Eigen::VectorXd& delta, double dt);
  // No damped step decreases the residual (the mode sequence changes near x): plain periods.
  bool plain_periods(PssState& s, PssState& out);
  bool accept(const PssState& start);
  void no_convergence(const std::vector<std::string>& sequences);
};

void AutonomousShooting::newton(PssState s) {
  PssState out;
  std::vector<std::string> sequences;
  if (!run(period_, s, out)) return;
  for (int it = 0; it <= o_.max_newton; ++it) {
    const double rel = norm(s, out) / scale_of(out.x);
    r_.history.push_back(rel);
    r_.period_history.push_back(period_);
    sequences.push_back(map_->mode_sequence());
    if (rel <= o_.tol) {
      if (accept(out)) return;
      if (!r_.ok()) return;
      s = out;
      if (!run(period_, s, out)) return;
      continue;
    }
    if (it == o_.max_newton) break;
    Eigen::MatrixXd j;
    if (const solvers::Summary jac = map_->jacobian(s, out, j); !jac.solved()) {
      fail(PssFailure::kStep, jac);
      return;
    }
    const auto n = static_cast<Eigen::Index>(d_.size());
    Eigen::MatrixXd k = Eigen::MatrixXd::Zero(n + 1, n + 1);
    k.topLeftCorner(n, n) = j - Eigen::MatrixXd::Identity(n, n);
    k.topRightCorner(n, 1) = rate(out);
    k.bottomLeftCorner(1, n) = gamma_.transpose();
    Eigen::VectorXd rhs(n + 1);
    rhs << part(s.x, d_) - part(out.x, d_), level_ - signal(s.x);
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(k);
    if (!lu.isInvertible()) {
      fail(PssFailure::kNotIsolated,
           "the bordered Newton matrix [J − I, ẋ; γᵀ, 0] is singular: the trigger is tangent to "
           "the orbit, or a second Floquet multiplier is 1 (a family of orbits)");
      return;
    }
    const Eigen::VectorXd delta = lu.solve(rhs);
    ++r_.newton_iterations;
    if (!step(s, out, delta.head(n), delta[n])) return;
  }
  no_convergence(sequences);
}

bool AutonomousShooting::step(PssState& s, PssState& out, const Eigen::VectorXd& delta, double dt) {
  const double before = norm(s, out);
  double alpha = 1;
  for (int halving = 0; halving < 4; ++halving, alpha /= 2) {
    const double t = period_ + alpha * dt;
    if (t < 0.5 * period_ || t > 2 * period_) continue;
    if (t < first_period_ / kPeriodRange || t > first_period_ * kPeriodRange)
      return fail(PssFailure::kPeriod,
                  fmt::format("the period does not converge: Newton moves T from {:.6g} s (the "
                              "first guess, from the warm-up's crossings) to {:.6g} s, beyond a "
                              "factor {:g} (T → 0 is the trivial solution x(T) = x(0) of the "
                              "shooting equations)",
                              first_period_, t, kPeriodRange));
    PssState trial = displaced(s, d_, delta, alpha), trial_out;
    if (!run(t, trial, trial_out)) return false;
    if (norm(trial, trial_out) >= before) continue;
    std::tie(period_, s, out) = std::tuple{t, std::move(trial), std::move(trial_out)};
    return true;
  }
  return plain_periods(s, out);
}

bool AutonomousShooting::plain_periods(PssState& s, PssState& out) {
  r_.fallback_periods += kFallbackPeriods;
  for (int k = 0; k < kFallbackPeriods; ++k)
    if (s = out; !run(period_, s, out)) return false;
  return true;
}

bool AutonomousShooting::accept(const PssState& start) {
  PssState again;
  if (!run(period_, start, again)) return false;
  const double res = (again.x - start.x).cwiseAbs().maxCoeff() / scale_of(start.x);
  if (res > o_.tol) return false;
  Eigen::MatrixXd j;
  if (const solvers::Summary jac = map_->jacobian(start, again, j); !jac.solved())
    return fail(PssFailure::kStep, jac);
  r_.residual = res;
  r_.x0 = start.x;
  r_.lambda0 = start.lambda;
  r_.mode0 = start.mode;
  r_.period = period_;
  const Eigen::VectorXd f = rate(start);
  const double slope = gamma_.dot(f), size = gamma_.cwiseAbs().dot(f.cwiseAbs());
  const bool rising = o_.trigger->rising;
  if (!(rising ? slope > kTangent * size : slope < -kTangent * size))
    return fail(
        PssFailure::kPeriod,
        fmt::format("the orbit found (T = {:.9g} s) does not cross {} = {:g} {} at its "
                    "start: its rate there is {:.4g}/s",
                    period_, o_.trigger->signal, level_, rising ? "rising" : "falling", slope));
  const auto n = j.rows();
  const Eigen::MatrixXd p = (Eigen::MatrixXd::Identity(n, n) - f * gamma_.transpose() / slope) * j;
  const Eigen::VectorXcd mu = n > 0 ? Eigen::VectorXcd(p.eigenvalues()) : Eigen::VectorXcd();
  r_.multipliers.assign(mu.data(), mu.data() + mu.size());
  std::sort(r_.multipliers.begin(), r_.multipliers.end(),
            [](auto a, auto b) { return std::abs(a) > std::abs(b); });
  if (!r_.multipliers.empty()) r_.multipliers.pop_back();  // the 0 along the flow
  if (r_.multipliers.empty() || std::abs(r_.multipliers[0]) <= 1 + kUnstableMargin) return true;
  return fail(PssFailure::kUnstable,
              fmt::format("the orbit of period {:.9g} s is unstable: a Floquet multiplier has "
                          "modulus {:.4g} > 1, so a transient does not settle to it",
                          period_, std::abs(r_.multipliers[0])));
}

void AutonomousShooting::no_convergence(const std::vector<std::string>& sequences) {
  const size_t n = r_.period_history.size();
  const size_t from = n > 4 ? n - 4 : 0;
  std::string periods;
  for (size_t k = from; k < n; ++k)
    periods += fmt::format("{}{:.9g}", periods.empty() ? "" : ", ", r_.period_history[k]);
  const bool moving = n >= 2 && std::abs(r_.period_history[n - 1] - r_.period_history[n - 2]) >
                                    1e-6 * std::abs(r_.period_history[n - 1]);
  const bool sequence =
      sequences.size() >= 2 && sequences.back() != sequences[sequences.size() - 2];
  const PssFailure why = moving     ? PssFailure::kPeriod
                         : sequence ? PssFailure::kModeSequence
                                    : PssFailure::kNoOrbit;
  fail(why, fmt::format("{} after {} Newton iterations: the last periods T = {} s, "
                        "‖x(T) − x(0)‖/‖x‖ = {:.3g}",
                        moving     ? "the period does not converge"
                        : sequence ? "the mode sequence does not settle"
                                   : "Newton stalls on a settled mode sequence",
                        r_.newton_iterations, periods, r_.history.back()));
}

}  // namespace

void shoot_autonomous(const Circuit& circuit, const Assembled& a, const PssOptions& o,
                      const Eigen::VectorXd& gamma_d, const PssState& start, PssResult& r) {
  AutonomousShooting shooting(circuit, a, o, gamma_d, r);
  shooting.solve(start);
  r.periods_simulated = shooting.periods();
  r.jacobian_fallbacks = shooting.fallbacks();
  r.fallback_reason = shooting.fallback_reason();
}

}  // namespace nsspice::circuit::detail
