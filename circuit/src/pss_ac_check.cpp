// The brute-force cross-check of the switching AC (circuit/pss_ac.hpp, check_by_transient):
//
//   f' = fs·p/q (the fraction with the smallest q ≥ 3 within 1% of f/fs), u(t) =
//   s(t) + A sin(ω't); windows W = qT (p whole cycles of f', q of the switching) of the event
//   map's integrator from the orbit's start; per window the fundamental
//       H_k = 2j/(A W) ∫_W z(t) e^{−jω't} dt
//   (the e^{jω't} coefficient of A Im(H e^{jω't}) is A H/(2j); over W the T-periodic orbit
//   contributes nothing: its integral over one unperturbed window, on the same step grid, is
//   subtracted from each window's, which removes the quadrature error of its ripple too), with
//   z linear between the emitted points and the exponential
//   integrated exactly on each interval (so that the orbit's DC and ripple, far larger than
//   the response, leave no quadrature error of the exponential):
//       ∫_{t0}^{t0+h} (z0 + (z1 − z0)(t − t0)/h) e^{−jωt} dt
//         = h e^{−jωt0} [z0 (1 − E)/(jθ) + (z1 − z0)(E (1 + jθ) − 1)/θ²],  θ = ωh, E = e^{−jθ};
//   until the state's part of it repeats, |H_k − H_{k−1}| ≤ settle_tol·max(|H_k|, 1e-4 ‖H_k‖∞)
//   over the differential unknowns (the algebraic ones follow from them).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "circuit/pss_ac.hpp"
#include "circuit/src/pss_event_map.hpp"
#include "circuit/src/pss_map.hpp"

