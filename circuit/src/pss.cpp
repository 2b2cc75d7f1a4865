// Periodic steady state by shooting-Newton on the one-period map of the θ-scheme
// (circuit/pss.hpp states the equations; docs/theory.md §13):
//
//   F(x_D) = Φ(x0)_D − x_D = 0,   (J − I) Δ = −F,   x_D ← x_D + α Δ  (α = 1, ½, ¼, ... while
//   ‖F‖∞ does not decrease),  J_{:,j} ≈ (Φ(x0 + δ_j e_j)_D − Φ(x0)_D) / δ_j  (finite differences).
#include "circuit/pss.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <memory>

#include "circuit/src/initial_point.hpp"
#include "solvers/time/theta_stepper.hpp"

namespace nsspice::circuit {
namespace {

using Observer = std::function<void(double, const Eigen::VectorXd&, const Eigen::VectorXd&)>;

struct State {
  Eigen::VectorXd x, lambda;
  std::vector<char> mode;
};

constexpr double kFloor = 1e-9;  // V or A: the smallest scale of ‖x‖∞ in relative tests

double scale_of(const Eigen::VectorXd& x) { return std::max(x.cwiseAbs().maxCoeff(), kFloor); }

// The one-period map Φ on one θ-stepper (started afresh at t = 0 for every period).
class PeriodMap {
 public:
  PeriodMap(const Assembled& a, const solvers::ThetaOptions& options)
      : a_(a), stepper_(a.mlcs, options) {}
  bool run(const State& from, State& to, std::string& error, const Observer* observer = nullptr,
           double t_offset = 0) {
    ++count_;
    stepper_.start(from.x, a_.mlcs.E * from.x, from.lambda, from.mode);
    if (observer != nullptr) (*observer)(t_offset, stepper_.x(), stepper_.lambda());
    while (!stepper_.finished()) {
      const solvers::MlcpOutcome outcome = stepper_.step();
      if (outcome.status != solvers::LcpStatus::kSolved &&
          outcome.status != solvers::LcpStatus::kInaccurate) {
        error = fmt::format("at t = {:.9g} s of a period: {}{}", stepper_.t_next(),
                            outcome.message, detail::pair_list(a_, outcome.pairs));
        return false;
      }
      if (observer != nullptr) (*observer)(t_offset + stepper_.t(), stepper_.x(), stepper_.lambda());
    }
    to = {stepper_.x(), stepper_.lambda(), stepper_.mode()};
    return true;
  }
  long count() const { return count_; }

 private:
  const Assembled& a_;
  solvers::ThetaStepper stepper_;
  long count_ = 0;
};

// The differential unknowns: the columns of E with an entry.
std::vector<Eigen::Index> dynamic_columns(const solvers::SparseMatrix& e) {
  std::vector<Eigen::Index> out;
  for (int k = 0; k < e.outerSize(); ++k) {
    bool any = false;
    for (solvers::SparseMatrix::InnerIterator it(e, k); it; ++it) any = any || it.value() != 0;
    if (any) out.push_back(k);
  }
  return out;
}

Eigen::VectorXd part(const Eigen::VectorXd& x, const std::vector<Eigen::Index>& d) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(d.size()));
  for (size_t k = 0; k < d.size(); ++k) out[static_cast<Eigen::Index>(k)] = x[d[k]];
  return out;
}

solvers::ThetaOptions map_options(const Circuit& c, const PssOptions& o) {
  solvers::ThetaOptions opt;
  opt.theta = c.theta;
  long steps = o.steps_per_period;
  if (steps <= 0)
    steps = c.tran && c.tran->tstep > 0
                ? std::max(1L, std::lround(o.period / c.tran->tstep))
                : 1000;
  opt.h = o.period / static_cast<double>(steps);
  opt.t_start = 0;
  opt.t_stop = o.period;
  opt.lcp_solver = c.lcp_solver;
  return opt;
}

// Newton's method from `s` (after the warm-up); fills result on success.
class Shooting {
 public:
  Shooting(const Assembled& a, PeriodMap& map, const PssOptions& o, PssResult& r)
      : map_(map), o_(o), r_(r), d_(dynamic_columns(a.mlcs.E)) {}

