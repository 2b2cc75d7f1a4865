// Shooting-Newton on a period map (circuit/pss.hpp states the equations; docs/theory.md §13):
//
//   F(x_D) = Φ(x0)_D − x_D = 0,   (J − I) Δ = −F,   x_D ← x_D + α Δ  (α = 1, ½, ¼, ⅛: the first
//   that decreases ‖F‖∞; none: 5 periods of plain transient),
//
// J exact (the event map's linearization), or by finite differences (the θ map; the event map
// where a period has no linearization): such a J is then carried by Broyden's update
// J ← J + (ΔF − (J − I)Δx) Δxᵀ / ‖Δx‖² while full steps reduce ‖F‖∞ at least 2-fold,
//
// accepted when one more period from x(T) returns within tol. The Floquet multipliers μ_i
// (eigenvalues of J at the orbit) then say whether a transient settles to it (|μ| < 1). Without
// convergence the cause is named: a subharmonic (x(2T) returns to x(0) where x(T) does not),
// a mode sequence that changes from iteration to iteration, or no orbit on a settled sequence.
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "circuit/src/pss_map.hpp"

namespace nsspice::circuit::detail {
namespace {

constexpr double kFloor = 1e-9;      // V or A: the smallest scale of ‖x‖∞ in relative tests
constexpr int kFallbackPeriods = 5;  // plain periods where no damped Newton step helps
constexpr int kSequenceWindow = 4;   // iterations over which the mode sequence must settle
constexpr double kUnstableMargin = 1e-6;   // |μ| above 1 + this: the orbit is unstable
constexpr double kBroydenDecrease = 0.25;  // ‖F‖ ratio below which a finite-difference J is
                                           // updated rather than recomputed

double scale_of(const Eigen::VectorXd& x) { return std::max(x.cwiseAbs().maxCoeff(), kFloor); }

class Shooting {
 public:
  Shooting(PeriodMap& map, const Assembled& a, const PssOptions& o, PssResult& r)
      : map_(map), a_(a), o_(o), r_(r), d_(dynamic_columns(a.mlcs.E)) {}

  // The orbit into r_ (solved), else r_ failed with its cause.
  void solve(PssState s) {
    if (newton(s) == Outcome::kContinue) no_orbit(s);
  }

 private:
  PeriodMap& map_;
  const Assembled& a_;
  const PssOptions& o_;
  PssResult& r_;
  std::vector<Eigen::Index> d_;
  std::vector<std::string> sequences_;  // the mode sequence of each iteration's period
  PssState best_;
  double best_norm_ = std::numeric_limits<double>::infinity();
  // The Newton Jacobian J, and for a finite-difference one (n_D periods each) what its Broyden
  // update needs: the iterate x_D and F where it was last used, and whether it may be updated.
  Eigen::MatrixXd j_;
  Eigen::VectorXd x_last_, f_last_;
  bool reusable_ = false;

  // How a part of the iteration ended: the orbit accepted, r_ failed, or not decided yet.
  enum class Outcome { kAccepted, kFailed, kContinue };

  Outcome fail(PssFailure why, std::string text) {
    r_.fail(why, std::move(text));
    return Outcome::kFailed;
  }
  Outcome step_failed(const solvers::Summary& step) {
    r_.fail(PssFailure::kStep, step);
    return Outcome::kFailed;
  }

  Outcome newton(PssState& s) {
    PssState out;
    if (const auto run = map_.run(s, out); !run.solved()) return step_failed(run);
    for (int it = 0; it <= o_.max_newton; ++it) {
      const Eigen::VectorXd f = part(out.x, d_) - part(s.x, d_);
      const double rel = f.cwiseAbs().maxCoeff() / scale_of(out.x);
      r_.history.push_back(rel);
      sequences_.push_back(map_.mode_sequence());
      if (rel < best_norm_) {
        best_norm_ = rel;
        best_ = s;
      }
      if (rel <= o_.tol) {  // x_D repeats: check the whole x over one more period
        if (const Outcome v = verify(out); v != Outcome::kContinue) return v;
        s = out;
        if (const auto run = map_.run(s, out); !run.solved()) return step_failed(run);
        continue;
      }
      if (it == o_.max_newton) break;
      if (const auto jac = jacobian(s, out, f); !jac.solved()) return step_failed(jac);
      const Eigen::MatrixXd k = j_ - Eigen::MatrixXd::Identity(j_.rows(), j_.cols());
      const Eigen::FullPivLU<Eigen::MatrixXd> lu(k);
      if (!lu.isInvertible()) return singular(k, f, out);
      const Eigen::VectorXd delta = lu.solve(-f);
      ++r_.newton_iterations;
      if (const auto step = damped_step(s, out, f, delta); !step.solved()) return step_failed(step);
    }
    return Outcome::kContinue;
  }

