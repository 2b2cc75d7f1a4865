// The linearization of the event map's period (equations in pss_linearize.hpp; docs/theory.md
// §14): the orbit parsed into smooth phases and mode changes, the perturbation columns carried
// through them by Radau IIA steps, saltation terms and selection steps.
#include "circuit/src/pss_linearize.hpp"

#include <fmt/format.h>

#include <Eigen/QR>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "circuit/src/pss_map.hpp"
#include "solvers/linear/klu_lu.hpp"
#include "solvers/linear/triplets.hpp"
#include "solvers/time/event_driven.hpp"
#include "solvers/time/radau_iia.hpp"

namespace nsspice::circuit::detail {
namespace {

using solvers::SparseMatrix;
using solvers::Triplets;
using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

// Emitted points at most this many δ apart are the steps of one mode selection.
constexpr double kLinkFactor = 2.5;
// A changed pair's guard within this fraction of the size of its terms of zero set the instant.
constexpr double kGuardZero = 1e-7;
// |γᵀż⁻| below this fraction of Σ|γ_i ż_i| is a grazing crossing (no defined sensitivity).
constexpr double kGrazing = 1e-9;
// Gauss–Legendre, 6 points on [0, 1].
constexpr std::array<double, 6> kGaussS = {0.033765242898423989, 0.169395306766867743,
                                           0.380690406958401546, 0.619309593041598454,
                                           0.830604693233132257, 0.966234757101576011};
constexpr std::array<double, 6> kGaussW = {0.085662246189585173, 0.180380786524069304,
                                           0.233956967286345523, 0.233956967286345523,
                                           0.180380786524069304, 0.085662246189585173};

// The pair rows K_σ, times s, at row offset n: (C_j, D_j) for a conducting pair or a closed
// switch, (C_off_j, e_j) otherwise (a free pair's C_off_j is 0).
void append_pair_rows(Triplets& t, const solvers::Mlcs& m, const std::vector<char>& mode,
                      double s) {
  const auto on = [&](Eigen::Index row) { return mode[static_cast<size_t>(row)] != 0; };
  for (int col = 0; col < m.C.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(m.C, col); it; ++it)
      if (on(it.row())) t.emplace_back(m.n + it.row(), col, s * it.value());
  for (int col = 0; col < m.D.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(m.D, col); it; ++it)
      if (on(it.row())) t.emplace_back(m.n + it.row(), m.n + col, s * it.value());
  for (int col = 0; col < m.C_off.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(m.C_off, col); it; ++it)
      if (!on(it.row())) t.emplace_back(m.n + it.row(), col, s * it.value());
  for (int j = 0; j < m.m; ++j)
    if (!on(j)) t.emplace_back(m.n + j, m.n + j, s);
}

SparseMatrix from_triplets(const Triplets& t, int size) {
  SparseMatrix a(size, size);
  a.setFromTriplets(t.begin(), t.end());
  a.makeCompressed();
  return a;
}

// The union pattern of every K_δ(σ) = [G + E/δ, −B; K_σ] (explicit zeros).
Triplets projection_pattern(const solvers::Mlcs& m) {
  Triplets t;
  solvers::append_scaled(t, m.G, 0, 0, 0.0);
  solvers::append_scaled(t, m.E, 0, 0, 0.0);
  solvers::append_scaled(t, m.B, 0, m.n, 0.0);
  solvers::append_scaled(t, m.C, m.n, 0, 0.0);
  solvers::append_scaled(t, m.D, m.n, m.n, 0.0);
  solvers::append_scaled(t, m.C_off, m.n, 0, 0.0);
  for (int j = 0; j < m.m; ++j) t.emplace_back(m.n + j, m.n + j, 0.0);
  return t;
}

double waveform_at(const Assembled& a, size_t k, double t) {
  return waveform_value(a.sources[k], t);
}

}  // namespace

struct PeriodLinearization::Segment {
  double t0 = 0, t1 = 0;
  int mode = 0;
  std::vector<double> cuts;  // step boundaries t0 < ... < t1 (breakpoints included)
  Eigen::VectorXd zdot_end;  // ż at t1⁻
};

struct PeriodLinearization::Event {
  double t = 0;               // the instant (the pre-event point)
  double t_post = 0;          // the selection's end, where the next phase starts
  int post_mode = 0;          // the mode after the selection(s)
  int guard = -1;             // the pair whose guard set the instant (−1: a time event)
  Eigen::VectorXd gamma;      // ∇g over z
  double rate = 0;            // γᵀ ż⁻
  Eigen::VectorXd qdot_jump;  // q̇⁻ − q̇⁺
  Eigen::VectorXd z_jump;     // z⁺ − z⁻
};

struct PeriodLinearization::Average {
  double omega = 0;
  Eigen::VectorXcd sum;
};

struct PeriodLinearization::Modes {
  std::map<std::vector<char>, int> ids;
  std::vector<std::vector<char>> list;
  std::vector<SparseMatrix> j;                                  // J_σ = [−G, B; −K_σ]
  std::vector<std::unique_ptr<solvers::KluFactor>> projection;  // K_δ(σ), factored on first use
  Triplets projection_zeros;
  solvers::KluSymbolic projection_symbolic;
  std::unique_ptr<solvers::RadauIIA> radau;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> e_dd;  // E on the differential block
  RowMatrix c_rows, d_rows;

