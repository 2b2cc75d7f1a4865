// .model cards of ngspice's VDMOS and of bipolar transistors (NPN, PNP): the parameters each
// takes, their defaults (ngspice's) and what has no PWL meaning (docs/devices.md):
//
//   VDMOS  VTO KP RD RS RG RDS CGS CGDMAX CGDMIN A, body diode IS N RB BV IBV NBV CJO VJ M FC TT
//          EG XTI, MU TCVTH TNOM; PCHAN/NCHAN flags. LAMBDA at the initial point
//          (pwl_mos_bias.cpp); THETA MTRIODE KSUBTHRES: warned with the size of what they change;
//          the rest of ngspice's list named once.
//   NPN/PNP  IS BF BR NF NR RB RC RE ISE NE ISC NC CJE VJE MJE CJC VJC MJC FC TF TR EG XTI TNOM;
//          VAF VAR IKF IKR warned with their effect; the rest named once.
//   NMOS/PMOS level 1 (elaborate_models.cpp): the process parameters as ngspice's MOS1temp reads
//          them, with C_ox = 3.9·ε0/TOX (ε0 = 8.854214871e-12 F/m; TOX absent or 0: nothing is
//          derived):
//            KP    = UO·1e-4·C_ox                            KP not given; UO [cm²/V·s], 600
//          and with NSUB [cm⁻³] > 1.45e10 (n_i) and VTO not given, at TNOM (Vt = kT/q,
//          E_g = 1.16 − 7.02e-4·T²/(T + 1108), type = +1 NMOS, −1 PMOS):
//            PHI   = max(0.1, 2·Vt·ln(NSUB/1.45e10))           unless given
//            GAMMA = √(2·11.7·ε0·q·NSUB·1e6)/C_ox               unless given
//            φ_ms  = W_gate − (3.25 + E_g/2 + type·PHI/2),  W_gate = 3.25 + E_g/2 − type·TPG·E_g/2
//                    (TPG ≠ 0, default 1) or 3.2 (TPG = 0)
//            VTO   = φ_ms − NSS·1e4·q/C_ox + type·(GAMMA·√PHI + PHI)      NSS [cm⁻²], 0
//          The PWL MOS has no body effect: a GAMMA > 0 so used is warned about.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "circuit/spice_temperature.hpp"
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
          {"tnom", &q.tnom, Range::kAny},       {"vaf", &q.vaf, Range::kAny},
          {"va", &q.vaf, Range::kAny},          {"var", &sink, Range::kAny},
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

constexpr double kEpsilon0 = 8.854214871e-12;  // F/m, ngspice's
constexpr double kCharge = 1.6021766208e-19;   // C, ngspice's CHARGE
constexpr double kIntrinsic = 1.45e16;         // n_i of silicon [m⁻³], ngspice's

// The value of a given process parameter, or an error at it (nullopt).
std::optional<double> process_value(const netlist::Param& p, Range r, netlist::Diagnostics& diags) {
  if (p.number && in_range(*p.number, r)) return *p.number;
  diags.error(p.raw.span, fmt::format("model parameter '{}' must be a number{}, got '{}'",
                                      p.name.text, range_text(r), p.raw.text));
  return std::nullopt;
}

}  // namespace

