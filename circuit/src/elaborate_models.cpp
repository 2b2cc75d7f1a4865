// .model cards → device models. Supported types and parameters (defaults: the ideal device):
//   D     VF RON GOFF|ROFF BV RZ      the ideal diode (and Zener)
//         Ron Roff Vfwd Vrev Rrev Ilimit revIlimit epsilon   LTspice's idealized diode
//         IS N RS BV IBV NBV CJO VJ M FC TT EG XTI TNOM TCV TRS1 TRS2   SPICE level 1, made PWL
//         by pwl_models.cpp
//         (other level-1 parameters: accepted, named once in a warning)
//   SW    VT VH RON ROFF               S element, voltage controlled; ROFF=INF or absent: open
//   CSW   IT IH RON ROFF               W element, current controlled
//         VH|IH < 0 (SPICE's smooth transition over VT ± |VH|): the ideal switch with
//         hysteresis |VH|, with a warning that gives the numbers
//   VSWITCH VON VOFF RON ROFF, ISWITCH ION IOFF RON ROFF  PSpice's switches, as SW/CSW with
//         VT, VH from the ON/OFF levels (pspice_switch)
//   COMP  VLOW|VOL VHIGH|VOH EPS       E element in comparator form
//   NMOS PMOS  KP VTO SEGMENTS|NSEG VMAX   (LEVEL, LAMBDA, ... accepted, one warning); KP from
//              UO TOX and VTO from NSUB PHI NSS TPG GAMMA as ngspice's MOS1 derives them
//              (mos_process, elaborate_transistor_models.cpp), said in the conversion summary
//   VDMOS, NPN, PNP: elaborate_transistor_models.cpp
//   R RES      R RSH DEFW DEFL|L NARROW TC1 TC2 TCE TNOM|T_MEASURED T_ABS T_REL_GLOBAL
//              (elaborate_resistor.cpp; noise parameters named once)
// A card is elaborated when an element first names it (used_model, as ngspice reads a card at
// its first use), its diagnostics then noted with that element; with ModelCards::kAll every
// card is, before the elements. Cards no element names are listed in Circuit::unused_models.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "circuit/src/elaborate_model_specs.hpp"
#include "circuit/src/elaborator.hpp"