  // J at `s` (F = f there): the map's (exact, or by finite differences). A finite-difference J
  // is not recomputed while the Newton steps taken with it are full and reduce ‖F‖∞ at least
  // kBroydenDecrease-fold: it is updated by Broyden's rank-one formula instead,
  //   J ← J + (y − (J − I) s) sᵀ / (sᵀ s),   s = Δx_D, y = ΔF   (the secant condition on F),
  // which costs no period (a fresh one costs n_D); the multipliers at the orbit are always from
  // a fresh J (accept).
  solvers::Summary jacobian(const PssState& s, const PssState& out, const Eigen::VectorXd& f) {
    const Eigen::VectorXd x = part(s.x, d_);
    if (reusable_ && f.cwiseAbs().maxCoeff() <= kBroydenDecrease * f_last_.cwiseAbs().maxCoeff()) {
      const Eigen::VectorXd step = x - x_last_, y = f - f_last_;
      const Eigen::MatrixXd k = j_ - Eigen::MatrixXd::Identity(j_.rows(), j_.cols());
      j_ += (y - k * step) * step.transpose() / step.squaredNorm();
      ++r_.broyden_updates;
    } else {
      const long fallbacks = map_.fallbacks();
      if (auto jac = map_.jacobian(s, out, j_); !jac.solved()) return jac;
      reusable_ = !map_.exact_jacobian() || map_.fallbacks() > fallbacks;
    }
    x_last_ = x;
    f_last_ = f;
    return solved();
  }

  // One more period from the consistent state `start` = x(T) returns to it: then accept.
  Outcome verify(const PssState& start) {
    PssState again;
    if (const auto run = map_.run(start, again); !run.solved()) return step_failed(run);
    const double res = (again.x - start.x).cwiseAbs().maxCoeff() / scale_of(start.x);
    if (res > o_.tol) return Outcome::kContinue;
    r_.residual = res;
    r_.x0 = start.x;
    r_.lambda0 = start.lambda;
    r_.mode0 = start.mode;
    return accept(again);
  }

  // The orbit is found (`end`: one period from its start, the map's last run): its multipliers
  // (J at the orbit) decide whether it is the steady state.
  Outcome accept(const PssState& end) {
    const PssState start{r_.x0, r_.lambda0, r_.mode0};
    Eigen::MatrixXd j;
    if (const auto jac = map_.jacobian(start, end, j); !jac.solved()) return step_failed(jac);
    const Eigen::VectorXcd mu =
        j.size() > 0 ? Eigen::VectorXcd(j.eigenvalues()) : Eigen::VectorXcd();
    r_.multipliers.assign(mu.data(), mu.data() + mu.size());
    std::sort(r_.multipliers.begin(), r_.multipliers.end(),
              [](auto a, auto b) { return std::abs(a) > std::abs(b); });
    if (r_.multipliers.empty() || std::abs(r_.multipliers[0]) <= 1 + kUnstableMargin)
      return Outcome::kAccepted;
    const std::complex<double> top = r_.multipliers[0];
    const bool doubling = std::abs(top.imag()) <= 1e-9 * std::abs(top) && top.real() < 0;
    return fail(doubling ? PssFailure::kSubharmonic : PssFailure::kUnstable,
                fmt::format("the period-T orbit (periodic to {:.2g}) is unstable: its Floquet "
                            "multiplier {} has modulus {:.4g} > 1, so a transient does not "
                            "settle to it{}",
                            r_.residual, format_multiplier(top), std::abs(top),
                            doubling ? "; the multiplier is below −1: a subharmonic oscillation "
                                       "of period 2T grows from it (period doubling)"
                                     : ""));
  }

  // J − I singular (a multiplier 1): F outside its range means the state drifts along that
  // direction every period (no orbit); inside, a family of orbits (not isolated).
  Outcome singular(const Eigen::MatrixXd& k, const Eigen::VectorXd& f, const PssState& out) {
    const Eigen::VectorXd delta = k.completeOrthogonalDecomposition().solve(-f);
    const double outside = (k * delta + f).cwiseAbs().maxCoeff();
    if (outside > 1e-3 * f.cwiseAbs().maxCoeff()) {
      // Evidence that no orbit exists (not a failure to find one): infeasible.
      r_.fail(PssFailure::kNoOrbit, solvers::Status::kInfeasible,
              fmt::format("a Floquet multiplier is 1 and the state drifts "
                          "along it by {:.3g} (relative) every period (an integrator or a "
                          "capacitor with a nonzero mean input){}",
                          outside / scale_of(out.x), describe(out)));
      return Outcome::kFailed;
    }
    return fail(PssFailure::kNotIsolated,
                "the Newton matrix J − I is singular: a Floquet multiplier is 1, the orbit is not "
                "isolated (a family of period-T orbits: a free integrator, a floating node)");
  }

