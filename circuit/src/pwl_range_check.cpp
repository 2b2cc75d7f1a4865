// The peak current of each PWL branch of a converted SPICE diode, Σ λ_k over its pairs, against
// the imax of its fit (pwl_models.cpp): above it the last chord continues and the voltage error
// bound |v_PWL − v| ≤ tol(v) no longer holds. A bipolar transistor's two junctions likewise
// (their fits at area 1: imax times the device's area). The pairs of a branch are those whose
// role (Assembled::pair_roles) names it: "forward", "forward 2/6", "breakdown", "B-E 3/6", ...;
// a diode of one pair has the role "".
#include "circuit/src/pwl_range_check.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace nsspice::circuit::detail {

namespace {

bool starts(const std::string& role, const std::string& label) {
  return role.compare(0, label.size(), label) == 0;
}

}  // namespace

PwlRangeCheck::PwlRangeCheck(const Circuit& circuit, const Assembled& assembled) {
  for (size_t k = 0; k < circuit.devices.size(); ++k) {
    const Device& dev = circuit.devices[k];
    const auto* d = std::get_if<Diode>(&dev);
    const auto* q = std::get_if<Bjt>(&dev);
    if ((d == nullptr || d->model.forward.empty()) && q == nullptr) continue;
    const std::string& model = d ? d->model.name : q->model.name;
    const auto conv = std::find_if(circuit.conversions.begin(), circuit.conversions.end(),
                                   [&](const DiodeConversion& c) { return c.model == model; });
    if (conv == circuit.conversions.end()) continue;
    const double area = q ? q->area : 1.0;
    Watch w{device_name(dev),
            model,
            conv->forward_label,
            conv->reverse_label,
            {},
            {},
            area * conv->forward_fit.imax,
            area * conv->reverse_fit.imax,
            0,
            0};
    for (size_t j = 0; j < assembled.pair_device.size(); ++j) {
      if (assembled.pair_device[j] != static_cast<int>(k)) continue;
      const std::string& role = assembled.pair_roles[j];
      if (starts(role, w.forward_label) || (d && role.empty()))
        w.forward.push_back(static_cast<int>(j));
      else if (starts(role, w.reverse_label))
        w.reverse.push_back(static_cast<int>(j));
    }
    watches_.push_back(std::move(w));
  }
}

void PwlRangeCheck::add(const Eigen::VectorXd& lambda) {
  for (Watch& w : watches_) {
    double f = 0, r = 0;
    for (int j : w.forward) f += lambda[j];
    for (int j : w.reverse) r += lambda[j];
    w.peak_forward = std::max(w.peak_forward, f);
    w.peak_reverse = std::max(w.peak_reverse, r);
  }
}

void PwlRangeCheck::warn(std::vector<std::string>& warnings) const {
  for (const Watch& w : watches_) {
    const auto one = [&](const char* branch, double peak, double imax) {
      if (!(peak > imax)) return;
      warnings.push_back(fmt::format(
          "{} (model '{}'): the {} current reached {:.3g} A, above the range of its PWL fit "
          "(imax = {:.3g} A), where the voltage error bound does not hold; set .options "
          "pwlimax={:.2g} and run again",
          w.device, w.model, branch, peak, imax, 2 * peak));
    };
    one(w.forward_label.c_str(), w.peak_forward, w.imax_forward);
    if (!w.reverse.empty()) one(w.reverse_label.c_str(), w.peak_reverse, w.imax_reverse);
  }
}

}  // namespace nsspice::circuit::detail
