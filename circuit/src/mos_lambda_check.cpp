// The after-run check of LAMBDA's constant factor in the converted SPICE MOSFETs
// (mos_lambda_check.hpp, which states the sums and the tests).
#include "circuit/src/mos_lambda_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "circuit/src/pwl_conversion.hpp"
#include "circuit/src/pwl_mos_bias.hpp"

namespace nsspice::circuit::detail {

MosLambdaCheck::MosLambdaCheck(const Circuit& circuit) {
  if (circuit.pwl.idealize) return;
  for (const Device& device : circuit.devices) {
    const auto* m = std::get_if<Mosfet>(&device);
    if (m == nullptr || !m->model.spice || !(m->model.lambda > 0)) continue;
    const MosModel& q = m->model;
    Watch w;
    w.mos = m;
    w.model = q.card_name();
    w.k = q.kp * m->w / m->l;
    w.factor = q.lambda_factor;
    w.refitted = lambda_refit(circuit, *m) > 0;
    watches_.push_back(std::move(w));
  }
}

void MosLambdaCheck::add(double t, const Eigen::VectorXd& x) {
  const double dt = started_ ? t - t_ : 0.0;
  for (Watch& w : watches_) {
    const MosBias b = mos_bias(*w.mos, x);  // ngspice's channel (pwl_mos_bias.hpp)
    const double i0 = b.current(w.k);
    const double f = 1 + w.mos->model.lambda * b.vds;
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
        s.f_lo, s.f_hi, (s.f_lo - 1) / w.mos->model.lambda, (s.f_hi - 1) / w.mos->model.lambda,
        s.mean);
    const bool refit = std::abs(s.mean / w.factor - 1) > kLambdaTolerance;
    warnings.push_back(fmt::format(
        "{} (model '{}'): LAMBDA {:g} /V is the constant factor {} on the PWL current; {}: "
        "ngspice's current, I_0·(1 + λ·|v_ds|), differs from the PWL one by {:.2g} % on average "
        "(charge-weighted){}",
        w.mos->name, w.model, w.mos->model.lambda, used, met, 100 * s.error,
        refit ? ""
              : "; no constant factor does better (LAMBDA·v_ds is a product of two voltages, "
                "which the PWL MOS does not represent)"));
    if (!refit) continue;
    LambdaMiss miss;
    miss.device = w.mos->name;
    miss.model = w.model;
    miss.factor = s.mean;
    miss.met = fmt::format("{} against {}, a current error of {:.2g} % on average", met, used,
                           100 * s.error);
    misses.push_back(std::move(miss));
  }
}

MosLambdaSweepCheck::MosLambdaSweepCheck(const Circuit& circuit) {
  if (circuit.pwl.idealize) return;
  for (const Device& device : circuit.devices) {
    const auto* m = std::get_if<Mosfet>(&device);
    if (m == nullptr || !m->model.spice || !(m->model.lambda > 0)) continue;
    Watch w;
    w.mos = m;
    w.model = m->model.card_name();
    w.k = m->model.kp * m->w / m->l;
    w.factor = m->model.lambda_factor;
    watches_.push_back(std::move(w));
  }
}

void MosLambdaSweepCheck::add(const Eigen::VectorXd& x, const std::function<std::string()>& where) {
  for (Watch& w : watches_) {
    const MosBias b = mos_bias(*w.mos, x);
    const double i0 = b.current(w.k);
    w.peak = std::max(w.peak, i0);
    if (!(i0 > 0) || i0 < kLambdaShare * w.peak) continue;
    const double f = 1 + w.mos->model.lambda * b.vds;
    w.f_lo = std::min(w.f_lo, f);
    w.f_hi = std::max(w.f_hi, f);
    const double e = std::abs(w.factor / f - 1);
    if (e <= w.worst) continue;
    w.worst = e, w.worst_f = f, w.worst_vds = b.vds;
    w.where = where();
  }
}

void MosLambdaSweepCheck::warn(std::vector<std::string>& warnings) const {
  for (const Watch& w : watches_) {
    if (!(w.worst > kLambdaTolerance)) continue;
    const double lambda = w.mos->model.lambda;
    warnings.push_back(fmt::format(
        "{} (model '{}'): LAMBDA {:g} /V is the constant factor F = {:.5g} on the PWL drain "
        "current (1 + λ·|v_ds| at the operating point of the netlist as written; LAMBDA·v_ds is "
        "a product of two voltages, which the PWL MOS does not represent); over the sweep, where "
        "the channel conducted, 1 + λ·|v_ds| was {:.5g}–{:.5g} (|v_ds| {:.3g}–{:.3g} V): the "
        "PWL current is {:+.2g} % off ngspice's I_0·(1 + λ·|v_ds|) at {} (|v_ds| {:.4g} V), "
        "and the output conductance λ·I_0 is missing throughout; a .dc over a .param that sets "
        "the source's value elaborates the circuit, and fits F, at every point",
        w.mos->name, w.model, lambda, w.factor, w.f_lo, w.f_hi, (w.f_lo - 1) / lambda,
        (w.f_hi - 1) / lambda, 100 * (w.factor / w.worst_f - 1), w.where, w.worst_vds));
  }
}

}  // namespace nsspice::circuit::detail
