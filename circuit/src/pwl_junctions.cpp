// The PWL junction branches of a circuit (circuit/src/pwl_junctions.hpp). A branch's pairs are
// those of its device whose role (Assembled::pair_roles) starts with the branch's label
// ("forward 2/6", "B-E 3/6", "ISE"); a diode of one forward pair has the role "".
#include "circuit/src/pwl_junctions.hpp"

#include <algorithm>

namespace nsspice::circuit::detail {
namespace {

bool starts(const std::string& role, const std::string& label) {
  return role.compare(0, label.size(), label) == 0;
}

const DiodeConversion* conversion(const Circuit& c, const std::string& model) {
  const auto it = std::find_if(c.conversions.begin(), c.conversions.end(),
                               [&](const DiodeConversion& x) { return x.model == model; });
  return it == c.conversions.end() ? nullptr : &*it;
}

template <class C>
auto& segments_of(C& circuit, const JunctionBranch& j) {
  auto& dev = circuit.devices[j.device];
  if (auto* d = std::get_if<Diode>(&dev))
    return j.label == "breakdown" ? d->model.reverse : d->model.forward;
  auto& q = std::get<Bjt>(dev).model;
  if (j.label == "ISE") return q.be_leak.forward;
  if (j.label == "ISC") return q.bc_leak.forward;
  return j.label == "B-E" || j.label == "E-B" ? q.be : q.bc;
}

}  // namespace

std::vector<JunctionBranch> junction_branches(const Circuit& circuit, const Assembled& assembled) {
  std::vector<JunctionBranch> out;
  // Each device's pairs in pair order, in one pass over the pairs (a scan of every pair for
  // every device was quadratic: 10⁴ SPICE diodes of 6 segments took a second).
  std::vector<std::vector<int>> pairs_of(circuit.devices.size());
  for (size_t p = 0; p < assembled.pair_device.size(); ++p) {
    const int dev = assembled.pair_device[p];
    if (dev >= 0 && static_cast<size_t>(dev) < pairs_of.size())
      pairs_of[static_cast<size_t>(dev)].push_back(static_cast<int>(p));
  }
  for (size_t k = 0; k < circuit.devices.size(); ++k) {
    const Device& dev = circuit.devices[k];
    const auto* d = std::get_if<Diode>(&dev);
    const auto* q = std::get_if<Bjt>(&dev);
    if ((d == nullptr || d->model.forward.empty()) && q == nullptr) continue;
    const DiodeConversion* conv = conversion(circuit, d ? d->model.name : q->model.name);
    if (conv == nullptr || conv->forward_fit.curve.segments.empty()) continue;
    const double area = q ? q->area : 1.0;
    const std::string& name = device_name(dev);
    std::vector<JunctionBranch> branches;
    branches.push_back({k,
                        name,
                        conv->model,
                        conv->forward_label,
                        conv->forward,
                        conv->forward_fit.imin,
                        conv->forward_fit.imax,
                        area,
                        {}});
    if (conv->reverse && !conv->reverse_fit.curve.segments.empty())
      branches.push_back({k,
                          name,
                          conv->model,
                          conv->reverse_label,
                          *conv->reverse,
                          conv->reverse_fit.imin,
                          conv->reverse_fit.imax,
                          area,
                          {}});
    for (const DiodeConversion::Leak& leak : conv->leaks)
      branches.push_back(
          {k, name, conv->model, leak.label, leak.branch, leak.fit.imin, leak.fit.imax, area, {}});
    for (int p : pairs_of[k]) {
      const std::string& role = assembled.pair_roles[static_cast<size_t>(p)];
      for (JunctionBranch& b : branches)
        if (role.empty() ? d != nullptr && b.label == "forward" : starts(role, b.label))
          b.pairs.push_back(p);
    }
    for (JunctionBranch& b : branches)
      if (!b.pairs.empty()) out.push_back(std::move(b));
  }
  return out;
}

std::vector<PwlSegment>& junction_segments(Circuit& circuit, const JunctionBranch& j) {
  return segments_of(circuit, j);
}

const std::vector<PwlSegment>& junction_segments(const Circuit& circuit, const JunctionBranch& j) {
  return segments_of(circuit, j);
}

}  // namespace nsspice::circuit::detail
