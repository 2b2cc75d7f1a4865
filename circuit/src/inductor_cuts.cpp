// Inductor currents cut by an opening ideal switch (inductor_cuts.hpp has the equations).
#include "circuit/src/inductor_cuts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace nsspice::circuit::detail {

double InductorCut::impulse() const { return l * std::abs(i_before - i_after); }

double InductorCut::energy() const { return 0.5 * l * (i_before * i_before - i_after * i_after); }

std::string InductorCut::describe() const {
  return fmt::format(
      "t = {:.9g} s: switch {} cuts the current of {} ({:.6g} A -> {:.6g} A): voltage impulse "
      "L·Δi = {:.4g} V·s across the opening switch, energy {:.4g} J lost in the jump (the ideal "
      "model has no finite voltage for it; add a freewheeling path or a snubber, or give the "
      "switch a finite ROFF)",
      t, switches, inductor, i_before + 0.0, i_after + 0.0, impulse(), energy());  // no "-0"
}

CutDetector::CutDetector(const Circuit& circuit, const Assembled& assembled) : a_(assembled) {
  for (const Device& d : circuit.devices) {
    const auto* l = std::get_if<Inductor>(&d);
    if (l == nullptr) continue;
    const auto it =
        std::find(a_.unknown_names.begin(), a_.unknown_names.end(), "i(" + l->name + ")");
    if (it != a_.unknown_names.end())
      inductors_.push_back({l->name, static_cast<int>(it - a_.unknown_names.begin()), l->l});
  }
  // Ideal switches only (GOFF = 0): with a finite ROFF the current decays through it, with a
  // finite voltage, and nothing is cut.
  for (const auto& sw : a_.mlcs.switches) {
    const int device = a_.pair_device[static_cast<size_t>(sw.pair)];
    const auto* s = std::get_if<Switch>(&circuit.devices[static_cast<size_t>(device)]);
    if (s != nullptr && s->model.goff == 0) switch_pairs_.push_back(sw.pair);
  }
}

std::vector<std::string> CutDetector::opened(const std::vector<char>& before,
                                             const std::vector<char>& after) const {
  std::vector<std::string> out;
  for (int j : switch_pairs_) {
    const auto k = static_cast<size_t>(j);
    if (k < before.size() && k < after.size() && before[k] && !after[k])
      out.push_back(a_.pair_names[k]);
  }
  return out;
}

void CutDetector::check(double t, const Eigen::VectorXd& x_before, const Eigen::VectorXd& x_after,
                        const std::vector<std::string>& opened,
                        std::vector<InductorCut>& out) const {
  if (opened.empty()) return;
  std::string names;
  for (const auto& s : opened) names += (names.empty() ? "" : " ") + s;
  for (const Watched& w : inductors_) {
    const double i0 = x_before[w.unknown], i1 = x_after[w.unknown];
    if (std::abs(i0) > kCutFloor && std::abs(i1 - i0) > 0.5 * std::abs(i0))
      out.push_back({t, w.name, names, w.l, i0, i1});
  }
}

void report_cuts(const std::vector<InductorCut>& cuts, std::vector<std::string>& warnings) {
  for (size_t k = 0; k < cuts.size() && k < kCutsReported; ++k)
    warnings.push_back(cuts[k].describe());
  if (cuts.size() > kCutsReported)
    warnings.push_back(
        fmt::format("{} more inductor currents cut by opening switches (the first "
                    "{} are listed above)",
                    cuts.size() - kCutsReported, kCutsReported));
}

}  // namespace nsspice::circuit::detail
