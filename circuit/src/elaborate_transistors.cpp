// M and Q cards → devices (docs/devices.md). Every linear part of a transistor model becomes a
// device of its own, named after the transistor, so that it is stamped, reported and probed as
// any other:
//
//   MOS level 1:   d ── RD "m.rd" ── m.d,   s ── RS "m.rs" ── m.s          (when RD, RS > 0);
//                  SPICE cards: the bulk diodes "m.dbd" b → m.d, "m.dbs" b → m.s (PMOS reversed)
//   VDMOS:         also g ── RG "m.rg" ── m.g, RDS "m.rds" from d to s, CGS "m.cgs" from m.g to
//                  m.s, the body diode "m.body" from s to d (PMOS: d to s) with RB in its PWL
//                  branch; CGD "m.cgd" (m.g to m.d) is added with the PWL conversion
//                  (pwl_models.cpp), which fixes its bias range
//   BJT:           c ── RC "q.rc" ── q.c,  b ── RB "q.rb" ── q.b,  e ── RE "q.re" ── q.e;
//                  CJE, CJC with the PWL conversion
//
// A BJT's AREA (positional or AREA=) times its M= scales IS, ISE, ISC, CJE, CJC and divides
// RB, RC, RE, as in ngspice.
#include <fmt/format.h>

#include <cmath>

#include "circuit/src/elaborator.hpp"

namespace nsspice::circuit::detail {

int Elaborator::series_resistor(const netlist::ElementCard& e, int outer, double r,
                                const char* key) {
  if (!(r > 0)) return outer;
  const std::string& name = e.name.lower;
  const int inner = named_node(e, fmt::format("{}.{}", name, key));
  add(e, Resistor{fmt::format("{}.r{}", name, key), outer, inner, r});
  model_resistors_.insert(fmt::format("{}.r{}", name, key));
  c_.series_nodes.emplace_back(outer, inner);
  return inner;
}

const MosModel* Elaborator::mos_instance_model(const netlist::ElementCard& e, const MosModel& m) {
  // M devices in parallel, as ngspice scales a level-1 MOSFET or a VDMOS (docs/devices.md, "Area
  // and M"): K = KP·W/L and the capacitances times M, the series resistances over M, the body
  // diodes M junctions.
  const double mult = param(e, "m").value_or(1.0);
  if (!(mult > 0) || !std::isfinite(mult)) {
    error(e, e.name.span, fmt::format("MOSFET '{}' needs M > 0, got {:g}", e.name.lower, mult));
    return nullptr;
  }
  if (mult == 1.0) {
    plain_cards_.insert(m.name);
    return &m;
  }
  const std::string key = fmt::format("{}(m={:g})", m.name, mult);
  if (auto it = models_.find(key); it != models_.end()) return std::get_if<MosModel>(&it->second);
  MosModel q = m;
  q.name = key;
  q.card = m.card_name();
  q.mult = mult;
  q.kp *= mult;
  q.rd /= mult, q.rs /= mult, q.rg /= mult, q.rds /= mult;
  q.cgs *= mult, q.cgdmax *= mult, q.cgdmin *= mult;
  q.body = scaled_diode(m.body, 1.0, mult);
  q.body.card = m.body.card_name();
  if (m.body.name.starts_with(m.name)) q.body.name = key + m.body.name.substr(m.name.size());
  return std::get_if<MosModel>(&models_.emplace(key, std::move(q)).first->second);
}

void Elaborator::mosfet(const netlist::ElementCard& e) {
  const std::string& name = e.name.lower;
  const auto* card = model_of<MosModel>(e, "MOSFET", "NMOS, PMOS or VDMOS");
  if (card == nullptr) return;
  const auto* m = mos_instance_model(e, *card);
  if (m == nullptr) return;
  if (!m->vdmos && !nodes_ok(e, 4, "MOSFET")) return;
  if (m->vdmos && e.nodes.size() == 4)
    warning(e, e.nodes[3].span,
            fmt::format("the 4th node '{}' of VDMOS '{}' is not used: a VDMOS has drain, gate and "
                        "source (its body diode joins source and drain)",
                        e.nodes[3].text, name));
  const int d = node(e.nodes[0]), g = node(e.nodes[1]), s = node(e.nodes[2]);
  Mosfet q{name, d, g, s, m->vdmos ? s : node(e.nodes[3]), *m};
  if (auto w = param(e, "w")) q.w = *w;
  if (auto l = param(e, "l")) q.l = *l;
  if (!(q.w > 0) || !(q.l > 0)) {
    error(e, e.name.span, fmt::format("MOSFET '{}' needs W > 0 and L > 0", name));
    return;
  }
  if (m->vdmos) {
    if (param(e, "w") || param(e, "l"))
      warning(e, e.name.span,
              fmt::format("W and L of VDMOS '{}' are not used: its K is the model's KP", name));
    q.w = q.l = 1;
    if (m->rds > 0) {
      add(e, Resistor{name + ".rds", d, s, m->rds});
      model_resistors_.insert(name + ".rds");
    }
    const bool n = !m->pmos;
    add(e, Diode{name + ".body", n ? s : d, n ? d : s, m->body});
    q.g = series_resistor(e, g, m->rg, "g");
  }
  q.d = series_resistor(e, d, m->rd, "d");
  q.s = series_resistor(e, s, m->rs, "s");
  if (!m->vdmos && m->spice) bulk_diodes(e, q);
  if (m->vdmos && m->cgs > 0) add(e, Capacitor{name + ".cgs", q.g, q.s, m->cgs, std::nullopt});
  add(e, q);
}

// A level-1 MOSFET's bulk junctions, SPICE diodes "m.dbd" (bulk → internal drain) and "m.dbs"
// (bulk → internal source), PMOS reversed; one whose two ends are one node (bulk tied to the
// source) is left out: it never conducts. With the bulk on the source, "m.dbd" is the body diode.
void Elaborator::bulk_diodes(const netlist::ElementCard& e, const Mosfet& q) {
  const bool n = !q.model.pmos;
  for (const auto& [key, node] : {std::pair{"dbd", q.d}, std::pair{"dbs", q.s}}) {
    if (node == q.b) continue;
    add(e, Diode{fmt::format("{}.{}", q.name, key), n ? q.b : node, n ? node : q.b, q.model.body});
  }
}

void Elaborator::bjt(const netlist::ElementCard& e) {
  const std::string& name = e.name.lower;
  if (e.nodes.size() != 3 && e.nodes.size() != 4) {
    error(e, e.name.span,
          fmt::format("bipolar transistor '{}' needs 3 nodes (collector base emitter) and an "
                      "optional substrate node",
                      name));
    return;
  }
  const auto* m = model_of<BjtModel>(e, "bipolar transistor", "NPN or PNP");
  if (m == nullptr) return;
  double area = e.value ? e.value->value : 1.0;
  if (auto a = param(e, "area")) area = *a;
  if (auto mult = param(e, "m")) area *= *mult;
  if (!(area > 0) || !std::isfinite(area)) {
    error(e, e.name.span,
          fmt::format("bipolar transistor '{}' needs an area (times M) > 0, got {:g}", name, area));
    return;
  }
  // A 4th node is the substrate: without CJS nothing of the model joins it.
  const int c = node(e.nodes[0]), b = node(e.nodes[1]), em = node(e.nodes[2]);
  Bjt q{name, c, b, em, *m, area};
  q.c = series_resistor(e, c, m->rc / area, "c");
  q.b = series_resistor(e, b, m->rb / area, "b");
  q.e = series_resistor(e, em, m->re / area, "e");
  add(e, q);
}

}  // namespace nsspice::circuit::detail
