// The after-run check of LAMBDA's constant factor in the converted SPICE MOSFETs
// (mos_lambda_check.hpp, which states the sums and the tests).
#include "circuit/src/mos_lambda_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "circuit/src/pwl_conversion.hpp"

namespace nsspice::circuit::detail {

MosLambdaCheck::MosLambdaCheck(const Circuit& circuit) {
  if (circuit.pwl.idealize) return;
  for (const Device& device : circuit.devices) {
    const auto* m = std::get_if<Mosfet>(&device);
    if (m == nullptr || !m->model.spice || !(m->model.lambda > 0)) continue;
    const MosModel& q = m->model;
    Watch w;
    w.device = m->name;
    w.model = q.card_name();
    w.d = m->d, w.g = m->g, w.s = m->s;
    w.sign = q.pmos ? -1.0 : 1.0;
    w.vt = q.pmos ? -q.vto : q.vto;
    w.k = q.kp * m->w / m->l;
    w.lambda = q.lambda;
    w.factor = q.lambda_factor;
    if (const auto it = circuit.pwl.refit.find(w.model); it != circuit.pwl.refit.end())
      w.refitted = it->second.lambda.count(w.device) > 0;
    watches_.push_back(std::move(w));
  }
}

void MosLambdaCheck::add(double t, const Eigen::VectorXd& x) {
  auto node = [&](int n) { return n > 0 ? x[n - 1] : 0.0; };
  const double dt = started_ ? t - t_ : 0.0;
  for (Watch& w : watches_) {
    // ngspice's I_0 (pwl_mos_bias.cpp): the lower of drain and source is the source.
    const double vd = w.sign * node(w.d), vs = w.sign * node(w.s), vg = w.sign * node(w.g);
    const double vds = std::abs(vd - vs), over = vg - std::min(vd, vs) - w.vt;
    const double i0 = !(over > 0)   ? 0.0
                      : vds >= over ? 0.5 * w.k * over * over
                                    : w.k * (over * vds - 0.5 * vds * vds);
    const double f = 1 + w.lambda * vds;
    const double i_f = i0 * f, i_e = i0 * std::abs(f / w.factor - 1);
    w.conducted += 0.5 * (i0 + w.i) * dt;
    w.weighted += 0.5 * (i_f + w.i_f) * dt;
    w.erred += 0.5 * (i_e + w.i_e) * dt;
    w.i = i0, w.i_f = i_f, w.i_e = i_e;
    w.peak = std::max(w.peak, i0);
    if (i0 > 0 && i0 >= kLambdaShare * w.peak) {
      w.f_lo = std::min(w.f_lo, f);
      w.f_hi = std::max(w.f_hi, f);
    }
  }
  t_ = t, started_ = true;
}

MosLambdaCheck::Sums MosLambdaCheck::sums(size_t k) const {
  const Watch& w = watches_.at(k);
  Sums s;
  s.conducted = w.conducted;
  s.peak = w.peak;
  if (w.conducted > 0) {
    s.mean = w.weighted / w.conducted;
    s.error = w.erred / w.conducted;
    s.f_lo = w.f_lo, s.f_hi = w.f_hi;
  }
  return s;
}

void MosLambdaCheck::warn(std::vector<std::string>& warnings,
                          std::vector<LambdaMiss>& misses) const {
  for (size_t k = 0; k < watches_.size(); ++k) {
    const Watch& w = watches_[k];
    const Sums s = sums(k);
    if (!(s.conducted > 0) || !(s.error > kLambdaTolerance)) continue;
    const std::string used =
        w.refitted
            ? fmt::format("F = {:.5g} (an earlier run's charge-weighted 1 + λ·|v_ds|)", w.factor)
            : fmt::format("F = {:.5g} (1 + λ·|v_ds| at the initial point)", w.factor);
    const std::string met = fmt::format(
        "while its channel conducted, 1 + λ·|v_ds| was {:.5g}–{:.5g} (|v_ds| {:.3g}–{:.3g} V), "
        "{:.5g} on the charge-weighted average",
        s.f_lo, s.f_hi, (s.f_lo - 1) / w.lambda, (s.f_hi - 1) / w.lambda, s.mean);
    const bool refit = std::abs(s.mean / w.factor - 1) > kLambdaTolerance;
    warnings.push_back(fmt::format(
        "{} (model '{}'): LAMBDA {:g} /V is the constant factor {} on the PWL current; {}: "
        "ngspice's current, I_0·(1 + λ·|v_ds|), differs from the PWL one by {:.2g} % on average "
        "(charge-weighted){}",
        w.device, w.model, w.lambda, used, met, 100 * s.error,
        refit ? ""
              : "; no constant factor does better (LAMBDA·v_ds is a product of two voltages, "
                "which the PWL MOS does not represent)"));
    if (!refit) continue;
    LambdaMiss miss;
    miss.device = w.device;
    miss.model = w.model;
    miss.factor = s.mean;
    miss.met = fmt::format("{} against {}, a current error of {:.2g} % on average", met, used,
                           100 * s.error);
    misses.push_back(std::move(miss));
  }
}

}  // namespace nsspice::circuit::detail
