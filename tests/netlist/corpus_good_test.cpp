// The good corpus (tests/netlist/corpus/good/*.cir): each file is parsed and flattened, and the
// expectations below (element count, names, nodes, values after parameter evaluation and
// subcircuit flattening) are checked. Every file of the directory must have a test here.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>

#include "flatten_helpers.hpp"

namespace nsspice::netlist {
namespace {

using testing::Flat;

void load(Flat& f, const std::string& name) {
  testing::load_file(f, testing::corpus_dir() / "good" / name, name);
}

TEST(NetlistGoodCorpus, EveryFileHasATest) {
  const std::set<std::string> tested = {"params.cir",     "hierarchy.cir",  "includes.cir",
                                        "sources.cir",    "controlled.cir", "controls.cir",
                                        "conventions.cir"};
  for (const auto& entry : std::filesystem::directory_iterator(testing::corpus_dir() / "good")) {
    if (entry.path().extension() != ".cir") continue;
    EXPECT_TRUE(tested.count(entry.path().filename().string()) > 0) << entry.path();
  }
}

TEST(NetlistGoodCorpus, Params) {
  Flat f;
  load(f, "params.cir");
  EXPECT_EQ(f.text(), "");
  EXPECT_EQ(f.element_count(), 8u);
  const double r = 1 / (2 * std::numbers::pi * 1e3 * 100e-9);
  EXPECT_DOUBLE_EQ(f.value("r1"), r);
  EXPECT_DOUBLE_EQ(f.value("v1"), 5);
  EXPECT_DOUBLE_EQ(f.value("c1"), 100e-9);
  EXPECT_DOUBLE_EQ(f.param("c1", "ic"), 0.5);
  EXPECT_DOUBLE_EQ(f.value("r2"), 1e6);  // meg
  EXPECT_DOUBLE_EQ(f.value("r3"), 1);    // m is milli
  EXPECT_DOUBLE_EQ(f.value("r4"), 9);    // 8 - 4 + 3 + 2
  EXPECT_DOUBLE_EQ(f.value("r5"), 12);   // 2 + 1 + 3 + 1 + 1 + 8 - 4 (pwr keeps the sign)
  EXPECT_DOUBLE_EQ(f.value("r6"), 2);
  const TranCard* tran = f.first<TranCard>();
  ASSERT_NE(tran, nullptr);
  EXPECT_DOUBLE_EQ(tran->tstep.value, r * 100e-9 / 100);
  EXPECT_DOUBLE_EQ(tran->tstop.value, 10 * r * 100e-9);
  EXPECT_TRUE(tran->tstep.expr.empty());
}

TEST(NetlistGoodCorpus, Hierarchy) {
  Flat f;
  load(f, "hierarchy.cir");
  EXPECT_EQ(f.text(), "");
  // 3 top elements + 2 instances of amp x (3 own + clamp's 2) = 13
  EXPECT_EQ(f.element_count(), 13u);
  EXPECT_EQ(f.nodes("x1.rin"), "in x1.m");
  EXPECT_EQ(f.nodes("x1.rf"), "x1.m out");
  EXPECT_EQ(f.nodes("x1.rp"), "vdd out");  // .global vdd
  EXPECT_EQ(f.nodes("x2.rf"), "x2.m out2");
  EXPECT_EQ(f.nodes("x1.x1.d1"), "x1.m out");
  EXPECT_EQ(f.nodes("x2.x1.rq"), "out2 0");
  EXPECT_EQ(f.element("x1.x1.d1").letter, 'd');
  EXPECT_EQ(f.element("x1.x1.d1").name.text, "X1.X1.D1");
  EXPECT_DOUBLE_EQ(f.value("x1.rf"), 4e3);     // gain=4 overrides the default 2
  EXPECT_DOUBLE_EQ(f.value("x2.rf"), 2e3);     // default
  EXPECT_DOUBLE_EQ(f.value("x1.x1.rq"), 4e3);  // rf of the enclosing instance
  EXPECT_DOUBLE_EQ(f.value("rl"), 10e3);
  EXPECT_EQ(f.element("x1.x1.d1").model->lower, "x1.x1.dloc");
  EXPECT_DOUBLE_EQ(f.model("x1.x1.dloc").params.at(0).number.value_or(0), 0.4);
  EXPECT_DOUBLE_EQ(f.model("x2.x1.dloc").params.at(0).number.value_or(0), 0.2);
  ASSERT_TRUE(f.element("x1.x1.d1").context);
  EXPECT_EQ(f.element("x1.x1.d1").context->size(), 2u);  // clamp in amp, amp at the top
  EXPECT_FALSE(f.element("rl").context);
}

TEST(NetlistGoodCorpus, Includes) {
  Flat f;
  load(f, "includes.cir");
  EXPECT_EQ(f.text(), "");
  EXPECT_EQ(f.element_count(), 4u);
  EXPECT_EQ(f.element("d1").model->lower, "dm");
  EXPECT_DOUBLE_EQ(f.model("dm").params.at(1).number.value_or(0), 10);
  EXPECT_DOUBLE_EQ(f.value("x1.r1"), 2e3);  // the "fast" section, rdiv from models.inc
  EXPECT_EQ(f.nodes("x1.r2"), "x1.m 0");
  EXPECT_EQ(f.sources.path(f.model("dm").span.file), "inc/models.inc");
  ASSERT_TRUE(f.model("dm").context);
  EXPECT_EQ(f.model("dm").context->at(0).message, "included from here");
}

TEST(NetlistGoodCorpus, Sources) {
  Flat f;
  load(f, "sources.cir");
  EXPECT_EQ(f.text(), "");  // AC 1 90: the excitation of an .ac analysis
  EXPECT_EQ(f.element_count(), 10u);
  EXPECT_DOUBLE_EQ(f.value("v2"), 3.3);
  EXPECT_DOUBLE_EQ(f.param("v2", "ac"), 1);
  EXPECT_DOUBLE_EQ(f.param("v2", "acphase"), 90);
  const auto kinds = [&](const std::string& n) { return f.element(n).functions.at(0).kind.lower; };
  EXPECT_EQ(kinds("v3"), "sin");
  EXPECT_EQ(kinds("v4"), "pulse");
  EXPECT_EQ(kinds("v5"), "pwl");
  EXPECT_EQ(kinds("v6"), "exp");
  EXPECT_EQ(kinds("v7"), "sffm");
  EXPECT_EQ(f.element("v6").functions[0].args.size(), 6u);
  EXPECT_DOUBLE_EQ(f.element("v7").functions[0].args.at(2).value, 1e3);
  const SourceFunction& pwl = f.element("v5").functions[0];
  EXPECT_EQ(pwl.args.size(), 6u);
  ASSERT_EQ(pwl.params.size(), 2u);
  EXPECT_EQ(pwl.params[0].name.lower, "r");
  EXPECT_DOUBLE_EQ(pwl.params[0].number.value_or(-1), 0);
  EXPECT_EQ(pwl.params[1].name.lower, "td");
  EXPECT_DOUBLE_EQ(pwl.params[1].number.value_or(-1), 1e-3);
  EXPECT_TRUE(f.element("v5").params.empty());
  EXPECT_EQ(f.element("i1").functions[0].args.size(), 4u);
  EXPECT_DOUBLE_EQ(f.value("i2"), 1e-3);
}

TEST(NetlistGoodCorpus, Controlled) {
  Flat f;
  load(f, "controlled.cir");
  EXPECT_EQ(f.text(), "");
  EXPECT_EQ(f.element_count(), 14u);
  EXPECT_EQ(f.nodes("e1"), "e1 0 in 0");
  EXPECT_DOUBLE_EQ(f.value("e1"), 2.5);
  EXPECT_FALSE(f.element("e2").value.has_value());
  EXPECT_EQ(f.element("e2").model->lower, "comparator");
  EXPECT_EQ(f.nodes("g1"), "0 g1 in 0");
  EXPECT_DOUBLE_EQ(f.value("g1"), 1e-3);
  EXPECT_EQ(f.nodes("f1"), "f1 0");
  EXPECT_EQ(f.element("f1").refs.at(0).lower, "vsense");
  EXPECT_DOUBLE_EQ(f.value("h1"), 1e3);
  EXPECT_TRUE(f.element("k1").nodes.empty());
  EXPECT_EQ(f.element("k1").refs.at(0).lower, "l1");
  EXPECT_EQ(f.element("k1").refs.at(1).lower, "l2");
  EXPECT_DOUBLE_EQ(f.value("k1"), 0.99);
  EXPECT_EQ(f.nodes("s1"), "s1 0 in 0");
  EXPECT_EQ(f.element("s1").flags.at(0).lower, "off");
  EXPECT_EQ(f.element("w1").refs.at(0).lower, "vsense");
  EXPECT_EQ(f.element("w1").model->lower, "cswmod");
  EXPECT_EQ(f.element("w1").flags.at(0).lower, "on");
  EXPECT_EQ(f.nodes("m1"), "d g 0 0");
  EXPECT_DOUBLE_EQ(f.param("m1", "l"), 1e-6);
  EXPECT_DOUBLE_EQ(f.param("m1", "w"), 10e-6);
  EXPECT_EQ(f.model("comparator").type.lower, "comp");
  EXPECT_EQ(f.model("swmod").type.lower, "sw");
  EXPECT_EQ(f.model("cswmod").type.lower, "csw");
  EXPECT_EQ(f.model("nmod").type.lower, "nmos");
  EXPECT_EQ(f.model("nmod").params.size(), 3u);
}

TEST(NetlistGoodCorpus, Controls) {
  Flat f;
  load(f, "controls.cir");
  EXPECT_EQ(f.text(), "");  // .temp 50 is the option TEMP=50 (the SPICE models' temperature)
  EXPECT_EQ(f.element_count(), 3u);
  const TranCard* tran = f.first<TranCard>();
  ASSERT_NE(tran, nullptr);
  EXPECT_TRUE(tran->uic);
  EXPECT_DOUBLE_EQ(tran->tmax->value, 2e-6);
  EXPECT_NE(f.first<OpCard>(), nullptr);
  EXPECT_DOUBLE_EQ(f.first<IcCard>()->entries.at(0).value.value, 0.5);
  EXPECT_EQ(f.first<NodesetCard>()->entries.at(0).node.lower, "a");
  const OptionsCard* o = f.first<OptionsCard>();
  ASSERT_EQ(o->params.size(), 4u);
  EXPECT_EQ(o->params[0].raw.lower, "event");
  EXPECT_FALSE(o->params[0].number.has_value());
  EXPECT_EQ(o->params[1].raw.lower, "lemke");
  EXPECT_DOUBLE_EQ(o->params[2].number.value_or(0), 1);
  std::vector<std::string> signals;
  for (const Card& c : f.net.cards) {
    if (const auto* s = std::get_if<SaveCard>(&c)) {
      for (const Word& w : s->signals) signals.push_back(s->command.lower + " " + w.lower);
    }
  }
  EXPECT_EQ(signals, (std::vector<std::string>{".print v(b)", ".print v(a,b)", ".print i(v1)",
                                               ".save all", ".probe v(b)"}));
  const MeasCard* m = f.first<MeasCard>();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->analysis.lower, "tran");
  EXPECT_EQ(m->name.lower, "tr");
  std::vector<std::string> tokens;
  for (const Word& w : m->tokens) tokens.push_back(w.lower);
  EXPECT_EQ(tokens, (std::vector<std::string>{"trig", "v(b)", "val=0.5", "rise=1", "targ", "v(b)",
                                              "val=0.9", "rise=1"}));
}

TEST(NetlistGoodCorpus, Conventions) {
  Flat f;
  load(f, "conventions.cir");
  EXPECT_EQ(f.text(), "");
  EXPECT_TRUE(f.net.has_end);
  EXPECT_EQ(f.element_count(), 8u);
  EXPECT_DOUBLE_EQ(f.value("r1"), 10e3);
  EXPECT_DOUBLE_EQ(f.value("r2"), 1e6);
  EXPECT_DOUBLE_EQ(f.value("r3"), 1e-3);
  EXPECT_DOUBLE_EQ(f.value("r4"), 2.2e3);
  EXPECT_DOUBLE_EQ(f.value("r5"), 25.4e-6);
  EXPECT_DOUBLE_EQ(f.value("c1"), 10e-6);
  EXPECT_DOUBLE_EQ(f.param("l1", "ic"), 1e-3);
  EXPECT_EQ(f.nodes("r1"), "a b");
  EXPECT_EQ(f.element("r1").nodes[0].text, "A");
}

}  // namespace
}  // namespace nsspice::netlist
