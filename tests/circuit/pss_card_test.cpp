// The .pss card (circuit/src/elaborate_pss.cpp): both forms into Circuit::pss, and the values
// that are errors at their place (the parse errors are in tests/netlist/corpus/bad/77_pss_cards).
#include <gtest/gtest.h>

#include "circuit_helpers.hpp"

namespace nsspice::circuit {
namespace {

const char* kHead = "t\nV1 a 0 DC 1\nR1 a b 1k\nC1 b 0 1u\nL1 b 0 1m\n";

testing::Elaborated with_card(const std::string& card) {
  return testing::elaborate_text(std::string(kHead) + card + "\n.end\n");
}

TEST(PssCard, NgspiceFormMapsWhatItCan) {
  const auto e = with_card(".pss 2k 1m b 300 10 40 1e-3 uic");
  ASSERT_FALSE(e.diags.has_errors()) << e.text();
  ASSERT_TRUE(e.circuit.pss);
  const PssSpec& s = *e.circuit.pss;
  EXPECT_DOUBLE_EQ(s.period, 0.5e-3);
  EXPECT_DOUBLE_EQ(s.stabilization, 1e-3);
  EXPECT_EQ(s.trigger, "v(b)");
  EXPECT_TRUE(s.node_trigger);
  EXPECT_FALSE(s.level_given);
  EXPECT_EQ(s.steps, 300);
  EXPECT_EQ(s.max_newton, 40);
  EXPECT_TRUE(s.uic);
  // HARMS and STEADY_COEFF: warnings that say what nsspice does instead.
  EXPECT_NE(e.text().find("t.cir:6:18: warning: '.pss' HARMS = 10 ignored"), std::string::npos)
      << e.text();
  EXPECT_NE(e.text().find("STEADY_COEFF = 0.001 ignored: nsspice stops when"), std::string::npos)
      << e.text();
}

TEST(PssCard, KeywordForm) {
  const auto e = with_card(".pss TRIG i(l1) VAL=1m FALL FREQ=1k TSTAB=2m PERIODS=3 WARMUP=0");
  ASSERT_FALSE(e.diags.has_errors()) << e.text();
  const PssSpec& s = *e.circuit.pss;
  EXPECT_DOUBLE_EQ(s.period, 1e-3);
  EXPECT_EQ(s.trigger, "i(l1)");
  EXPECT_FALSE(s.node_trigger);
  EXPECT_TRUE(s.level_given);
  EXPECT_DOUBLE_EQ(s.level, 1e-3);
  EXPECT_FALSE(s.rising);
  EXPECT_EQ(s.periods, 3);
  EXPECT_EQ(s.warmup, 0);
  const auto driven = with_card(".param tp=20u\n.pss PERIOD={tp*2} STEPS=400");
  ASSERT_FALSE(driven.diags.has_errors()) << driven.text();
  EXPECT_DOUBLE_EQ(driven.circuit.pss->period, 40e-6);
  EXPECT_TRUE(driven.circuit.pss->trigger.empty());
}

TEST(PssCard, BadValuesAreErrorsAtTheirPlace) {
  const std::pair<const char*, const char*> cases[] = {
      {".pss 0 1m b", "t.cir:6:6: error: '.pss' GFREQ (the guessed frequency) must be > 0, got 0"},
      {".pss 1k -1 b", "t.cir:6:9: error: '.pss' TSTAB (the stabilization time) must be >= 0"},
      {".pss 1k 1m nowhere", "t.cir:6:12: error: '.pss' OSCNOB: unknown node 'nowhere'"},
      {".pss 1k 1m b 10.5", "t.cir:6:14: error: '.pss' PSSPOINTS must be a whole number >= 1"},
      {".pss TRIG v(b)", "t.cir:6:1: error: '.pss' needs PERIOD=T or FREQ=F"},
      {".pss PERIOD=1m FREQ=1k", "error: '.pss' takes PERIOD= or FREQ=, not both"},
      {".pss PERIOD=1m VAL=2", "t.cir:6:16: error: '.pss' VAL= is the trigger's level"},
      {".pss PERIOD=1m PERIODS=0", "t.cir:6:24: error: '.pss' PERIODS must be a whole number >= 1"},
  };
  for (const auto& [card, message] : cases) {
    const auto e = with_card(card);
    EXPECT_TRUE(e.diags.has_errors()) << card;
    EXPECT_NE(e.text().find(message), std::string::npos) << card << "\n" << e.text();
    EXPECT_FALSE(e.circuit.pss) << card;
  }
}

}  // namespace
}  // namespace nsspice::circuit