namespace nsspice::circuit {
namespace {

using Complex = std::complex<double>;

// Components of the response below this fraction of the largest settle to that floor.
constexpr double kSettleFloor = 1e-4;

// The fraction p/q with the smallest q (3 ≤ q ≤ max_q, p ≥ 1, lowest terms) within a relative
// `tolerance` of r, else the nearest one: f' = fs·p/q is then neither a multiple of fs nor of
// fs/2, where the response at f' would also hold the orbit's harmonic or the sideband of the
// conjugate input (f' − fs = −f'), and the window qT is as short as the tolerance allows.
std::pair<long, long> nearest_fraction(double r, long max_q, double tolerance) {
  long best_p = 1, best_q = 3;
  double best = std::numeric_limits<double>::infinity();
  for (long q = 3; q <= max_q; ++q) {
    for (long p : {static_cast<long>(std::floor(r * q)), static_cast<long>(std::ceil(r * q))}) {
      if (p < 1 || q / std::gcd(p, q) < 3) continue;
      const double err = std::abs(static_cast<double>(p) / static_cast<double>(q) - r) / r;
      if (err < best * (1 - 1e-12)) {
        best = err;
        const long g = std::gcd(p, q);
        best_p = p / g;
        best_q = q / g;
      }
    }
    if (best <= tolerance) break;
  }
  return {best_p, best_q};
}

// (1 − E)/(jθ) and (E (1 + jθ) − 1)/θ², E = e^{−jθ} (series for small θ).
std::pair<Complex, Complex> filon(double theta) {
  const Complex j(0, 1);
  if (std::abs(theta) < 1e-3) {
    const double t2 = theta * theta;
    return {Complex(1 - t2 / 6, -theta / 2 + theta * t2 / 24),
            Complex(0.5 - t2 / 8, -theta / 3 + theta * t2 / 30)};
  }
  const Complex e = std::polar(1.0, -theta);
  return {(1.0 - e) / (j * theta), (e * (1.0 + j * theta) - 1.0) / (theta * theta)};
}

struct Window {
  double omega = 0;
  Eigen::VectorXcd sum;
  double t_prev = -1;
  Eigen::VectorXd z_prev;
  void add(double t, const Eigen::VectorXd& z) {
    if (t_prev >= 0 && t > t_prev) {
      const double h = t - t_prev;
      const auto [a, b] = filon(omega * h);
      const Complex scale = h * std::polar(1.0, -omega * t_prev);
      sum += scale * (a * z_prev.cast<Complex>() + b * (z - z_prev).cast<Complex>());
    }
    t_prev = t;
    z_prev = z;
  }
};

// The perturbed circuit's MLCS: A sin(ωt) added to source k; a breakpoint within rounding below
// the window's end *t_stop is moved onto it (else the integrator's last step would be 1e-21 s).
solvers::Mlcs perturbed(const Assembled& a, int k, double amplitude, double omega, double period,
                        const double* t_stop) {
  solvers::Mlcs m = a.mlcs;
  m.source_values = [inner = a.mlcs.source_values, k, amplitude, omega](
                        double t, Eigen::Ref<Eigen::VectorXd> s) {
    inner(t, s);
    s[k] += amplitude * std::sin(omega * t);
  };
  m.next_breakpoint = [inner = a.mlcs.next_breakpoint, period, t_stop](double t) {
    const double bp = inner ? inner(t) : std::numeric_limits<double>::infinity();
    return bp > *t_stop - 1e-12 * period ? std::max(bp, *t_stop) : bp;
  };
  return m;
}

// The fundamental of the state (capacitor voltages, inductor currents: the algebraic unknowns
// follow from it) repeats: each component within tol of its own size, components below
// kSettleFloor of the largest within that floor.
bool repeats(const Eigen::VectorXcd& h, const Eigen::VectorXcd& last,
             const std::vector<Eigen::Index>& columns, double tol) {
  double largest = 0;
  for (Eigen::Index k : columns) largest = std::max(largest, std::abs(h[k]));
  for (Eigen::Index k : columns)
    if (std::abs(h[k] - last[k]) > tol * std::max(std::abs(h[k]), kSettleFloor * largest))
      return false;
  return true;
}

struct State {
  Eigen::VectorXd x, lambda;
  std::vector<char> mode;
};

// One window [t0, t0 + span] of the integrator from `state` (advanced to its end): the integral
// ∫ z e^{−jωt} dt into `sum`. Solved, else the failed step's status, message and time.
solvers::Summary window(const solvers::Mlcs& mlcs, const solvers::EventOptions& base, State& state,
                        double t0, double span, double omega, Eigen::VectorXcd& sum) {
  const int n = mlcs.n, m = mlcs.m;
  solvers::EventOptions eo = base;
  eo.t_start = t0;
  eo.t_stop = t0 + span;
  solvers::EventDriven integrator(mlcs, eo);
  Window w;
  w.omega = omega;
  w.sum = Eigen::VectorXcd::Zero(n + m);
  Eigen::VectorXd z(n + m);
  const auto observe = [&](double t, const Eigen::VectorXd& xi, const Eigen::VectorXd& li,
                           const Eigen::VectorXd&) {
    z << xi, li;
    w.add(t, z);
    return true;
  };
  const solvers::EventOutcome out =
      integrator.run(state.x, mlcs.E * state.x, state.lambda, state.mode, observe);
  if (!out.ok())
    return {out.status,
            fmt::format("check transient at t = {:.9g} s: {}", out.t, out.message),
            {},
            out.t};
  state = {z.head(n), z.tail(m), integrator.mode()};
  sum = w.sum;
  return detail::solved();
}

}  // namespace

std::string TransientCheckOptions::validate(const Assembled& a) const {
  if (source < 0 || source >= static_cast<int>(a.sources.size()))
    return "the perturbed source is not an independent source of the circuit";
  if (!(amplitude > 0) || !std::isfinite(amplitude))
    return fmt::format("the check amplitude must be > 0, got {:g}", amplitude);
  for (double f : frequencies)
    if (!(f > 0) || !std::isfinite(f))
      return fmt::format("check frequencies must be > 0 Hz, got {:g}", f);
  if (max_q < 3 || max_periods < 2 || !(settle_tol > 0) || !(frequency_tolerance > 0))
    return "bad check settings";
  return {};
}

TransientCheckResult check_by_transient(const Circuit& circuit, const Assembled& a,
                                        const PssResult& pss, const PssOptions& po,
                                        const TransientCheckOptions& o) {
  TransientCheckResult r;
  if (std::string why = o.validate(a); !why.empty()) {
    r.fail(solvers::Status::kInvalidInput, std::move(why));
    return r;
  }
  if (!pss.ok() || pss.x0.size() != a.mlcs.n) {
    r.fail(solvers::Status::kInvalidInput, "no periodic steady state to start from");
    return r;
  }
  const auto stopped = [&](const solvers::Summary& step) {
    r.fail(step.status, step.message, step.time, step.devices);
    return r;
  };
  std::string unsettled;  // the frequencies whose fundamental did not settle
  const double period = po.period;
  const solvers::EventOptions base = detail::event_map_options(circuit, po);
  const std::vector<Eigen::Index> state_columns = detail::dynamic_columns(a.mlcs.E);
  for (double requested : o.frequencies) {
    TransientCheckPoint point;
    std::tie(point.p, point.q) =
        nearest_fraction(requested * period, o.max_q, o.frequency_tolerance);
    point.f = static_cast<double>(point.p) / (static_cast<double>(point.q) * period);
    const double omega = 2 * std::numbers::pi * point.f;
    const double span = static_cast<double>(point.q) * period;
    // The orbit's selection step δ (a fraction of T; the windows span q periods).
    solvers::EventOptions eo = base;
    if (pss.select_step > 0) eo.select_step = pss.select_step / static_cast<double>(point.q);
    double window_end = 0;
    const solvers::Mlcs mlcs = perturbed(a, o.source, o.amplitude, omega, period, &window_end);
    const solvers::Mlcs still = perturbed(a, o.source, 0.0, omega, period, &window_end);
    State state{pss.x0, pss.lambda0, pss.mode0};
    // The orbit's own integral over one window, on (nearly) the grid of every later window.
    Eigen::VectorXcd orbit;
    if (const auto run = window(still, eo, state, 0, span, omega, orbit); !run.solved())
      return stopped(run);
    Eigen::VectorXcd last, sum;
    state = {pss.x0, pss.lambda0, pss.mode0};
    for (long k = 0; point.periods + point.q <= o.max_periods; ++k) {
      window_end = static_cast<double>(k + 1) * span;
      if (const auto run = window(mlcs, eo, state, static_cast<double>(k) * span, span, omega, sum);
          !run.solved())
        return stopped(run);
      point.periods += point.q;
      const Eigen::VectorXcd h = Complex(0, 2) / (o.amplitude * span) * (sum - orbit);
      const bool settled = last.size() > 0 && repeats(h, last, state_columns, o.settle_tol);
      last = h;
      if (settled) {
        point.settled = true;
        break;
      }
    }
    for (Eigen::Index k : state_columns) point.scale = std::max(point.scale, std::abs(last[k]));
    point.x = last.head(a.mlcs.n);
    point.lambda = last.tail(a.mlcs.m);
    if (!point.settled)
      unsettled += fmt::format("{}{:g} Hz ({} periods)", unsettled.empty() ? "" : ", ", point.f,
                               point.periods);
    r.points.push_back(std::move(point));
  }
  if (!unsettled.empty())
    r.fail(solvers::Status::kInaccurate,
           fmt::format("the fundamental did not settle to {:g} within {} periods at {}",
                       o.settle_tol, o.max_periods, unsettled));
  return r;
}

}  // namespace nsspice::circuit
