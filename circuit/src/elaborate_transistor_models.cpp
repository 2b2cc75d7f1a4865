// .model cards of ngspice's VDMOS and of bipolar transistors (NPN, PNP): the parameters each
// takes, their defaults (ngspice's) and what has no PWL meaning (docs/devices.md):
//
//   VDMOS  VTO KP RD RS RG RDS CGS CGDMAX CGDMIN A, body diode IS N RB BV IBV NBV CJO VJ M FC TT
//          EG XTI, MU TCVTH TNOM; PCHAN/NCHAN flags. LAMBDA at the initial point
//          (pwl_mos_bias.cpp); THETA MTRIODE KSUBTHRES: warned with the size of what they change;
//          the rest of ngspice's list named once.
//   NPN/PNP  IS BF BR NF NR RB RC RE ISE NE ISC NC CJE VJE MJE CJC VJC MJC FC TF TR EG XTI TNOM;
//          VAF VAR IKF IKR warned with their effect; the rest named once.
#include <fmt/format.h>

#include <set>

#include "circuit/src/elaborate_model_specs.hpp"

namespace nsspice::circuit::detail {

std::vector<Spec> vdmos_specs(MosModel& q, double& sink) {
  DiodeModel& d = q.body;
  return {{"vto", &q.vto, Range::kAny},
          {"vth0", &q.vto, Range::kAny},
          {"kp", &q.kp, Range::kPositive},
          {"rd", &q.rd, Range::kNonNegative},
          {"rs", &q.rs, Range::kNonNegative},
          {"rg", &q.rg, Range::kNonNegative},
          {"rds", &q.rds, Range::kPositive},
          {"cgs", &q.cgs, Range::kNonNegative},
          {"cgdmax", &q.cgdmax, Range::kNonNegative},
          {"cgdmin", &q.cgdmin, Range::kNonNegative},
          {"a", &q.a, Range::kPositive},
          {"lambda", &q.lambda, Range::kNonNegative},
          {"mu", &q.mu, Range::kAny},
          {"bex", &q.mu, Range::kAny},
          {"tcvth", &q.tcvth, Range::kAny},
          {"vtotc", &q.tcvth, Range::kAny},
          {"tnom", &q.tnom, Range::kAny},
          {"is", &d.is, Range::kPositive},
          {"n", &d.n, Range::kPositive},
          {"rb", &d.rs, Range::kNonNegative},
          {"bv", &d.bv, Range::kPositive},
          {"ibv", &d.ibv, Range::kPositive},
          {"nbv", &d.nbv, Range::kPositive},
          {"cjo", &d.cjo, Range::kNonNegative},
          {"vj", &d.vj, Range::kPositive},
          {"m", &d.m, Range::kNonNegative},
          {"fc", &d.fc, Range::kNonNegative},
          {"tt", &d.tt, Range::kNonNegative},
          {"eg", &d.eg, Range::kPositive},
          {"xti", &d.xti, Range::kAny},
          {"ksubthres", &q.ksubthres, Range::kPositive},
          {"theta", &sink, Range::kAny},
          {"mtriode", &sink, Range::kAny},
          {"rq", &sink, Range::kAny},
          {"subshift", &sink, Range::kAny}};
}

void vdmos_defaults(MosModel& q) {
  q.vdmos = q.spice = true;
  q.kp = 1;
  q.segments = 0;  // knots from PWLTOL (pwl_models.cpp)
  q.rds = 0;
  DiodeModel& d = q.body;
  d.name = q.name + ".body";
  d.spice = true;
  d.vj = 0.8;
  d.ibv = 1e-10;
  d.nbv = 1;  // ngspice's VDMOS: NBV defaults to 1, not N
}

std::vector<Spec> bjt_specs(BjtModel& q, double& sink) {
  return {{"is", &q.is, Range::kPositive},      {"bf", &q.bf, Range::kPositive},
          {"br", &q.br, Range::kPositive},      {"nf", &q.nf, Range::kPositive},
          {"nr", &q.nr, Range::kPositive},      {"rb", &q.rb, Range::kNonNegative},
          {"rc", &q.rc, Range::kNonNegative},   {"re", &q.re, Range::kNonNegative},
          {"ise", &q.ise, Range::kNonNegative}, {"ne", &q.ne, Range::kPositive},
          {"isc", &q.isc, Range::kNonNegative}, {"nc", &q.nc, Range::kPositive},
          {"cje", &q.cje, Range::kNonNegative}, {"vje", &q.vje, Range::kPositive},
          {"pe", &q.vje, Range::kPositive},     {"mje", &q.mje, Range::kNonNegative},
          {"me", &q.mje, Range::kNonNegative},  {"cjc", &q.cjc, Range::kNonNegative},
          {"vjc", &q.vjc, Range::kPositive},    {"pc", &q.vjc, Range::kPositive},
          {"mjc", &q.mjc, Range::kNonNegative}, {"mc", &q.mjc, Range::kNonNegative},
          {"fc", &q.fc, Range::kNonNegative},   {"tf", &q.tf, Range::kNonNegative},
          {"tr", &q.tr, Range::kNonNegative},   {"eg", &q.eg, Range::kPositive},
          {"xti", &q.xti, Range::kAny},         {"pt", &q.xti, Range::kAny},
          {"tnom", &q.tnom, Range::kAny},       {"vaf", &sink, Range::kAny},
          {"va", &sink, Range::kAny},           {"var", &sink, Range::kAny},
          {"vb", &sink, Range::kAny},           {"ikf", &sink, Range::kAny},
          {"ik", &sink, Range::kAny},           {"ikr", &sink, Range::kAny},
          {"level", &sink, Range::kAny}};
}

namespace {

const netlist::Param* find(const std::vector<const netlist::Param*>& given, const char* name) {
  for (const netlist::Param* p : given)
    if (p->name.lower == name) return p;
  return nullptr;
}

// "NAME = value (what it does)" for each given parameter of `names` that changes the
// characteristic but has no PWL form, or "" when none is given.
std::string unmodelled(const std::vector<const netlist::Param*>& given,
                       const std::vector<std::pair<const char*, const char*>>& names) {
  std::string out;
  for (const auto& [name, what] : names)
    if (const netlist::Param* p = find(given, name); p && p->number && *p->number != 0)
      out +=
          fmt::format("{}{} = {:g} ({})", out.empty() ? "" : "; ", p->name.text, *p->number, what);
  return out;
}

}  // namespace

bool finish_vdmos(const netlist::ModelCard& card, MosModel& q,
                  const std::vector<const netlist::Param*>& given, netlist::Diagnostics& diags) {
  for (const netlist::Param* p : given) {
    if (p->name.lower == "pchan") q.pmos = true;
    if (p->name.lower == "nchan") q.pmos = false;
  }
  if (!(q.body.fc < 1)) {
    diags.error(card.name.span, fmt::format("model '{}': FC must be below 1, got {:g}",
                                            card.name.lower, q.body.fc));
    return false;
  }
  if (q.cgdmin > q.cgdmax) {
    diags.error(card.name.span, fmt::format("model '{}': CGDMIN ({:g} F) above CGDMAX ({:g} F)",
                                            card.name.lower, q.cgdmin, q.cgdmax));
    return false;
  }
  std::string what =
      unmodelled(given, {{"theta", "mobility reduction: ngspice divides KP by 1 + θ·v_gs"},
                         {"rq", "quasi-saturation"},
                         {"subshift", "shift of the weak-inversion curve"}});
  if (const netlist::Param* p = find(given, "mtriode"); p && p->number && *p->number != 1)
    what += fmt::format("{}MTRIODE = {:g} (triode conductance multiplier; the PWL MOS has 1)",
                        what.empty() ? "" : "; ", *p->number);
  if (!what.empty())
    diags.warning(card.name.span, fmt::format("model '{}': not modelled by the PWL MOS: {}",
                                              card.name.lower, what));
  return true;
}

bool finish_bjt(const netlist::ModelCard& card, BjtModel& q,
                const std::vector<const netlist::Param*>& given, netlist::Diagnostics& diags) {
  if (!(q.fc < 1)) {
    diags.error(card.name.span,
                fmt::format("model '{}': FC must be below 1, got {:g}", card.name.lower, q.fc));
    return false;
  }
  if (const netlist::Param* p = find(given, "level"); p && p->number && *p->number != 1) {
    diags.error(p->raw.span,
                fmt::format("unknown BJT LEVEL {} in model '{}': nsspice has the Ebers–Moll "
                            "(Gummel–Poon level 1) model as PWL only; use LEVEL=1 (or leave LEVEL "
                            "out)",
                            p->raw.text, card.name.lower));
    return false;
  }
  const std::string what =
      unmodelled(given, {{"vaf",
                          "forward Early voltage: ngspice's collector current is (1 + v_cb/VAF) "
                          "times the PWL one in the active region"},
                         {"va", "forward Early voltage (VAF)"},
                         {"var", "reverse Early voltage"},
                         {"vb", "reverse Early voltage (VAR)"},
                         {"ik", "high-injection knee (IKF)"},
                         {"ikf",
                          "high-injection knee: ngspice's collector current falls below the PWL "
                          "one above IKF"},
                         {"ikr", "reverse high-injection knee"}});
  if (!what.empty())
    diags.warning(card.name.span, fmt::format("model '{}': not modelled by the PWL Ebers–Moll "
                                              "model: {}",
                                              card.name.lower, what));
  for (auto* leak : {&q.be_leak, &q.bc_leak}) {
    leak->spice = true;
    leak->name = q.name + (leak == &q.be_leak ? ".ise" : ".isc");
  }
  return true;
}

}  // namespace nsspice::circuit::detail