namespace nsspice::circuit::detail {

bool in_range(double v, Range r) {
  return std::isfinite(v) && (r == Range::kAny || (r == Range::kNonNegative ? v >= 0 : v > 0));
}

const char* range_text(Range r) {
  return r == Range::kPositive ? " > 0" : r == Range::kNonNegative ? " ≥ 0" : "";
}

namespace {

// ROFF: a resistance, "inf"/"infinity" or absent for an open switch/diode. Returns GOFF.
std::optional<double> off_conductance(const netlist::Param& p) {
  if (p.raw.lower == "inf" || p.raw.lower == "infinity") return 0.0;
  if (!p.number || !(*p.number > 0)) return std::nullopt;
  return std::isinf(*p.number) ? 0.0 : 1.0 / *p.number;
}

// Diode model families (docs/devices.md): nsspice's ideal diode (VF RON GOFF|ROFF BV RZ),
// LTspice's idealized diode (Ron Roff Vfwd Vrev Rrev Ilimit revIlimit epsilon revepsilon) and
// SPICE level 1 (IS N RS BV IBV NBV CJO VJ M FC TT, converted to PWL by pwl_models.cpp).
struct DiodeExtras {
  double epsilon = 0, rev_epsilon = 0;  // LTspice's quadratic rounding widths [V]
};

std::vector<Spec> diode_specs(DiodeModel& d, DiodeExtras& x) {
  return {{"vf", &d.vf, Range::kNonNegative},
          {"ron", &d.ron, Range::kNonNegative},
          {"goff", &d.goff, Range::kNonNegative},
          {"bv", &d.bv, Range::kPositive},
          {"rz", &d.rz, Range::kNonNegative},
          {"vfwd", &d.vf, Range::kNonNegative},
          {"vrev", &d.bv, Range::kPositive},
          {"rrev", &d.rz, Range::kNonNegative},
          {"ilimit", &d.ilimit, Range::kPositive},
          {"revilimit", &d.rev_ilimit, Range::kPositive},
          {"epsilon", &x.epsilon, Range::kNonNegative},
          {"revepsilon", &x.rev_epsilon, Range::kNonNegative},
          {"is", &d.is, Range::kPositive},
          {"js", &d.is, Range::kPositive},
          {"n", &d.n, Range::kPositive},
          {"rs", &d.rs, Range::kNonNegative},
          {"ibv", &d.ibv, Range::kPositive},
          {"nbv", &d.nbv, Range::kPositive},
          {"cjo", &d.cjo, Range::kNonNegative},
          {"cj0", &d.cjo, Range::kNonNegative},
          {"cj", &d.cjo, Range::kNonNegative},
          {"vj", &d.vj, Range::kPositive},
          {"pb", &d.vj, Range::kPositive},
          {"m", &d.m, Range::kNonNegative},
          {"mj", &d.m, Range::kNonNegative},
          {"fc", &d.fc, Range::kNonNegative},
          {"tt", &d.tt, Range::kNonNegative},
          {"isr", &d.isr, Range::kNonNegative},
          {"nr", &d.nr, Range::kPositive},
          {"ikf", &d.ikf, Range::kNonNegative},
          {"ik", &d.ikf, Range::kNonNegative},
          {"eg", &d.eg, Range::kPositive},
          {"xti", &d.xti, Range::kAny},
          {"tnom", &d.tnom, Range::kAny},
          {"tcv", &d.tcv, Range::kAny},
          {"trs", &d.trs1, Range::kAny},
          {"trs1", &d.trs1, Range::kAny},
          {"trs2", &d.trs2, Range::kAny}};
}

enum class DiodeFamily { kIdeal, kLtspice, kSpice, kShared };

DiodeFamily diode_family_of(const std::string& k) {
  static const std::set<std::string> ideal = {"vf", "rz"};
  static const std::set<std::string> lt = {"vfwd",      "vrev",    "rrev",      "ilimit",
                                           "revilimit", "epsilon", "revepsilon"};
  static const std::set<std::string> spice = {
      "is", "js", "n",  "rs",  "ibv",  "nbv", "cjo", "cj0",  "cj",   "vj",  "pb", "m",   "mj",
      "fc", "tt", "eg", "xti", "tnom", "tcv", "trs", "trs1", "trs2", "isr", "nr", "ikf", "ik"};
  if (ideal.contains(k)) return DiodeFamily::kIdeal;
  if (lt.contains(k)) return DiodeFamily::kLtspice;
  if (spice.contains(k)) return DiodeFamily::kSpice;
  return DiodeFamily::kShared;  // RON, GOFF, ROFF, BV (every family), or not a diode parameter
}

// Decides which family a diode card belongs to and finishes its model; false after an error.
bool diode_family(const netlist::ModelCard& card, DiodeModel& d,
                  const std::vector<const netlist::Param*>& given, const DiodeExtras& x,
                  netlist::Diagnostics& diags) {
  const netlist::Param* first[4] = {nullptr, nullptr, nullptr, nullptr};
  bool ron_given = false, rrev_given = false;
  for (const netlist::Param* p : given) {
    const auto f = static_cast<int>(diode_family_of(p->name.lower));
    if (first[f] == nullptr) first[f] = p;
    ron_given |= p->name.lower == "ron";
    rrev_given |= p->name.lower == "rrev";
  }
  const netlist::Param* spice = first[static_cast<int>(DiodeFamily::kSpice)];
  const netlist::Param* other = first[static_cast<int>(DiodeFamily::kIdeal)];
  if (other == nullptr) other = first[static_cast<int>(DiodeFamily::kLtspice)];
  if (other == nullptr && ron_given) other = first[static_cast<int>(DiodeFamily::kShared)];
  if (spice != nullptr && other != nullptr) {
    const auto at = [&](const netlist::Param* p) {
      return std::find(given.begin(), given.end(), p);
    };
    const netlist::Param* later = at(spice) > at(other) ? spice : other;
    diags.error(later->name.span,
                fmt::format("model '{}' mixes SPICE level-1 parameters ({}) with ideal-diode "
                            "parameters ({}): use IS N RS ... (a SPICE diode, converted to PWL) "
                            "or VF RON ... (the ideal one), not both",
                            card.name.lower, spice->name.text, other->name.text));
    return false;
  }
  d.spice = spice != nullptr;
  if (d.nbv == 0) d.nbv = d.n;  // SPICE: NBV defaults to N
  if (d.spice && !(d.fc < 1)) {
    diags.error(card.name.span,
                fmt::format("model '{}': FC must be below 1, got {:g}", card.name.lower, d.fc));
    return false;
  }
  if (first[static_cast<int>(DiodeFamily::kLtspice)] != nullptr) {
    if (!ron_given) d.ron = 1.0;    // LTspice's default Ron
    if (!rrev_given) d.rz = d.ron;  // and Rrev = Ron
    if ((d.rev_ilimit > 0) && !(d.bv > 0))
      diags.warning(card.name.span, fmt::format("model '{}': revIlimit without Vrev has no "
                                                "effect (no breakdown branch)",
                                                card.name.lower));
    if (x.epsilon > 0 || x.rev_epsilon > 0)
      diags.warning(card.name.span,
                    fmt::format("model '{}': epsilon = {:g} V, revepsilon = {:g} V (LTspice's "
                                "quadratic rounding of the corners) approximated by sharp "
                                "corners: the characteristics differ only within that width "
                                "of Vfwd and Vrev",
                                card.name.lower, x.epsilon, x.rev_epsilon));
  }
  return true;
}

// NMOS/PMOS SPICE cards (LEVEL, LAMBDA, RD, RS or any other SPICE parameter): level 1 only;
// without SEGMENTS/NSEG the knots come from PWLTOL (pwl_models.cpp, marked by segments = 0).
// PSpice's VSWITCH/ISWITCH: the resistance goes smoothly (log-linearly) from ROFF at VOFF to RON
// at VON. nsspice's ideal switch is on beyond VON and off beyond VOFF, the previous state in
// between: VT = (VON + VOFF)/2, VH = |VON − VOFF|/2, `inverted` when VON < VOFF. The warning
// gives the numbers; an inverted ISWITCH is an error (a W element's current cannot be swapped).
void pspice_switch(const netlist::ModelCard& card, SwitchModel& s, double on, double off,
                   netlist::Diagnostics& diags) {
  const bool i = s.current_controlled;
  const char* u = i ? "A" : "V";
  s.threshold = (on + off) / 2;
  s.hysteresis = std::abs(on - off) / 2;
  s.inverted = on < off;
  if (s.inverted && i) {
    diags.error(card.name.span,
                fmt::format("model '{}': ISWITCH with ION ({:g} A) below IOFF ({:g} A), a switch "
                            "that is on at low current, is not supported: reverse the sensing "
                            "source and negate ION and IOFF",
                            card.name.lower, on, off));
    s.inverted = false;
    return;
  }
  if (on == off) return;
  diags.warning(card.name.span,
                fmt::format("model '{}': {}'s smooth change from ROFF at {} = {:g} {} to RON at "
                            "{} = {:g} {} is approximated by the ideal switch: on {} {:g} {}, off "
                            "{} {:g} {}, its previous state in between",
                            card.name.lower, i ? "ISWITCH" : "VSWITCH", i ? "IOFF" : "VOFF", off, u,
                            i ? "ION" : "VON", on, u, s.inverted ? "below" : "above", on, u,
                            s.inverted ? "above" : "below", off, u));
}

bool mos_level_one(const netlist::ModelCard& card, MosModel& q,
                   const std::vector<const netlist::Param*>& given, bool other_spice,
                   netlist::Diagnostics& diags) {
  bool spice = other_spice, segments_given = false;
  for (const netlist::Param* p : given) {
    const std::string& k = p->name.lower;
    segments_given |= k == "segments" || k == "nseg" || k == "vmax";
    spice |= k == "level" || k == "lambda" || k == "rd" || k == "rs" || k == "is";
    if (k == "level" && p->number && *p->number != 1) {
      diags.error(p->raw.span,
                  fmt::format("unknown MOS LEVEL {} in model '{}': nsspice has the level-1 square "
                              "law (Shichman–Hodges) as a PWL model only; use LEVEL=1 (or "
                              "leave LEVEL out)",
                              p->raw.text, card.name.lower));
      return false;
    }
  }
  q.spice = spice;
  if (spice && !segments_given) q.segments = 0;
  // The bulk junctions (ngspice's MOS1: IS·(e^{v/Vt} − 1) from bulk to drain and to source, no
  // series resistance, N = 1): a SPICE diode model for both (elaborate_transistors.cpp).
  q.body.name = q.name + ".bulk";
  q.body.spice = spice;
  q.body.xti = 0;  // MOS1's IS(T) has no XTI term
  return true;
}

}  // namespace

void Elaborator::models(const std::vector<netlist::Card>& cards) {
  for (const auto& card : cards) {
    const auto* m = std::get_if<netlist::ModelCard>(&card);
    if (m == nullptr) continue;
    auto [it, fresh] = model_cards_.emplace(m->name.lower, m);
    if (!fresh) {
      netlist::Diagnostic d{netlist::Severity::kError,
                            m->name.span,
                            fmt::format("duplicate model name '{}'", m->name.lower),
                            {}};
      d.notes.push_back(
          {netlist::Severity::kNote, it->second->name.span, "first defined here", {}});
      diags_.add(std::move(d));
      continue;
    }
    if (all_models_) model(*m, diags_);
  }
}

const Model* Elaborator::used_model(const netlist::ElementCard& e, const char* what) {
  const std::string& name = e.model->lower;
  if (auto it = models_.find(name); it != models_.end()) return &it->second;
  auto card = model_cards_.find(name);
  if (card == model_cards_.end() || tried_models_.contains(name)) return nullptr;
  netlist::Diagnostics found;  // the card's own, each with a note at its first user
  model(*card->second, found);
  for (netlist::Diagnostic d : found.all()) {
    d.notes.push_back({netlist::Severity::kNote,
                       e.name.span,
                       fmt::format("model '{}' is first used here, by {} '{}' (a .model card "
                                   "is read when an element first uses it)",
                                   name, what, e.name.lower),
                       {}});
    if (e.context) d.notes.insert(d.notes.end(), e.context->begin(), e.context->end());
    diags_.add(std::move(d));
  }
  auto it = models_.find(name);
  return it == models_.end() ? nullptr : &it->second;
}

void Elaborator::unused_models() {
  if (all_models_) return;  // every card elaborated: none left out
  for (const auto& [name, card] : model_cards_)
    if (!used_models_.contains(name)) c_.unused_models.push_back(name);
}

void Elaborator::derived_summaries() {
  for (const auto& [name, model] : models_) {
    const auto* q = std::get_if<MosModel>(&model);
    if (q == nullptr || q->derived.empty()) continue;
    for (DiodeConversion& conv : c_.conversions)
      if (conv.model == q->name && conv.mos_knots.size() > 1) conv.summary += "; " + q->derived;
  }
}

void Elaborator::model(const netlist::ModelCard& m, netlist::Diagnostics& diags) {
  const std::string& type = m.type.lower;
  tried_models_.insert(m.name.lower);
  Model model;
  std::vector<Spec> specs;
  double segments = 6, level = 1, sink = 0;
  double pspice_on = kUnset, pspice_off = kUnset;  // VSWITCH/ISWITCH: VON VOFF or ION IOFF
  const char* uses = "";
  DiodeExtras extras;
  if (type == "d") {
    model = DiodeModel{m.name.lower};
    specs = diode_specs(std::get<DiodeModel>(model), extras);
    uses = "the ideal diode uses VF, RON, GOFF/ROFF, BV, RZ";
  } else if (type == "sw" || type == "csw") {
    model = SwitchModel{m.name.lower, type == "csw"};
    auto& s = std::get<SwitchModel>(model);
    const bool i = type == "csw";
    specs = {{i ? "it" : "vt", &s.threshold, Range::kAny},
             {i ? "ih" : "vh", &s.hysteresis, Range::kAny},  // < 0: see below
             {"ron", &s.ron, Range::kNonNegative},
             {"goff", &s.goff, Range::kNonNegative}};
    uses =
        i ? "the ideal switch uses IT, IH, RON, ROFF" : "the ideal switch uses VT, VH, RON, ROFF";
  } else if (type == "vswitch" || type == "iswitch") {
    model = SwitchModel{m.name.lower, type == "iswitch"};
    auto& s = std::get<SwitchModel>(model);
    const bool i = type == "iswitch";
    s.ron = 1, s.goff = 1e-6;  // PSpice's defaults: RON = 1 Ω, ROFF = 1 MΩ
    pspice_on = i ? 1e-3 : 1, pspice_off = 0;
    specs = {{i ? "ion" : "von", &pspice_on, Range::kAny},
             {i ? "ioff" : "voff", &pspice_off, Range::kAny},
             {"ron", &s.ron, Range::kNonNegative}};
    uses = i ? "the ideal switch uses ION, IOFF, RON, ROFF"
             : "the ideal switch uses VON, VOFF, RON, ROFF";
  } else if (type == "comp") {
    model = ComparatorModel{m.name.lower};
    auto& c = std::get<ComparatorModel>(model);
    specs = {{"vlow", &c.vlow, Range::kAny},
             {"vhigh", &c.vhigh, Range::kAny},
             {"vol", &c.vlow, Range::kAny},  // VOL/VOH: the other names of the output levels
             {"voh", &c.vhigh, Range::kAny},
             {"eps", &c.eps, Range::kNonNegative}};
    uses = "the comparator uses VLOW|VOL, VHIGH|VOH, EPS";
  } else if (type == "nmos" || type == "pmos") {
    model = MosModel{m.name.lower, type == "pmos"};
    auto& q = std::get<MosModel>(model);
    specs = {{"kp", &q.kp, Range::kPositive},       {"vto", &q.vto, Range::kAny},
             {"vt0", &q.vto, Range::kAny},          {"segments", &segments, Range::kPositive},
             {"nseg", &segments, Range::kPositive}, {"vmax", &q.vmax, Range::kPositive},
             {"level", &level, Range::kPositive},   {"lambda", &q.lambda, Range::kNonNegative},
             {"rd", &q.rd, Range::kNonNegative},    {"rs", &q.rs, Range::kNonNegative},
             {"is", &q.body.is, Range::kPositive}};
    uses =
        "the PWL MOS model uses KP (or UO and TOX), VTO (or NSUB PHI NSS TPG GAMMA and TOX), "
        "LAMBDA, RD, RS, IS, SEGMENTS, VMAX";
  } else if (type == "vdmos") {
    model = MosModel{m.name.lower};
    auto& q = std::get<MosModel>(model);
    vdmos_defaults(q);
    specs = vdmos_specs(q, sink);
    uses =
        "they have no PWL meaning; the PWL VDMOS uses VTO KP RD RS RG RDS CGS CGDMAX CGDMIN "
        "A, MU TCVTH TNOM and its body diode's IS N RB BV IBV NBV CJO VJ M FC TT EG XTI";
  } else if (type == "npn" || type == "pnp") {
    model = BjtModel{m.name.lower, type == "pnp"};
    specs = bjt_specs(std::get<BjtModel>(model), sink);
    uses =
        "they have no PWL meaning; the PWL Ebers–Moll model uses IS BF BR NF NR RB RC RE ISE "
        "NE ISC NC CJE VJE MJE CJC VJC MJC FC TF TR EG XTI TNOM";
  } else if (type == "r" || type == "res") {
    model = ResistorModel{m.name.lower, type == "res"};
    specs = resistor_specs(std::get<ResistorModel>(model));
    uses =
        "the resistor model uses R|RES RSH DEFW|W DEFL|L NARROW|DW SHORT|DLR TC1|TC1R TC2|TC2R "
        "TCE TNOM|T_MEASURED T_ABS T_REL_GLOBAL; noise and breakdown parameters have no meaning "
        "in nsspice";
  } else {
    diags.error(m.type.span,
                fmt::format("unsupported model type '{}' (supported: D, SW, CSW, COMP, NMOS, "
                            "PMOS, VDMOS, NPN, PNP, R, RES, VSWITCH, ISWITCH)",
                            m.type.text));
    return;
  }
  std::vector<const netlist::Param*> given, ignored;
  for (const auto& p : m.params) {
    const std::string& k = p.name.lower;
    given.push_back(&p);
    if ((k == "pchan" || k == "nchan") && type == "vdmos") continue;  // flags: finish_vdmos
    if (k == "roff" &&
        (type == "d" || type == "sw" || type == "csw" || type == "vswitch" || type == "iswitch")) {
      const auto g = off_conductance(p);
      if (!g) {
        diags.error(p.raw.span,
                    fmt::format("ROFF must be a resistance > 0 or INF, got '{}'", p.raw.text));
        continue;
      }
      std::visit(
          [&](auto& mm) {
            if constexpr (requires { mm.goff; }) mm.goff = *g;
          },
          model);
      continue;
    }
    auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const Spec& s) { return k == s.name; });
    if (spec == specs.end()) {
      ignored.push_back(&p);
      continue;
    }
    if (!p.number || !in_range(*p.number, spec->range)) {
      diags.error(p.raw.span, fmt::format("model parameter '{}' must be a number{}, got '{}'",
                                          p.name.text, range_text(spec->range), p.raw.text));
      continue;
    }
    *spec->target = *p.number;
  }
  if (auto* q = std::get_if<MosModel>(&model); q && q->vdmos) {
    if (!finish_vdmos(m, *q, given, diags)) return;
  } else if (q) {
    q->segments = static_cast<int>(segments);
    if (q->segments < 2 || q->segments != segments)
      diags.error(m.name.span, fmt::format("SEGMENTS must be an integer ≥ 2, got {}", segments));
    std::set<std::string> process;  // UO, TOX, NSUB ... that gave KP or VTO: used, not ignored
    if (!mos_process(m, *q, given, c_.pwl.tnom, process, diags)) return;
    std::erase_if(ignored,
                  [&](const netlist::Param* p) { return process.contains(p->name.lower); });
    if (!mos_level_one(m, *q, given, !ignored.empty() || !process.empty(), diags)) return;
  }
  // (An error here keeps the model, so that its switches are not reported as unknown too.)
  if (auto* s = std::get_if<SwitchModel>(&model); s != nullptr && !std::isnan(pspice_on))
    pspice_switch(m, *s, pspice_on, pspice_off, diags);
  if (auto* s = std::get_if<SwitchModel>(&model); s != nullptr && s->hysteresis < 0) {
    // LTspice/ngspice: VH < 0 is a smooth transition from ROFF to RON over VT ± |VH|.
    s->hysteresis = -s->hysteresis;
    const char* u = s->current_controlled ? "A" : "V";
    const char* vh = s->current_controlled ? "IH" : "VH";
    diags.warning(m.name.span,
                  fmt::format("model '{}': {} = {:g} {} (a smooth transition over {:g} .. {:g} {}) "
                              "approximated by the ideal switch with hysteresis {:g} {}: on "
                              "above {:g} {}, off below {:g} {}",
                              m.name.lower, vh, -s->hysteresis, u, s->threshold - s->hysteresis,
                              s->threshold + s->hysteresis, u, s->hysteresis, u,
                              s->threshold + s->hysteresis, u, s->threshold - s->hysteresis, u));
  }
  if (auto* b = std::get_if<BjtModel>(&model); b && !finish_bjt(m, *b, given, diags)) return;
  if (auto* d = std::get_if<DiodeModel>(&model)) {
    if (!diode_family(m, *d, given, extras, diags)) return;
    if (d->spice)
      uses =
          "they have no PWL meaning; the PWL model uses IS N RS ISR NR IKF BV IBV NBV CJO VJ M FC "
          "TT, and EG XTI TNOM TCV TRS1 TRS2 at .temp";
  }
  if (!ignored.empty()) {
    std::string names;
    for (const netlist::Param* p : ignored) names += (names.empty() ? "" : ", ") + p->name.text;
    diags.warning(m.name.span, fmt::format("model '{}': parameters {} are ignored ({})",
                                           m.name.lower, names, uses));
  }
  models_[m.name.lower] = std::move(model);
}

}  // namespace nsspice::circuit::detail
