// Only the .model cards that elements use are elaborated (circuit/elaborate.hpp, ModelCards;
// docs/netlist.md section 6). Checked here on a small vendor-style library (SPICE diodes and
// level-1 NMOS cards, a subcircuit with a model of its own):
//   * a used model's PWL form is the same, bit for bit, as with every card elaborated
//     (ModelCards::kAll, the way every card was read before) and as with the used cards alone
//     written in the netlist: segments of the diodes and the MOSFET's bulk diodes, the MOS
//     knots, the conversion lines;
//   * the cards no element uses are not converted (no conversion record) and are named in
//     Circuit::unused_models (with kAll every card is converted and none named); a model used only
//     inside a subcircuit that nothing instantiates is unused, one used in an instantiated one is
//     used (per instance for a local card);
//   * an unused card of an unsupported type, LEVEL, or with an out-of-range parameter stops
//     nothing and says nothing; used, it is the error it was, with a note at its first user;
//     with ModelCards::kAll it is the error it was;
//   * what the parser and the flattener check stays checked on every card: a malformed card
//     and an undefined parameter in an unused card are errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "circuit_helpers.hpp"

namespace nsspice::circuit {
namespace {

using testing::elaborate_text;
using testing::Elaborated;

constexpr const char* kLibrary =
    ".model d1 D(IS=2.5n N=1.75 RS=42m BV=1000 IBV=5u CJO=15p VJ=0.5 M=0.33 TT=4.3u)\n"
    ".model d2 D(IS=1e-14 N=1.05 RS=0.6 CJO=4p TT=6n)\n"
    ".model d3 D(IS=1e-12 N=1.3 BV=5.6 IBV=1m)\n"
    ".model n1 NMOS(LEVEL=1 VTO=1.2 KP=0.5 LAMBDA=0.01 RD=0.05 RS=0.02 IS=1e-14)\n"
    ".model n2 NMOS(LEVEL=1 VTO=2 KP=2)\n"
    ".subckt clamp a b\n"
    "D1 a b dloc\n"
    ".model dloc D(IS=1e-9 N=1.9)\n"
    ".ends\n"
    ".subckt never a b\n"
    "D1 a b d3\n"
    ".ends\n";

constexpr const char* kCircuit =
    "V1 in 0 SIN(0 10 1k)\n"
    "D1 in out d1\n"
    "C1 out 0 100u\n"
    "R1 out 0 1k\n"
    "Vg g 0 PULSE(0 5 0 1u 1u 0.5m 1m)\n"
    "Rd out dr 200\n"
    "M1 dr g 0 0 n1 W=100u L=2u\n"
    "X1 out 0 clamp\n"
    "X2 dr 0 clamp\n"
    ".tran 1u 5m\n";

std::string with_library() { return std::string("library\n") + kLibrary + kCircuit; }

// The used cards alone (d1, n1 and the subcircuit), written in the netlist.
std::string used_only() {
  return std::string("used models only\n") +
         ".model d1 D(IS=2.5n N=1.75 RS=42m BV=1000 IBV=5u CJO=15p VJ=0.5 M=0.33 TT=4.3u)\n"
         ".model n1 NMOS(LEVEL=1 VTO=1.2 KP=0.5 LAMBDA=0.01 RD=0.05 RS=0.02 IS=1e-14)\n"
         ".subckt clamp a b\nD1 a b dloc\n.model dloc D(IS=1e-9 N=1.9)\n.ends\n" +
         kCircuit;
}

std::vector<std::string> converted(const Circuit& c) {
  std::vector<std::string> out;
  for (const DiodeConversion& conv : c.conversions) out.push_back(conv.model);
  return out;
}

// The PWL pairs of every diode (the MOSFET's bulk diodes included) and the MOSFET's knots.
void expect_same_devices(const Circuit& a, const Circuit& b, const std::string& what) {
  ASSERT_EQ(a.devices.size(), b.devices.size()) << what;
  int diodes = 0;
  for (size_t k = 0; k < a.devices.size(); ++k) {
    if (const auto* d = std::get_if<Diode>(&a.devices[k])) {
      const auto& e = std::get<Diode>(b.devices[k]);
      ASSERT_EQ(d->model.forward.size(), e.model.forward.size()) << what << " " << d->name;
      ASSERT_EQ(d->model.reverse.size(), e.model.reverse.size()) << what << " " << d->name;
      for (size_t s = 0; s < d->model.forward.size(); ++s) {
        EXPECT_EQ(d->model.forward[s].threshold, e.model.forward[s].threshold) << d->name;
        EXPECT_EQ(d->model.forward[s].resistance, e.model.forward[s].resistance) << d->name;
      }
      for (size_t s = 0; s < d->model.reverse.size(); ++s) {
        EXPECT_EQ(d->model.reverse[s].threshold, e.model.reverse[s].threshold) << d->name;
        EXPECT_EQ(d->model.reverse[s].resistance, e.model.reverse[s].resistance) << d->name;
      }
      EXPECT_EQ(d->model.cj.c_lo, e.model.cj.c_lo) << d->name;
      EXPECT_EQ(d->model.stored_charge, e.model.stored_charge) << d->name;
      diodes += d->model.spice && !d->model.forward.empty();
    }
    if (const auto* m = std::get_if<Mosfet>(&a.devices[k])) {
      EXPECT_EQ(m->model.knots, std::get<Mosfet>(b.devices[k]).model.knots) << what;
      EXPECT_GT(m->model.knots.size(), 2u);
    }
  }
  // D1, the two instances' clamps and M1's two bulk diodes, converted.
  EXPECT_EQ(diodes, 5) << what;
}

TEST(LazyModels, AUsedModelIsConvertedAsWithEveryCardAndAsWrittenAlone) {
  const Elaborated lazy = elaborate_text(with_library(), ModelCards::kUsed);
  const Elaborated all = elaborate_text(with_library(), ModelCards::kAll);
  const Elaborated alone = elaborate_text(used_only(), ModelCards::kUsed);
  ASSERT_FALSE(lazy.diags.has_errors()) << lazy.text();
  ASSERT_FALSE(all.diags.has_errors()) << all.text();
  ASSERT_FALSE(alone.diags.has_errors()) << alone.text();
  expect_same_devices(lazy.circuit, all.circuit, "library, every card");
  expect_same_devices(lazy.circuit, alone.circuit, "the used cards alone");
  // The used models' conversion lines are those of the full elaboration, word for word.
  for (const DiodeConversion& conv : lazy.circuit.conversions) {
    const auto it = std::find_if(all.circuit.conversions.begin(), all.circuit.conversions.end(),
                                 [&](const DiodeConversion& c) { return c.model == conv.model; });
    ASSERT_NE(it, all.circuit.conversions.end()) << conv.model;
    EXPECT_EQ(conv.summary, it->summary);
  }
  EXPECT_EQ(converted(lazy.circuit), converted(alone.circuit));
  EXPECT_TRUE(alone.circuit.unused_models.empty());
}

TEST(LazyModels, UnusedCardsAreNotConvertedAndAreNamed) {
  const Elaborated lazy = elaborate_text(with_library(), ModelCards::kUsed);
  ASSERT_FALSE(lazy.diags.has_errors()) << lazy.text();
  // x1 and x2 each have their own card of the subcircuit's local model (the diodes come
  // first, then the transistors).
  EXPECT_EQ(converted(lazy.circuit),
            (std::vector<std::string>{"d1", "x1.dloc", "x2.dloc", "n1", "n1.bulk"}));
  // d3 is named only inside 'never', which nothing instantiates.
  EXPECT_EQ(lazy.circuit.unused_models, (std::vector<std::string>{"d2", "d3", "n2"}));
  const Elaborated all = elaborate_text(with_library(), ModelCards::kAll);
  EXPECT_EQ(converted(all.circuit),
            (std::vector<std::string>{"d1", "d2", "d3", "x1.dloc", "x2.dloc", "n1", "n1.bulk", "n2",
                                      "n2.bulk"}));
  EXPECT_TRUE(all.circuit.unused_models.empty()) << "kAll leaves no card out";
}

constexpr const char* kBadCards =
    ".model dneg D(IS=-1e-14 N=1)\n"          // out of range
    ".model nbsim NMOS(LEVEL=49 VTH0=0.4)\n"  // a level nsspice does not have
    ".model jf NJF(VTO=-2 BETA=1m)\n"         // a type nsspice does not have
    ".model dmix D(IS=1e-14 VF=0.7)\n"        // SPICE and ideal-diode parameters mixed
    ".model dodd D(IS=1e-14 FOO=3)\n";        // a parameter nsspice ignores: a warning if used

TEST(LazyModels, UnusedBadCardsStopNothingAndSayNothing) {
  const std::string text = std::string("bad cards nobody uses\n") + kBadCards +
                           ".model dok D(IS=1e-14)\nV1 a 0 SIN(0 5 1k)\nD1 a b dok\nR1 b 0 1k\n"
                           ".tran 1u 1m\n";
  const Elaborated lazy = elaborate_text(text, ModelCards::kUsed);
  EXPECT_FALSE(lazy.diags.has_errors()) << lazy.text();
  EXPECT_EQ(lazy.diags.warning_count(), 0) << lazy.text();
  EXPECT_EQ(lazy.circuit.unused_models,
            (std::vector<std::string>{"dmix", "dneg", "dodd", "jf", "nbsim"}));
  // Every card read (nsspice models --all): the errors and the warning they always were.
  const Elaborated all = elaborate_text(text, ModelCards::kAll);
  EXPECT_EQ(all.diags.error_count(), 4) << all.text();
  EXPECT_EQ(all.diags.warning_count(), 1) << all.text();
  const std::string t = all.text();
  EXPECT_NE(t.find("t.cir:2:18: error: model parameter 'IS' must be a number > 0, got "
                   "'-1e-14'"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("error: unknown MOS LEVEL 49 in model 'nbsim'"), std::string::npos) << t;
  EXPECT_NE(t.find("error: unsupported model type 'NJF'"), std::string::npos) << t;
  EXPECT_NE(t.find("error: model 'dmix' mixes SPICE level-1 parameters"), std::string::npos) << t;
}

TEST(LazyModels, AUsedBadCardIsAnErrorWithANoteAtItsFirstUser) {
  const std::string text =
      "a used bad card\n"
      ".model dneg D(IS=-1e-14 N=1)\n"
      "V1 a 0 SIN(0 5 1k)\n"
      "R1 a b 1k\n"
      "D2 b 0 dneg\n"
      "D3 b 0 dneg\n"
      ".tran 1u 1m\n";
  const Elaborated e = elaborate_text(text, ModelCards::kUsed);
  EXPECT_EQ(e.diags.error_count(), 1) << "once, not once per element: " << e.text();
  const std::string t = e.text();
  EXPECT_NE(t.find("t.cir:2:18: error: model parameter 'IS' must be a number > 0, got '-1e-14'\n"
                   ".model dneg D(IS=-1e-14 N=1)\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("t.cir:5:1: note: model 'dneg' is first used here, by diode 'd2' (a .model "
                   "card is read when an element first uses it)"),
            std::string::npos)
      << t;
  EXPECT_TRUE(e.circuit.unused_models.empty());
  // An unsupported type used: its error, and no "unknown model" on top of it.
  const Elaborated j =
      elaborate_text("jfet\n.model jf NJF(VTO=-2)\nV1 a 0 1\nR1 a b 1k\nD1 b 0 jf\n.tran 1u 1m\n",
                     ModelCards::kUsed);
  EXPECT_EQ(j.diags.error_count(), 1) << j.text();
  EXPECT_NE(j.text().find("error: unsupported model type 'NJF'"), std::string::npos) << j.text();
  // A name with no card at all: the "did you mean" looks at every card, used or not.
  const Elaborated u = elaborate_text(
      std::string("typo\n") + kLibrary + "V1 a 0 1\nR1 a b 1k\nD1 b 0 d22\n.tran 1u 1m\n",
      ModelCards::kUsed);
  EXPECT_NE(u.text().find("error: unknown model 'd22' for diode 'd1' (did you mean 'd2'"),
            std::string::npos)
      << u.text();
}

TEST(LazyModels, WhatTheParserAndFlattenerCheckStaysCheckedOnUnusedCards) {
  const std::string ok = "V1 a 0 1\nR1 a b 1k\nD1 b 0 dok\n.model dok D\n.tran 1u 1m\n";
  const Elaborated syntax =
      elaborate_text("syntax\n.model dsyn D(IS=1e-14 N)\n" + ok, ModelCards::kUsed);
  EXPECT_NE(syntax.text().find("t.cir:2:24: error: expected NAME=VALUE in .model, got 'N'"),
            std::string::npos)
      << syntax.text();
  EXPECT_TRUE(syntax.diags.has_errors()) << syntax.text();
  const Elaborated undefined =
      elaborate_text("expression\n.model dexp D(IS={isx})\n" + ok, ModelCards::kUsed);
  EXPECT_NE(undefined.text().find("t.cir:2:19: error: undefined parameter 'isx'"),
            std::string::npos)
      << undefined.text();
  const Elaborated twice =
      elaborate_text("duplicate\n.model dd D\n.model dd D(VF=1)\n" + ok, ModelCards::kUsed);
  EXPECT_NE(twice.text().find("error: duplicate model name 'dd'"), std::string::npos)
      << twice.text();
}

}  // namespace
}  // namespace nsspice::circuit