  int id(const solvers::Mlcs& m, const std::vector<char>& mode) {
    const auto [it, inserted] = ids.emplace(mode, static_cast<int>(list.size()));
    if (!inserted) return it->second;
    list.push_back(mode);
    Triplets t;
    solvers::append_scaled(t, m.G, 0, 0, -1.0);
    solvers::append_scaled(t, m.B, 0, m.n, 1.0);
    append_pair_rows(t, m, mode, -1.0);
    j.push_back(from_triplets(t, m.n + m.m));
    projection.emplace_back();
    return it->second;
  }

  const solvers::KluFactor* factor(const solvers::Mlcs& m, int mode, double delta) {
    auto& f = projection[static_cast<size_t>(mode)];
    if (f) return f.get();
    Triplets t = projection_zeros;
    solvers::append_scaled(t, m.G, 0, 0, 1.0);
    solvers::append_scaled(t, m.E, 0, 0, 1.0 / delta);
    solvers::append_scaled(t, m.B, 0, m.n, -1.0);
    append_pair_rows(t, m, list[static_cast<size_t>(mode)], 1.0);
    f = std::make_unique<solvers::KluFactor>();
    if (f->factor(projection_symbolic, from_triplets(t, m.n + m.m)) != solvers::LuStatus::kOk) {
      f.reset();
      return nullptr;
    }
    return f.get();
  }
};

PeriodLinearization::PeriodLinearization(const Assembled& a, const std::vector<OrbitPoint>& orbit,
                                         double period, double h_max, double delta)
    : a_(a),
      period_(period),
      h_max_(h_max),
      delta_(delta),
      n_(a.mlcs.n),
      m_(a.mlcs.m),
      d_(dynamic_columns(a.mlcs.E)),
      modes_(std::make_unique<Modes>()) {
  const solvers::Mlcs& m = a_.mlcs;
  Triplets mt;
  solvers::append_scaled(mt, m.E, 0, 0, 1.0);
  const SparseMatrix m_mat = from_triplets(mt, n_ + m_);
  modes_->radau = std::make_unique<solvers::RadauIIA>(m_mat, solvers::event_j_pattern(m), 256);
  modes_->projection_zeros = projection_pattern(m);
  if (modes_->projection_symbolic.analyze(from_triplets(modes_->projection_zeros, n_ + m_)) !=
      solvers::LuStatus::kOk) {
    error_ = "the mode-selection matrix has a structurally singular pattern";
    return;
  }
  const Eigen::MatrixXd e = Eigen::MatrixXd(m.E);
  Eigen::MatrixXd e_dd(d_.size(), d_.size());
  for (size_t r = 0; r < d_.size(); ++r)
    for (size_t c = 0; c < d_.size(); ++c) e_dd(r, c) = e(d_[r], d_[c]);
  modes_->e_dd.compute(e_dd);
  modes_->c_rows = m.C;
  modes_->d_rows = m.D;
  parse(orbit);
}

PeriodLinearization::~PeriodLinearization() = default;

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

bool PeriodLinearization::parse(const std::vector<OrbitPoint>& orbit) {
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
  // The points alternate: a selection (a chain of points δ apart, the first at t = 0), a smooth
  // phase of step ends to the next chain's first point, ..., the last phase ending at T.
  const solvers::Mlcs& m = a_.mlcs;
  const size_t count = orbit.size();
  const auto linked = [&](size_t i) { return orbit[i + 1].t - orbit[i].t <= kLinkFactor * delta_; };
  Eigen::VectorXd b, s;
  const auto qdot = [&](const OrbitPoint& p) {
    m.eval_b(p.t, s, b);
    return Eigen::VectorXd(b - m.G * p.z.head(n_) + m.B * p.z.tail(m_));
  };
  for (size_t i = 0; count > 1;) {
    size_t k = i;
    std::vector<char> changed(static_cast<size_t>(m_), 0);
    for (; k + 1 < count && linked(k); ++k)
      for (size_t j = 0; j < changed.size(); ++j)
        changed[j] = changed[j] || orbit[k + 1].mode[j] != orbit[k].mode[j];
    Event e;
    e.t = orbit[i].t;
    e.t_post = orbit[k].t;
    e.post_mode = modes_->id(m, orbit[k].mode);
    e.z_jump = orbit[k].z - orbit[i].z;
    e.qdot_jump = Eigen::VectorXd::Zero(n_);
    if (i > 0) {
      identify(e, orbit[i], changed);
      e.qdot_jump = qdot(orbit[i]) - qdot(orbit[k]);
    }
    events_.push_back(std::move(e));
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
    Segment seg;
    seg.t0 = orbit[k].t;
    seg.t1 = orbit[next].t;
    seg.mode = modes_->id(m, orbit[k].mode);
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
    if (!orbit_derivative(seg, orbit[k])) return false;
    segments_.push_back(std::move(seg));
    if (next + 1 >= count) break;
    i = next;
  }
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
  const Eigen::VectorXd y = b - m.G * start.z.head(n_) + m.B * start.z.tail(m_);
  Eigen::VectorXd y_d(static_cast<Eigen::Index>(d_.size()));
  for (size_t k = 0; k < d_.size(); ++k) y_d[static_cast<Eigen::Index>(k)] = y[d_[k]];
  const Eigen::VectorXd xi = modes_->e_dd.solve(y_d);
  Eigen::VectorXd v = Eigen::VectorXd::Zero(n_ + m_);
  for (size_t k = 0; k < d_.size(); ++k) v[d_[k]] = xi[static_cast<Eigen::Index>(k)];
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

Eigen::VectorXd PeriodLinearization::drive_vector(const Drive& drive) const {
  if (drive.source < 0) return Eigen::VectorXd::Zero(n_);
  return Eigen::VectorXd(a_.mlcs.S.col(drive.source));
}

bool PeriodLinearization::step_segment(const Segment& s, std::vector<Eigen::VectorXd>& z,
                                       const std::vector<Wave>& wave, const Drive& drive,
                                       Average* average) {
  modes_->radau->set_j(modes_->j[static_cast<size_t>(s.mode)], s.mode);
  const Eigen::VectorXd fs = drive_vector(drive);
  std::vector<solvers::RadauStep> steps(z.size());
  for (size_t q = 0; q + 1 < s.cuts.size(); ++q) {
    const double ta = s.cuts[q], h = s.cuts[q + 1] - ta;
    for (size_t c = 0; c < z.size(); ++c) {
      const Wave w = wave[c];
      const auto f = [&](double t, Eigen::VectorXd& out) {
        out = Eigen::VectorXd::Zero(n_ + m_);
        if (w == Wave::kCos) out.head(n_) = fs * std::cos(drive.omega * t);
        if (w == Wave::kSin) out.head(n_) = fs * std::sin(drive.omega * t);
      };
      if (!modes_->radau->step(ta, h, z[c], f, steps[c])) {
        error_ = fmt::format("the mode's DAE is singular at t = {:.9g} s", ta);
        return false;
      }
    }
    if (average != nullptr) {
      // ∫ u(s) e^{−jω(ta + s h)} h ds with u the cubic through the nodes (0, c1, c2, 1).
      std::array<std::complex<double>, 4> w{};
      for (size_t g = 0; g < kGaussS.size(); ++g) {
        const auto l = solvers::RadauStep::weights(kGaussS[g]);
        const std::complex<double> e =
            std::polar(kGaussW[g] * h, -drive.omega * (ta + kGaussS[g] * h));
        for (size_t k = 0; k < 4; ++k) w[k] += l[k] * e;
      }
      const auto node = [&](size_t c, size_t k) -> const Eigen::VectorXd& {
        return k == 0 ? steps[c].z0 : steps[c].z[k - 1];
      };
      for (size_t k = 0; k < 4; ++k)
        average->sum +=
            w[k] * (node(0, k).cast<std::complex<double>>() +
                    std::complex<double>(0, 1) * node(1, k).cast<std::complex<double>>());
    }
    for (size_t c = 0; c < z.size(); ++c) z[c] = steps[c].end();
  }
  return true;
}

void PeriodLinearization::cross(const Event& e, std::vector<Eigen::VectorXd>& z,
                                const std::vector<Wave>& wave, const Drive& drive,
                                Average* average) {
  const solvers::Mlcs& m = a_.mlcs;
  const solvers::KluFactor* lu = modes_->factor(m, e.post_mode, delta_);
  const Eigen::VectorXd fs = drive_vector(drive);
  std::vector<double> dt(z.size(), 0.0);
  for (size_t c = 0; c < z.size(); ++c) {
    if (e.guard >= 0) dt[c] = -e.gamma.dot(z[c]) / e.rate;
    Eigen::VectorXd q = m.E * z[c].head(n_) + e.qdot_jump * dt[c];
    for (int k = 1; k <= 2; ++k) {
      const double t = e.t + k * delta_;
      const double u = wave[c] == Wave::kCos   ? std::cos(drive.omega * t)
                       : wave[c] == Wave::kSin ? std::sin(drive.omega * t)
                                               : 0.0;
      Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n_ + m_);
      rhs.head(n_) = q / delta_ + fs * u;
      if (lu == nullptr) {
        z[c].setConstant(std::numeric_limits<double>::quiet_NaN());
        break;
      }
      lu->solve(rhs);
      z[c] = rhs;
      q = m.E * z[c].head(n_);
    }
  }
  if (average == nullptr) return;
  // The selection's interval [t, t_post] (a few δ), at the post-event value.
  average->sum += (e.t_post - e.t) * std::polar(1.0, -drive.omega * e.t) *
                  (z[0].cast<std::complex<double>>() +
                   std::complex<double>(0, 1) * z[1].cast<std::complex<double>>());
  if (e.guard >= 0)
    average->sum -= e.z_jump.cast<std::complex<double>>() * std::complex<double>(dt[0], dt[1]) *
                    std::polar(1.0, -drive.omega * e.t);
}

bool PeriodLinearization::propagate(std::vector<Eigen::VectorXd>& z, const std::vector<Wave>& wave,
                                    const Drive& drive, Average* average) {
  if (!error_.empty()) return false;
  for (size_t k = 0; k < segments_.size(); ++k) {
    cross(events_[k], z, wave, drive, average);
    if (!step_segment(segments_[k], z, wave, drive, average)) return false;
  }
  for (const auto& v : z)
    if (!v.allFinite()) {
      error_ = "a mode-selection matrix of the orbit is singular";
      return false;
    }
  return true;
}

bool PeriodLinearization::monodromy(Eigen::MatrixXd& phi) {
  const auto nd = static_cast<Eigen::Index>(d_.size());
  std::vector<Eigen::VectorXd> z(d_.size(), Eigen::VectorXd::Zero(n_ + m_));
  for (size_t k = 0; k < d_.size(); ++k) z[k][d_[k]] = 1;
  if (!propagate(z, std::vector<Wave>(d_.size(), Wave::kNone), {}, nullptr)) return false;
  phi.resize(nd, nd);
  for (size_t k = 0; k < d_.size(); ++k) phi.col(static_cast<Eigen::Index>(k)) = part(z[k], d_);
  return true;
}

bool PeriodLinearization::forced(int source, double omega, const Eigen::VectorXcd& c,
                                 Eigen::VectorXcd& z_end, Eigen::VectorXcd* average) {
  std::vector<Eigen::VectorXd> z(2, Eigen::VectorXd::Zero(n_ + m_));
  for (size_t k = 0; k < d_.size(); ++k) {
    z[0][d_[k]] = c[static_cast<Eigen::Index>(k)].real();
    z[1][d_[k]] = c[static_cast<Eigen::Index>(k)].imag();
  }
  Average acc{omega, Eigen::VectorXcd::Zero(n_ + m_)};
  if (!propagate(z, {Wave::kCos, Wave::kSin}, {source, omega}, average != nullptr ? &acc : nullptr))
    return false;
  z_end = z[0].cast<std::complex<double>>() +
          std::complex<double>(0, 1) * z[1].cast<std::complex<double>>();
  if (average != nullptr) *average = acc.sum / period_;
  return true;
}

}  // namespace nsspice::circuit::detail