  bool solve(State s, std::string& error) {
    State out;
    if (!map_.run(s, out, error)) return false;
    for (int it = 0; it <= o_.max_newton; ++it) {
      const Eigen::VectorXd f = part(out.x, d_) - part(s.x, d_);
      const double rel = f.cwiseAbs().maxCoeff() / scale_of(out.x);
      r_.history.push_back(rel);
      if (rel <= o_.tol) {  // x_D repeats: check the whole x over one more period
        if (verify(out, error)) return true;
        if (!error.empty()) return false;
        s = out;
        if (!map_.run(s, out, error)) return false;
        continue;
      }
      if (it == o_.max_newton) break;
      Eigen::MatrixXd j;
      if (!jacobian(s, out, j, error)) return false;
      const Eigen::VectorXd delta =
          (j - Eigen::MatrixXd::Identity(j.rows(), j.cols())).partialPivLu().solve(-f);
      if (!delta.allFinite()) {
        error = "the Newton matrix J − I is singular: the orbit is not isolated (a free "
                "integrator, or a period-T family)";
        return false;
      }
      ++r_.newton_iterations;
      if (!damped_step(s, out, f, delta, error)) return false;
    }
    if (error.empty())
      error = fmt::format(
          "no periodic orbit found in {} Newton iterations: ‖x(T) − x(0)‖/‖x‖ = {:.3g} at the "
          "best state reached{}",
          r_.newton_iterations, *std::min_element(r_.history.begin(), r_.history.end()),
          subharmonic(s) ? " (x(2T) returns to x(0): a subharmonic orbit of period 2T)"
                         : "; the mode sequence may not settle: try more warm-up periods");
    return false;
  }

 private:
  PeriodMap& map_;
  const PssOptions& o_;
  PssResult& r_;
  std::vector<Eigen::Index> d_;

  // One more period from the consistent state `start` = x(T) returns to it.
  bool verify(const State& start, std::string& error) {
    State again;
    if (!map_.run(start, again, error)) return false;
    const double res = (again.x - start.x).cwiseAbs().maxCoeff() / scale_of(start.x);
    if (res > o_.tol) return false;
    r_.residual = res;
    r_.x0 = start.x;
    r_.lambda0 = start.lambda;
    r_.mode0 = start.mode;
    r_.ok = true;
    return true;
  }

  bool jacobian(const State& s, const State& out, Eigen::MatrixXd& j, std::string& error) {
    const auto n = static_cast<Eigen::Index>(d_.size());
    j.resize(n, n);
    const double floor = std::max(part(s.x, d_).cwiseAbs().maxCoeff(), 1e-3);
    const Eigen::VectorXd base = part(out.x, d_);
    for (Eigen::Index k = 0; k < n; ++k) {
      State p = s, po;
      const double delta = 1e-7 * std::max(std::abs(s.x[d_[static_cast<size_t>(k)]]), floor);
      p.x[d_[static_cast<size_t>(k)]] += delta;
      if (!map_.run(p, po, error)) return false;
      j.col(k) = (part(po.x, d_) - base) / delta;
    }
    return true;
  }

  // x_D + αΔ for the first α = 1, ½, ¼, ⅛ that decreases ‖F‖∞. If none does (the Jacobian is
  // off: the mode sequence changes near x), kFallbackPeriods periods of plain transient from
  // x(T) instead (the mode sequence settles as in a warm-up). False only when a period fails.
  bool damped_step(State& s, State& out, const Eigen::VectorXd& f, const Eigen::VectorXd& delta,
                   std::string& error) {
    constexpr int kFallbackPeriods = 5;
    double alpha = 1;
    for (int halving = 0; halving < 4; ++halving, alpha /= 2) {
      State trial = s, trial_out;
      for (size_t k = 0; k < d_.size(); ++k)
        trial.x[d_[k]] += alpha * delta[static_cast<Eigen::Index>(k)];
      if (!map_.run(trial, trial_out, error)) return false;
      const double norm = (part(trial_out.x, d_) - part(trial.x, d_)).cwiseAbs().maxCoeff();
      if (norm < f.cwiseAbs().maxCoeff()) {
        s = std::move(trial);
        out = std::move(trial_out);
        return true;
      }
    }
    r_.fallback_periods += kFallbackPeriods;
    for (int k = 0; k < kFallbackPeriods; ++k) {
      s = out;
      if (!map_.run(s, out, error)) return false;
    }
    return true;
  }

  bool subharmonic(const State& s) {
    State one, two;
    std::string ignored;
    if (!map_.run(s, one, ignored) || !map_.run(one, two, ignored)) return false;
    const double d1 = (one.x - s.x).cwiseAbs().maxCoeff();
    const double d2 = (two.x - s.x).cwiseAbs().maxCoeff();
    return d2 < 1e-3 * d1;
  }
};

