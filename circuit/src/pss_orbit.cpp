// The structure of a recorded period of the event map (pss_linearize.hpp; docs/theory.md §14):
// the emitted points parsed into smooth phases (their Radau step boundaries and the orbit's
// derivative at their end) and mode changes (the guard that set each instant, its rate, the
// saltation's q̇⁻ − q̇⁺).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "circuit/src/pss_linearize_parts.hpp"

namespace nsspice::circuit::detail {
namespace {

using solvers::SparseMatrix;

// Breakpoints within this many δ of a phase's ends are the phase's ends (the selection there).
constexpr double kLinkFactor = 2.5;
// A changed pair's guard within this fraction of the size of its terms of zero set the instant.
constexpr double kGuardZero = 1e-7;
// |γᵀż⁻| below this fraction of Σ|γ_i ż_i| is a grazing crossing (no defined sensitivity).
constexpr double kGrazing = 1e-9;
double waveform_at(const Assembled& a, size_t k, double t) {
  return waveform_value(a.sources[k], t);
}

}  // namespace

int PeriodLinearization::state_events() const {
  return static_cast<int>(
      std::count_if(events_.begin(), events_.end(), [](const Event& e) { return e.guard >= 0; }));
}

int PeriodLinearization::time_events() const {
  return static_cast<int>(events_.size()) - state_events();
}

std::string PeriodLinearization::describe() const {
  std::string out;
  for (const Event& e : events_) {
    if (e.guard < 0) {
      out += fmt::format("t = {:.9g} s: time event\n", e.t);
    } else {
      out += fmt::format("t = {:.9g} s: state event, guard of {} (pair {}), rate {:.4g}\n", e.t,
                         a_.pair_names[static_cast<size_t>(e.guard)], e.guard, e.rate);
    }
  }
  return out;
}

void PeriodLinearization::measure_pairs(const std::vector<OrbitPoint>& orbit) {
  // The size of each pair's quantities over the period: max |w_j|, |λ_j| (a switch: its
  // control and thresholds), the scale against which a guard is zero.
  pair_scale_.assign(static_cast<size_t>(m_), 0.0);
  for (const OrbitPoint& p : orbit) {
    const Eigen::VectorXd w = a_.mlcs.C * p.z.head(n_) + a_.mlcs.D * p.z.tail(m_) + a_.mlcs.d;
    for (int j = 0; j < m_; ++j)
      pair_scale_[static_cast<size_t>(j)] =
          std::max({pair_scale_[static_cast<size_t>(j)], std::abs(w[j]), std::abs(p.z[n_ + j])});
    for (const auto& sw : a_.mlcs.switches)
      pair_scale_[static_cast<size_t>(sw.pair)] =
          std::max({pair_scale_[static_cast<size_t>(sw.pair)], std::abs(sw.c.dot(p.z.head(n_))),
                    std::abs(sw.on_above), std::abs(sw.off_below)});
  }
}

void PeriodLinearization::add_event(const OrbitPoint& pre, const OrbitPoint& post,
                                    const std::vector<char>& changed,
                                    const std::vector<std::vector<char>>& steps, bool start) {
  const solvers::Mlcs& m = a_.mlcs;
  Eigen::VectorXd b, s;
  const auto qdot = [&](const OrbitPoint& p) {
    m.eval_b(p.t, s, b);
    return Eigen::VectorXd(b - m.G * p.z.head(n_) + m.B * p.z.tail(m_));
  };
  Event e;
  e.t = pre.t;
  e.t_post = post.t;
  e.post_mode = modes_->id(m, post.mode);
  for (const auto& step : steps) e.steps.push_back(modes_->id(m, step));
  if (e.steps.empty()) e.steps.assign(2, e.post_mode);
  e.z_jump = post.z - pre.z;
  if (!start) identify(e, pre, changed);
  if (e.guard >= 0) {
    e.qdot_pre = qdot(pre);
    e.xdot_post = differential_rate(qdot(post));
    // ḃ at each backward-Euler step, by central differences.
    const double eps = 0.25 * delta_;
    Eigen::VectorXd b_hi, b_lo;
    for (size_t k = 0; k < e.steps.size(); ++k) {
      const double t = e.t + static_cast<double>(k + 1) * delta_;
      m.eval_b(t + eps, s, b_hi);
      m.eval_b(t - eps, s, b_lo);
      e.bdot.emplace_back((b_hi - b_lo) / (2 * eps));
    }
  }
  events_.push_back(std::move(e));
}

Eigen::VectorXd PeriodLinearization::differential_rate(const Eigen::VectorXd& qdot) const {
  // v with (E v)_D = q̇_D on the differential unknowns, 0 elsewhere.
  Eigen::VectorXd y_d(static_cast<Eigen::Index>(d_.size()));
  for (size_t k = 0; k < d_.size(); ++k) y_d[static_cast<Eigen::Index>(k)] = qdot[d_[k]];
  const Eigen::VectorXd xi = modes_->e_dd.solve(y_d);
  Eigen::VectorXd v = Eigen::VectorXd::Zero(n_ + m_);
  for (size_t k = 0; k < d_.size(); ++k) v[d_[k]] = xi[static_cast<Eigen::Index>(k)];
  return v;
}

bool PeriodLinearization::add_segment(const OrbitPoint& first, const OrbitPoint& last) {
  const solvers::Mlcs& m = a_.mlcs;
  Segment seg;
  seg.t0 = first.t;
  seg.t1 = last.t;
  seg.mode = modes_->id(m, first.mode);
  // Steps of at most h_max between the breakpoints inside.
  std::vector<double> stops = {seg.t0};
  const double link = kLinkFactor * delta_;
  for (double bp = m.breakpoint_after(seg.t0 + link); bp < seg.t1 - link;
       bp = m.breakpoint_after(bp))
    stops.push_back(bp);
  stops.push_back(seg.t1);
  seg.cuts.push_back(seg.t0);
  for (size_t q = 0; q + 1 < stops.size(); ++q) {
    const double len = stops[q + 1] - stops[q];
    const long steps = std::max(1L, static_cast<long>(std::ceil(len / h_max_ - 1e-9)));
    for (long r = 1; r < steps; ++r)
      seg.cuts.push_back(stops[q] + len * static_cast<double>(r) / static_cast<double>(steps));
    seg.cuts.push_back(stops[q + 1]);
  }
  if (!orbit_derivative(seg, first)) return false;
  segments_.push_back(std::move(seg));
  return true;
}

bool PeriodLinearization::parse(const std::vector<OrbitPoint>& orbit) {
  measure_pairs(orbit);
  // The points alternate: an event (its pre-event point, then the points that end its mode
  // selections: one, or several 2δ apart when a change at the instant causes another, the first
  // at t = 0), a smooth phase of step ends to the next event's pre-event point, ..., the last
  // phase ending at T. A phase may be far shorter than δ (a located instant right after a
  // selection): it is a phase with its own instant, not a part of the selection.
  const size_t count = orbit.size();
  const auto linked = [&](size_t i) { return !orbit[i + 1].selection.empty(); };
  for (size_t i = 0; count > 1;) {
    size_t k = i;
    std::vector<char> changed(static_cast<size_t>(m_), 0);
    std::vector<std::vector<char>> steps;  // the selections' backward-Euler steps, in order
    for (; k + 1 < count && linked(k); ++k) {
      for (size_t j = 0; j < changed.size(); ++j)
        changed[j] = changed[j] || orbit[k + 1].mode[j] != orbit[k].mode[j];
      const auto& sel = orbit[k + 1].selection;
      steps.insert(steps.end(), sel.begin(), sel.end());
    }
    add_event(orbit[i], orbit[k], changed, steps, i == 0);
    if (k + 1 >= count) {
      error_ = "the recorded period ends in a mode selection";
      return false;
    }
    size_t next = k + 1;
    while (next + 1 < count && !linked(next)) ++next;
    for (size_t q = k + 1; q <= next; ++q)
      if (orbit[q].mode != orbit[k].mode) {
        error_ = fmt::format(
            "the mode changes at t = {:.9g} s without a selection (an accumulation of events "
            "integrated by the theta-scheme)",
            orbit[q].t);
        return false;
      }
    if (!add_segment(orbit[k], orbit[next])) return false;
    if (next + 1 >= count) break;
    i = next;
  }
  return rates();
}

bool PeriodLinearization::rates() {
  // An event after the start ends the phase before it: its rate γᵀż⁻ from that phase's ż.
  for (size_t e = 1; e < events_.size(); ++e) {
    Event& ev = events_[e];
    if (ev.guard < 0) continue;
    const Eigen::VectorXd& zdot = segments_[e - 1].zdot_end;
    ev.rate = ev.gamma.dot(zdot);
    const double size = ev.gamma.cwiseAbs().dot(zdot.cwiseAbs());
    if (!(ev.rate < -kGrazing * size)) {
      error_ = fmt::format(
          "the switching instant at t = {:.9g} s is grazing (the guard of '{}' reaches zero "
          "with rate {:.3g}): its sensitivity is not defined",
          ev.t, a_.pair_names[static_cast<size_t>(ev.guard)], ev.rate);
      return false;
    }
  }
  if (segments_.empty()) error_ = "the recorded period has no points";
  return error_.empty();
}

void PeriodLinearization::identify(Event& e, const OrbitPoint& pre,
                                   const std::vector<char>& changed) const {
  const solvers::Mlcs& m = a_.mlcs;
  const Eigen::VectorXd& z = pre.z;
  double best = std::numeric_limits<double>::infinity();
  for (int j = 0; j < m_; ++j) {
    if (!changed[static_cast<size_t>(j)]) continue;
    const bool on = pre.mode[static_cast<size_t>(j)] != 0;
    Eigen::VectorXd gamma = Eigen::VectorXd::Zero(n_ + m_);
    double offset = 0;
    const bool forced = !m.forced.empty() && m.forced[static_cast<size_t>(j)];
    if (forced) {
      const auto sw = std::find_if(m.switches.begin(), m.switches.end(),
                                   [j](const auto& s) { return s.pair == j; });
      if (sw == m.switches.end()) continue;
      for (Eigen::SparseVector<double>::InnerIterator it(sw->c); it; ++it)
        gamma[it.index()] = on ? it.value() : -it.value();
      offset = on ? -sw->off_below : sw->on_above;
    } else if (on) {
      gamma[n_ + j] = 1;
    } else {
      for (RowMatrix::InnerIterator it(modes_->c_rows, j); it; ++it) gamma[it.col()] = it.value();
      for (RowMatrix::InnerIterator it(modes_->d_rows, j); it; ++it)
        gamma[n_ + it.col()] = it.value();
      offset = m.d[j];
    }
    const double g = gamma.dot(z) + offset;
    const double size = gamma.cwiseAbs().dot(z.cwiseAbs()) + std::abs(offset);
    const double rel = std::abs(g) / std::max({size, pair_scale_[static_cast<size_t>(j)], 1e-300});
    if (rel < best) {
      best = rel;
      e.guard = j;
      e.gamma = std::move(gamma);
    }
  }
  if (best > kGuardZero) {
    e.guard = -1;
    e.gamma.resize(0);
  }
}

bool PeriodLinearization::orbit_derivative(Segment& s, const OrbitPoint& start) {
  // M ż' = J_σ ż + (S ṡ, 0) from M ż(t0) = (b(t0) − G x + B λ, 0).
  const solvers::Mlcs& m = a_.mlcs;
  Eigen::VectorXd b, src;
  m.eval_b(start.t, src, b);
  Eigen::VectorXd v = differential_rate(b - m.G * start.z.head(n_) + m.B * start.z.tail(m_));
  modes_->radau->set_j(modes_->j[static_cast<size_t>(s.mode)], s.mode);
  const auto ns = static_cast<size_t>(m.S.cols());
  Eigen::VectorXd slope(static_cast<Eigen::Index>(ns));
  solvers::RadauStep step;
  for (size_t q = 0; q + 1 < s.cuts.size(); ++q) {
    const double ta = s.cuts[q], h = s.cuts[q + 1] - ta;
    const double eps = std::max(1e-7 * h, 1e-9 * period_);
    const auto f = [&](double t, Eigen::VectorXd& out) {
      // ṡ by differences within the step: one-sided at its end (a breakpoint or the event).
      const bool end = t >= ta + h * (1 - 1e-12);
      for (size_t k = 0; k < ns; ++k)
        slope[static_cast<Eigen::Index>(k)] =
            end ? (3 * waveform_at(a_, k, t) - 4 * waveform_at(a_, k, t - eps) +
                   waveform_at(a_, k, t - 2 * eps)) /
                      (2 * eps)
                : (waveform_at(a_, k, t + eps) - waveform_at(a_, k, t - eps)) / (2 * eps);
      out = Eigen::VectorXd::Zero(n_ + m_);
      if (ns > 0) out.head(n_) = m.S * slope;
    };
    if (!modes_->radau->step(ta, h, v, f, step)) {
      error_ = fmt::format("the mode's DAE is singular at t = {:.9g} s", ta);
      return false;
    }
    v = step.end();
  }
  s.zdot_end = v;
  return true;
}

}  // namespace nsspice::circuit::detail
