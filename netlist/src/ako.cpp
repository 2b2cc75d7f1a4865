// PSpice's AKO models ("a kind of"): `.MODEL QP AKO:QP350 [PNP] (BF=150 VA=100)` is the model
// QP350 with BF and VA replaced or added. Vendor libraries (ADI's, TI's) write families of
// transistors and diodes so; ngspice reads them in its PSpice mode.
//
//   resolve_ako: every AKO card of the tree becomes a full card, before flatten() evaluates
//                anything: its base's type (unless the card names one) and parameters, those the
//                card gives replacing the base's of the same name. The base is the .model of
//                that name in the card's own body, else in the bodies around it, out to the
//                netlist's (PSpice's scope; ngspice's looks in the same places). Bases that are
//                AKO cards themselves are resolved first; a cycle or an unknown base is an error
//                at the card, which is then dropped. The base's expressions are evaluated where
//                the AKO card is (its own body, in the usual case).
#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "netlist/src/flatten_detail.hpp"

namespace nsspice::netlist::detail {
namespace {

constexpr int kMaxAkoChain = 64;

class AkoResolver {
 public:
  explicit AkoResolver(Reporter& reporter) : reporter_(reporter) {}

  void body(std::vector<Card>& cards, std::vector<SubcktDef>& subckts) {
    bodies_.push_back(&cards);
    for (Card& c : cards)
      if (auto* m = std::get_if<ModelCard>(&c); m != nullptr && m->ako) resolve(*m, 0);
    // Cards whose base was not found are dropped (their error is reported).
    cards.erase(std::remove_if(cards.begin(), cards.end(),
                               [](const Card& c) {
                                 const auto* m = std::get_if<ModelCard>(&c);
                                 return m != nullptr && m->ako.has_value();
                               }),
                cards.end());
    for (SubcktDef& d : subckts) body(d.cards, d.subckts);
    bodies_.pop_back();
  }

 private:
  Reporter& reporter_;
  std::vector<std::vector<Card>*> bodies_;  // the body being resolved last, the netlist first
  std::unordered_set<const ModelCard*> active_;
  std::unordered_set<const ModelCard*> failed_;  // reported once (a cycle: at one card)

  ModelCard* find(const std::string& name, const ModelCard& from) {
    for (auto b = bodies_.rbegin(); b != bodies_.rend(); ++b)
      for (Card& c : **b)
        if (auto* m = std::get_if<ModelCard>(&c);
            m != nullptr && m != &from && m->name.lower == name)
          return m;
    return nullptr;
  }

  // True when `m` is (now) a full card.
  bool resolve(ModelCard& m, int depth) {
    if (!m.ako) return true;
    if (failed_.count(&m) > 0) return false;
    const bool ok = merge(m, depth);
    if (!ok) failed_.insert(&m);
    return ok;
  }

  bool merge(ModelCard& m, int depth) {
    const Word base_name = *m.ako;
    ModelCard* base = find(base_name.lower, m);
    if (base == nullptr) {
      reporter_.report(Severity::kError, base_name.span,
                       fmt::format("AKO model '{}': no model '{}' to be a kind of (in this "
                                   "subcircuit or around it)",
                                   m.name.lower, base_name.lower),
                       nullptr);
      return false;
    }
    if (base->ako) {
      if (depth >= kMaxAkoChain || active_.count(base) > 0) {
        reporter_.report(Severity::kError, base_name.span,
                         fmt::format("AKO model '{}': its chain of bases comes back to '{}'",
                                     m.name.lower, base->name.lower),
                         nullptr);
        return false;
      }
      active_.insert(&m);
      const bool ok = resolve(*base, depth + 1);
      active_.erase(&m);
      if (!ok) return false;  // reported at the base
    }
    std::vector<Param> params;
    for (const Param& p : base->params) {
      const bool replaced = std::any_of(m.params.begin(), m.params.end(), [&](const Param& q) {
        return q.name.lower == p.name.lower;
      });
      if (!replaced) params.push_back(p);
    }
    params.insert(params.end(), m.params.begin(), m.params.end());
    m.params = std::move(params);
    if (m.type.text.empty()) m.type = base->type;
    m.ako.reset();
    return true;
  }
};

}  // namespace

void resolve_ako(Netlist& net, Reporter& reporter) {
  AkoResolver(reporter).body(net.cards, net.subckts);
}

}  // namespace nsspice::netlist::detail
