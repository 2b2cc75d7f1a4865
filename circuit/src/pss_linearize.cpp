// The linearization of the event map's period (equations in pss_linearize.hpp; docs/theory.md
// §14), the propagation: the perturbation columns carried through the phases by Radau IIA steps,
// across the events by the saltation and the selection steps; the monodromy and the forced
// response with its harmonic average. The orbit's structure is pss_orbit.cpp's.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "circuit/src/pss_linearize_parts.hpp"
#include "circuit/src/pss_map.hpp"
#include "solvers/time/event_driven.hpp"

namespace nsspice::circuit::detail {
namespace {

using solvers::SparseMatrix;
using solvers::Triplets;

// Gauss–Legendre, 6 points on [0, 1].
constexpr std::array<double, 6> kGaussS = {0.033765242898423989, 0.169395306766867743,
                                           0.380690406958401546, 0.619309593041598454,
                                           0.830604693233132257, 0.966234757101576011};
constexpr std::array<double, 6> kGaussW = {0.085662246189585173, 0.180380786524069304,
                                           0.233956967286345523, 0.233956967286345523,
                                           0.180380786524069304, 0.085662246189585173};

}  // namespace

PeriodLinearization::PeriodLinearization(const Assembled& a, const std::vector<OrbitPoint>& orbit,
                                         double period, double h_max, double delta,
                                         const std::string& undefined)
    : a_(a),
      period_(period),
      h_max_(h_max),
      delta_(delta),
      n_(a.mlcs.n),
      m_(a.mlcs.m),
      d_(dynamic_columns(a.mlcs.E)),
      modes_(std::make_unique<Modes>()),
      error_(undefined) {
  if (!error_.empty()) return;
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
  const Eigen::VectorXd fs = drive_vector(drive);
  std::vector<double> dt(z.size(), 0.0);
  for (size_t c = 0; c < z.size(); ++c) {
    if (e.guard >= 0) dt[c] = -e.gamma.dot(z[c]) / e.rate;
    Eigen::VectorXd q = m.E * z[c].head(n_);
    if (e.guard >= 0) q += e.qdot_pre * dt[c];
    // Each backward-Euler step of the selection(s) in the mode that step selected.
    for (size_t k = 0; k < e.steps.size(); ++k) {
      const solvers::KluFactor* lu = modes_->factor(m, e.steps[k], delta_);
      if (lu == nullptr) {
        z[c].setConstant(std::numeric_limits<double>::quiet_NaN());
        break;
      }
      const double t = e.t + static_cast<double>(k + 1) * delta_;
      const double u = wave[c] == Wave::kCos   ? std::cos(drive.omega * t)
                       : wave[c] == Wave::kSin ? std::sin(drive.omega * t)
                                               : 0.0;
      Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n_ + m_);
      rhs.head(n_) = q / delta_ + fs * u;
      if (e.guard >= 0) rhs.head(n_) += e.bdot[k] * dt[c];
      lu->solve(rhs);
      z[c] = rhs;
      q = m.E * z[c].head(n_);
    }
    // Referred to the nominal post-event trajectory at the same time: the phase after the event
    // starts δt later (only E δx enters its first step).
    if (e.guard >= 0) z[c] -= e.xdot_post * dt[c];
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