bool mos_process(const netlist::ModelCard& card, MosModel& q,
                 const std::vector<const netlist::Param*>& given, double tnom,
                 std::set<std::string>& used, netlist::Diagnostics& diags) {
  const netlist::Param* tox_p = find(given, "tox");
  if (tox_p == nullptr) return true;
  const auto tox = process_value(*tox_p, Range::kNonNegative, diags);
  if (!tox) return false;
  if (*tox == 0) return true;
  const double cox = 3.9 * kEpsilon0 / *tox;
  auto value = [&](const char* name, const char* alias, Range r, double fallback,
                   bool& ok) -> double {
    const netlist::Param* p = find(given, name);
    if (p == nullptr && alias != nullptr) p = find(given, alias);
    if (p == nullptr) return fallback;
    used.insert(p->name.lower);
    const auto v = process_value(*p, r, diags);
    ok = ok && v.has_value();
    return v.value_or(fallback);
  };
  bool ok = true;
  std::string derived;
  if (find(given, "kp") == nullptr) {
    const double uo = value("uo", "u0", Range::kPositive, 600, ok);
    used.insert("tox");
    q.kp = uo * 1e-4 * cox;
    derived = fmt::format("KP {:.4g} A/V² derived from UO {:g} cm²/V·s{} and TOX {:g} m", q.kp, uo,
                          used.contains("uo") || used.contains("u0") ? "" : " (default)", *tox);
  }
  const netlist::Param* nsub_p = find(given, "nsub");
  if (nsub_p != nullptr && find(given, "vto") == nullptr && find(given, "vt0") == nullptr) {
    const auto nsub = process_value(*nsub_p, Range::kPositive, diags);
    if (!nsub) return false;
    if (!(*nsub * 1e6 > kIntrinsic)) {
      diags.error(nsub_p->raw.span,
                  fmt::format("model '{}': NSUB {:g} cm⁻³ is not above the intrinsic density "
                              "1.45e10 cm⁻³ (ngspice: 'Nsub < Ni')",
                              card.name.lower, *nsub));
      return false;
    }
    used.insert("nsub");
    used.insert("tox");
    const double kelvin = value("tnom", nullptr, Range::kAny, tnom, ok) + kCelsiusToKelvin;
    const double vt = thermal_voltage(kelvin);
    const double eg = 1.16 - 7.02e-4 * kelvin * kelvin / (kelvin + 1108);
    const double type = q.pmos ? -1 : 1;
    const double phi = value("phi", nullptr, Range::kPositive,
                             std::max(0.1, 2 * vt * std::log(*nsub * 1e6 / kIntrinsic)), ok);
    const double tpg = value("tpg", nullptr, Range::kAny, 1, ok);
    const double nss = value("nss", nullptr, Range::kAny, 0, ok);
    const bool gamma_given = find(given, "gamma") != nullptr;
    const double gamma = value("gamma", nullptr, Range::kNonNegative,
                               std::sqrt(2 * 11.7 * kEpsilon0 * kCharge * *nsub * 1e6) / cox, ok);
    const double gate = tpg != 0 ? 3.25 + 0.5 * eg - type * tpg * 0.5 * eg : 3.2;
    const double phi_ms = gate - (3.25 + 0.5 * eg + type * 0.5 * phi);
    q.vto = phi_ms - nss * 1e4 * kCharge / cox + type * (gamma * std::sqrt(phi) + phi);
    derived += fmt::format(
        "{}VTO {:.4g} V derived from NSUB {:g} cm⁻³ and TOX {:g} m (PHI {:.4g} V, GAMMA {:.4g} "
        "V^½, "
        "NSS {:g} cm⁻², TPG {:g}, at TNOM {:g} °C)",
        derived.empty() ? "" : "; ", q.vto, *nsub, *tox, phi, gamma, nss, tpg,
        kelvin - kCelsiusToKelvin);
    if (gamma > 0 && ok)
      diags.warning(
          card.name.span,
          fmt::format("model '{}': VTO {:.4g} V derived from NSUB as ngspice's MOS1 "
                      "does, at v_sb = 0; GAMMA {:.4g} V^½{} is not modelled (no body "
                      "effect): ngspice's threshold rises by GAMMA·(√(PHI + v_sb) − "
                      "√PHI), {:.3g} V at v_sb = 1 V",
                      card.name.lower, q.vto, gamma, gamma_given ? "" : " (derived from NSUB)",
                      gamma * (std::sqrt(phi + 1) - std::sqrt(phi))));
  }
  if (!derived.empty()) q.derived = derived + ", as ngspice's MOS1 does";
  return ok;
}

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