  // x_D + αΔ for the first α = 1, ½, ¼, ⅛ that decreases ‖F‖∞. If none does (the Jacobian is
  // off: the mode sequence changes near x), kFallbackPeriods periods of plain transient from
  // x(T) instead (the mode sequence settles as in a warm-up). Not solved only when a period
  // fails.
  solvers::Summary damped_step(PssState& s, PssState& out, const Eigen::VectorXd& f,
                               const Eigen::VectorXd& delta) {
    double alpha = 1;
    for (int halving = 0; halving < 4; ++halving, alpha /= 2) {
      PssState trial = displaced(s, d_, delta, alpha), trial_out;
      if (auto run = map_.run(trial, trial_out); !run.solved()) return run;
      const double norm = (part(trial_out.x, d_) - part(trial.x, d_)).cwiseAbs().maxCoeff();
      reusable_ = reusable_ && halving == 0;  // a damped step: the next J is a fresh one
      if (norm < f.cwiseAbs().maxCoeff()) {
        s = std::move(trial);
        out = std::move(trial_out);
        return solved();
      }
    }
    r_.fallback_periods += kFallbackPeriods;
    reusable_ = false;
    for (int k = 0; k < kFallbackPeriods; ++k) {
      s = out;
      if (auto run = map_.run(s, out); !run.solved()) return run;
    }
    return solved();
  }

  // Without convergence: which of the three causes, and the best state reached.
  void no_orbit(const PssState& last) {
    std::string cause;
    PssFailure why = PssFailure::kNoOrbit;
    // The θ map puts each switching instant on the step grid: its period map jumps where an
    // instant depends on the state (a comparator, a diode's turn-off), and Newton cannot settle.
    const std::string hint =
        map_.theta() > 0 ? " (the theta map puts each switching instant on the step grid, so its "
                           "period map jumps where an instant depends on the state: try --map "
                           "event, which locates them)"
                         : "";
    if (subharmonic(best_.x.size() > 0 ? best_ : last)) {
      why = PssFailure::kSubharmonic;
      cause =
          "a subharmonic: two periods return to the start where one does not (an orbit of "
          "period 2T)";
    } else if (sequence_changes() > 0) {
      why = PssFailure::kModeSequence;
      cause = fmt::format(
          "the mode sequence does not settle: it changed in {} of the last {} Newton iterations "
          "(try more --warmup periods){}",
          sequence_changes(), std::min<size_t>(kSequenceWindow, sequences_.size() - 1), hint);
    } else {
      cause = "Newton stalls on a settled mode sequence" + hint;  // kNoOrbit names itself
    }
    r_.fail(why,
            fmt::format("{} after {} Newton iterations; ‖x(T) − x(0)‖/‖x‖ = {:.3g} at the best "
                        "state reached{}",
                        cause, r_.newton_iterations, best_norm_, describe(best_)));
  }

  long sequence_changes() const {
    long changes = 0;
    const size_t from =
        sequences_.size() > kSequenceWindow ? sequences_.size() - kSequenceWindow : 1;
    for (size_t k = from; k < sequences_.size(); ++k) changes += sequences_[k] != sequences_[k - 1];
    return changes;
  }

  bool subharmonic(const PssState& s) {
    PssState one, two;
    if (!map_.run(s, one).solved() || !map_.run(one, two).solved()) return false;
    const double d1 = (one.x - s.x).cwiseAbs().maxCoeff();
    const double d2 = (two.x - s.x).cwiseAbs().maxCoeff();
    return d2 < 1e-3 * d1;
  }

  // ": v(out) = 4.98 V, i(l1) = 0.51 A, ..." (the differential unknowns, at most 8).
  std::string describe(const PssState& s) const {
    if (s.x.size() == 0 || d_.empty()) return {};
    std::string out;
    for (size_t k = 0; k < d_.size() && k < 8; ++k) {
      const auto i = d_[k];
      const std::string& name = a_.unknown_names[static_cast<size_t>(i)];
      out += fmt::format("{}{} = {:.6g} {}", out.empty() ? " (" : ", ", name, s.x[i],
                         name.starts_with("i(") ? "A" : "V");
    }
    if (d_.size() > 8) out += fmt::format(", ... {} more", d_.size() - 8);
    return out + ")";
  }

  static std::string format_multiplier(std::complex<double> mu) {
    if (std::abs(mu.imag()) <= 1e-9 * std::abs(mu)) return fmt::format("{:.4g}", mu.real());
    return fmt::format("{:.4g}{:+.4g}j", mu.real(), mu.imag());
  }
};

}  // namespace

void shoot(PeriodMap& map, const Assembled& a, const PssOptions& o, const PssState& start,
           PssResult& r) {
  Shooting(map, a, o, r).solve(start);
}

}  // namespace nsspice::circuit::detail