// "" when every source is periodic in T from t = 0 (sampled at 97 points of [0, T) and its
// breakpoints there, compared with t + T and t + 2T), else which one is not and where.
std::string aperiodic_source(const Circuit& circuit, const Assembled& a, double period) {
  for (size_t k = 0; k < a.sources.size(); ++k) {
    const Waveform& w = a.sources[k];
    std::vector<double> times;
    for (int i = 0; i < 97; ++i) times.push_back(period * i / 97.0);
    for (double t = waveform_next_breakpoint(w, -1e-300); t < period;
         t = waveform_next_breakpoint(w, t))
      times.push_back(t);
    for (double t : times) {
      const double v = waveform_value(w, t);
      for (int m = 1; m <= 2; ++m) {
        const double u = waveform_value(w, t + m * period);
        if (std::abs(u - v) <= 1e-9 * std::max({1.0, std::abs(u), std::abs(v)})) continue;
        const int d = a.source_device[k];
        return fmt::format(
            "source '{}' is not periodic in T = {:g} s from t = 0: {:g} at t = {:g} s, {:g} at "
            "t + {}T (a PULSE's period must divide T; a SIN's "
            "frequency a multiple of 1/T)",
            d >= 0 ? device_name(circuit.devices[static_cast<size_t>(d)]) : std::string("?"),
            period, v, t, u, m);
      }
    }
  }
  return {};
}

}  // namespace

std::string PssOptions::validate() const {
  if (!(period > 0) || !std::isfinite(period))
    return fmt::format("the period must be > 0 s, got {:g}", period);
  if (!(tol > 0 && tol < 1)) return fmt::format("the tolerance must be in (0, 1), got {:g}", tol);
  if (warmup_periods < 0) return "the warm-up periods must be >= 0";
  if (max_newton < 1) return "at least one Newton iteration";
  return {};
}

PssResult periodic_steady_state(const Circuit& circuit, const Assembled& a,
                                const PssOptions& o) {
  PssResult r;
  if (r.error = o.validate(); !r.error.empty()) return r;
  const solvers::ThetaOptions opt = map_options(circuit, o);
  r.h = opt.h;
  r.theta = opt.theta;
  if (r.error = opt.validate(); !r.error.empty()) return r;
  if (r.error = aperiodic_source(circuit, a, o.period); !r.error.empty()) return r;
  const detail::InitialPoint init = detail::initial_point(circuit, a);
  if (!init.error.empty()) {
    r.error = init.error;
    return r;
  }
  PeriodMap map(a, opt);
  State s{init.x, init.lambda, init.mode}, next;
  std::string error;
  if (o.max_transient_periods > 0) r.transient_periods = periods_to_settle(circuit, a, o);
  for (int k = 0; k < o.warmup_periods; ++k) {
    if (!map.run(s, next, error)) break;
    s = std::move(next);
  }
  Shooting shooting(a, map, o, r);
  if (error.empty()) shooting.solve(s, error);
  r.error = r.ok ? std::string() : error;
  r.periods_simulated = map.count();
  return r;
}

long periods_to_settle(const Circuit& circuit, const Assembled& a, const PssOptions& o) {
  const detail::InitialPoint init = detail::initial_point(circuit, a);
  if (!init.error.empty() || !o.validate().empty()) return -1;
  PeriodMap map(a, map_options(circuit, o));
  State t{init.x, init.lambda, init.mode}, next;
  std::string error;
  for (long k = 1; k <= o.max_transient_periods; ++k) {
    if (!map.run(t, next, error)) return -1;
    const bool done = (next.x - t.x).cwiseAbs().maxCoeff() <= o.tol * scale_of(next.x);
    t = std::move(next);
    if (done) return k;
  }
  return -1;
}

bool run_periods(const Circuit& circuit, const Assembled& a, const PssResult& pss, double period,
                 int periods, const Observer& observer, std::string& error) {
  PssOptions o;
  o.period = period;
  o.steps_per_period = std::lround(period / pss.h);
  solvers::ThetaOptions opt = map_options(circuit, o);
  opt.theta = pss.theta;
  PeriodMap map(a, opt);
  State s{pss.x0, pss.lambda0, pss.mode0}, next;
  for (int k = 0; k < periods; ++k) {
    // The start of each later period is the end of the one before (already observed).
    bool first = true;
    const Observer skip_first = [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& l) {
      if (first && k > 0) {
        first = false;
        return;
      }
      first = false;
      observer(t, x, l);
    };
    if (!map.run(s, next, error, &skip_first, period * k)) return false;
    s = std::move(next);
  }
  return true;
}

}  // namespace nsspice::circuit
