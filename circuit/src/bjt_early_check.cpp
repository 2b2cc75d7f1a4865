// The after-run measure of the forward Early effect the PWL bipolar transistors leave out
// (bjt_early_check.hpp, which states the sums).
#include "circuit/src/bjt_early_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "circuit/src/pwl_junctions.hpp"

namespace nsspice::circuit::detail {

BjtEarlyCheck::BjtEarlyCheck(const Circuit& circuit, const Assembled& assembled) {
  if (circuit.pwl.idealize) return;
  for (const JunctionBranch& j : junction_branches(circuit, assembled)) {
    const auto* q = std::get_if<Bjt>(&circuit.devices[j.device]);
    if (q == nullptr || !(q->model.vaf > 0) || (j.label != "B-E" && j.label != "E-B")) continue;
    Watch w;
    w.name = j.name;
    w.model = j.model;
    w.pairs = j.pairs;
    w.c = q->c;
    w.b = q->b;
    w.sign = q->model.pnp ? -1.0 : 1.0;
    w.vaf = q->model.vaf;
    w.alpha = q->model.bf / (1 + q->model.bf);
    watches_.push_back(std::move(w));
  }
}

void BjtEarlyCheck::add(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda) {
  auto node = [&](int n) { return n > 0 ? x[n - 1] : 0.0; };
  for (Watch& w : watches_) {
    double i = 0;
    for (int j : w.pairs) i += lambda[j];
    i = std::max(0.0, w.alpha * i);
    const double f = 1 + w.sign * (node(w.c) - node(w.b)) / w.vaf;
    if (w.seen) {
      w.weight += 0.5 * (i + w.i_last) * (t - w.t_last);
      w.weighted += 0.5 * (f * i + w.fi_last) * (t - w.t_last);
    }
    w.peak = std::max(w.peak, i);
    if (i > 0 && i >= kEarlyShare * w.peak) {
      w.f_lo = std::min(w.f_lo, f);
      w.f_hi = std::max(w.f_hi, f);
    }
    w.t_last = t, w.i_last = i, w.fi_last = f * i, w.seen = true;
  }
}

BjtEarlyCheck::Figures BjtEarlyCheck::figures(size_t k) const {
  const Watch& w = watches_.at(k);
  Figures f;
  if (w.weight > 0) {
    f.mean = w.weighted / w.weight;
    f.f_lo = w.f_lo, f.f_hi = w.f_hi;
  }
  return f;
}

void BjtEarlyCheck::warn(std::vector<std::string>& warnings) const {
  for (size_t k = 0; k < watches_.size(); ++k) {
    const Watch& w = watches_[k];
    const Figures f = figures(k);
    if (!(std::abs(f.mean - 1) > kEarlyTolerance)) continue;
    warnings.push_back(fmt::format(
        "{} (model '{}'): VAF = {:g} V is not modelled (the PWL Ebers–Moll model has no Early "
        "effect): over this run ngspice's collector current would be on average {:.3g} times the "
        "PWL one (1 + v_cb/VAF from {:.3g} to {:.3g} while it conducted), so the collector "
        "current and what it drives are off by about {:+.0f} %",
        w.name, w.model, w.vaf, f.mean, f.f_lo, f.f_hi, 100 * (1 / f.mean - 1)));
  }
}

}  // namespace nsspice::circuit::detail
