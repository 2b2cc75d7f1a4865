// Tests for each card kind: R C L V I D elements, source functions, .model, .tran, .ic,
// .options, unknown elements and unknown control cards.
#include <gtest/gtest.h>

#include "test_helpers.hpp"

namespace nsspice::netlist {
namespace {

using testing::card;
using testing::parse;

TEST(NetlistCards, ResistorCapacitorInductor) {
  auto p = parse("t\nR1 in out 4.7k\nC2 out 0 10uF IC=1.5\nL3 out gnd 1mH ic=-2m\n");
  ASSERT_EQ(p.text(), "");
  ASSERT_EQ(p.net.cards.size(), 3u);
  const auto& r = card<ElementCard>(p, 0);
  EXPECT_EQ(r.name.lower, "r1");
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(r.nodes[0].text, "in");
  EXPECT_EQ(r.nodes[1].text, "out");
  EXPECT_DOUBLE_EQ(r.value->value, 4.7e3);
  EXPECT_EQ(r.span.line, 2);
  EXPECT_EQ(r.span.column, 1);
  const auto& c = card<ElementCard>(p, 1);
  EXPECT_DOUBLE_EQ(c.value->value, 10e-6);
  ASSERT_EQ(c.params.size(), 1u);
  EXPECT_EQ(c.params[0].name.lower, "ic");
  EXPECT_EQ(c.params[0].raw.text, "1.5");
  EXPECT_DOUBLE_EQ(c.params[0].number.value_or(0), 1.5);
  const auto& l = card<ElementCard>(p, 2);
  EXPECT_EQ(l.nodes[1].text, "gnd");
  EXPECT_DOUBLE_EQ(l.value->value, 1e-3);
  EXPECT_DOUBLE_EQ(l.params.at(0).number.value_or(0), -2e-3);
}

TEST(NetlistCards, SourcesDcForms) {
  auto p = parse("t\nV1 a 0 DC 5\nV2 a 0 3.3V\nI3 0 a dc 1mA\nV4 a 0\n");
  ASSERT_EQ(p.text(), "");
  ASSERT_EQ(p.net.cards.size(), 4u);
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 0).value->value, 5);
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 1).value->value, 3.3);
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 2).value->value, 1e-3);
  EXPECT_EQ(card<ElementCard>(p, 2).name.lower[0], 'i');
  EXPECT_FALSE(card<ElementCard>(p, 3).value.has_value());
  EXPECT_TRUE(card<ElementCard>(p, 3).functions.empty());
}

TEST(NetlistCards, SourceFunctions) {
  auto p = parse(
      "t\n"
      "V1 a 0 SIN(0 1 1k 1m 10 90)\n"
      "V2 a 0 DC 0 PULSE(0 5 1n 2n 3n 10n 20n)\n"
      "I3 a 0 PWL(0 0 1m 1 2m 0)\n"
      "V4 a 0 SIN 0 1 1k\n"
      "V5 a 0 pwl (0, 1, 1u, 2)\n"
      "V6 a 0 sin(0 1)\n");
  ASSERT_EQ(p.text(), "");
  ASSERT_EQ(p.net.cards.size(), 6u);
  const auto& v1 = card<ElementCard>(p, 0);
  ASSERT_EQ(v1.functions.size(), 1u);
  EXPECT_EQ(v1.functions[0].kind.lower, "sin");
  ASSERT_EQ(v1.functions[0].args.size(), 6u);
  EXPECT_DOUBLE_EQ(v1.functions[0].args[2].value, 1e3);
  EXPECT_DOUBLE_EQ(v1.functions[0].args[5].value, 90);
  EXPECT_EQ(v1.functions[0].span.column, 8);
  EXPECT_EQ(v1.functions[0].span.length, 20);
  EXPECT_FALSE(v1.value.has_value());
  const auto& v2 = card<ElementCard>(p, 1);
  EXPECT_DOUBLE_EQ(v2.value->value, 0);
  EXPECT_EQ(v2.functions.at(0).kind.lower, "pulse");
  EXPECT_EQ(v2.functions.at(0).args.size(), 7u);
  const auto& i3 = card<ElementCard>(p, 2);
  EXPECT_EQ(i3.functions.at(0).kind.lower, "pwl");
  EXPECT_EQ(i3.functions.at(0).args.size(), 6u);
  const auto& v4 = card<ElementCard>(p, 3);
  ASSERT_EQ(v4.functions.size(), 1u);
  EXPECT_EQ(v4.functions[0].args.size(), 3u);
  EXPECT_EQ(v4.functions[0].span.length, 10);
  EXPECT_FALSE(v4.value.has_value());
  EXPECT_EQ(card<ElementCard>(p, 4).functions.at(0).args.size(), 4u);
  EXPECT_EQ(card<ElementCard>(p, 5).functions.at(0).args.size(), 2u);  // defaults applied later
}

TEST(NetlistCards, AcSpecificationIsKept) {
  auto p = parse("t\nV1 a 0 DC 1 AC 1 90 SIN(0 1 1k)\n");
  EXPECT_EQ(p.diags.error_count(), 0);
  EXPECT_EQ(p.text(), "");
  const auto& v = card<ElementCard>(p, 0);
  EXPECT_DOUBLE_EQ(v.value->value, 1);
  ASSERT_EQ(v.params.size(), 2u);
  EXPECT_EQ(v.params[0].name.lower, "ac");
  EXPECT_DOUBLE_EQ(v.params[0].number.value_or(0), 1);
  EXPECT_EQ(v.params[1].name.lower, "acphase");
  EXPECT_DOUBLE_EQ(v.params[1].number.value_or(0), 90);
  EXPECT_EQ(v.functions.size(), 1u);
}

TEST(NetlistCards, DcAndAcCards) {
  auto p = parse(
      "t\n.dc V1 0 5 0.1 I2 0 1m {2*0.5m}\n.ac DEC 10 1 1meg\n.control\nac lin 5 1k 2k\n"
      "dc v1 1 2 1\n.endc\n");
  EXPECT_EQ(p.diags.error_count(), 0) << p.text();
  const auto& dc = card<DcCard>(p, 0);
  ASSERT_EQ(dc.sweeps.size(), 2u);
  EXPECT_EQ(dc.sweeps[0].source.lower, "v1");
  EXPECT_DOUBLE_EQ(dc.sweeps[0].step.value, 0.1);
  EXPECT_EQ(dc.sweeps[1].source.lower, "i2");
  EXPECT_EQ(dc.sweeps[1].step.expr, "2*0.5m");
  const auto& ac = card<AcCard>(p, 1);
  EXPECT_EQ(ac.variation.lower, "dec");
  EXPECT_DOUBLE_EQ(ac.fstop.value, 1e6);
  EXPECT_EQ(card<AcCard>(p, 2).variation.lower, "lin");
  EXPECT_EQ(card<DcCard>(p, 3).sweeps.size(), 1u);
  auto bad = parse("t\n.dc V1 0 5\n.ac dec x 1 2\n");
  EXPECT_EQ(bad.diags.error_count(), 2) << bad.text();
  EXPECT_NE(bad.text().find("t.cir:2:10: error: .dc needs SRC START STOP STEP"), std::string::npos)
      << bad.text();
}

TEST(NetlistCards, PrintAcMagnitudeAndPhaseFormsNameTheirSignal) {
  auto p = parse("t\n.print ac vdb(out) vp(a,b) im(l1) vxx(a)\n.print tran vdb(out)\n");
  const auto& ac = card<SaveCard>(p, 0);
  ASSERT_EQ(ac.signals.size(), 3u) << p.text();
  EXPECT_EQ(ac.signals[0].lower, "v(out)");
  EXPECT_EQ(ac.signals[1].lower, "v(a,b)");
  EXPECT_EQ(ac.signals[2].lower, "i(l1)");
  EXPECT_NE(p.text().find("unsupported signal 'vxx(a)'"), std::string::npos) << p.text();
  EXPECT_NE(p.text().find("unsupported signal 'vdb(out)' in .print ignored"), std::string::npos);
}

TEST(NetlistCards, Diode) {
  auto p = parse("t\nD1 anode cathode DMOD\nd2 a b dmod AREA=2 OFF\n");
  EXPECT_EQ(p.diags.error_count(), 0);
  EXPECT_EQ(p.diags.warning_count(), 1);  // OFF (kept as a flag); AREA= is kept as a param
  ASSERT_EQ(p.net.cards.size(), 2u);
  const auto& d = card<ElementCard>(p, 0);
  EXPECT_EQ(d.nodes.at(0).text, "anode");
  EXPECT_EQ(d.nodes.at(1).text, "cathode");
  ASSERT_TRUE(d.model.has_value());
  EXPECT_EQ(d.model->text, "DMOD");
  EXPECT_EQ(d.model->lower, "dmod");
  ASSERT_EQ(card<ElementCard>(p, 1).params.size(), 1u);
  EXPECT_EQ(card<ElementCard>(p, 1).params[0].name.lower, "area");
  ASSERT_EQ(card<ElementCard>(p, 1).flags.size(), 1u);
  EXPECT_EQ(card<ElementCard>(p, 1).flags[0].lower, "off");
  EXPECT_EQ(card<ElementCard>(p, 1).letter, 'd');
}

TEST(NetlistCards, ModelWithAndWithoutParentheses) {
  auto p = parse(
      "t\n"
      ".model DMOD D(VF=0.7 RON=0.1)\n"
      ".model d2 d vf=0.6 ron=1m goff=1n\n"
      ".MODEL d3 D (VF=0.5, RON=2)\n"
      ".model d4 D\n");
  ASSERT_EQ(p.text(), "");
  ASSERT_EQ(p.net.cards.size(), 4u);
  const auto& m = card<ModelCard>(p, 0);
  EXPECT_EQ(m.name.text, "DMOD");
  EXPECT_EQ(m.type.lower, "d");
  ASSERT_EQ(m.params.size(), 2u);
  EXPECT_EQ(m.params[0].name.text, "VF");
  EXPECT_DOUBLE_EQ(m.params[0].number.value_or(0), 0.7);
  EXPECT_EQ(m.params[1].name.lower, "ron");
  EXPECT_EQ(m.params[1].span.column, 22);
  const auto& m2 = card<ModelCard>(p, 1);
  ASSERT_EQ(m2.params.size(), 3u);
  EXPECT_DOUBLE_EQ(m2.params[1].number.value_or(0), 1e-3);
  EXPECT_DOUBLE_EQ(m2.params[2].number.value_or(0), 1e-9);
  EXPECT_EQ(card<ModelCard>(p, 2).params.size(), 2u);
  EXPECT_TRUE(card<ModelCard>(p, 3).params.empty());
}

// ngspice's 555 example continues a model after its closing parenthesis and ends the
// continuation with a ')' of its own; ngspice reads every parameter (its v(k) on such a diode
// with N = 1.2 after the ')' is 0.98966 V, 0.85758 V with N = 1). Read alike, with a warning at
// the stray ')'. A stray ')' elsewhere, or on another card, stays an error.
TEST(NetlistCards, ModelParametersAfterItsClosingParenthesisAreTheModels) {
  auto p = parse(
      "t\n"
      ".MODEL DA D (RS=40 IS=1.0E-14)\n"
      "+ CJO=1PF N=1.2)\n");
  EXPECT_EQ(p.text(),
            "t.cir:3:16: warning: ')' closes no '(': ignored; the parameters after the earlier "
            "')' are read as the model's, as ngspice reads them\n+ CJO=1PF N=1.2)\n"
            "               ^\n");
  ASSERT_EQ(p.net.cards.size(), 1u);
  const auto& m = card<ModelCard>(p, 0);
  ASSERT_EQ(m.params.size(), 4u);
  EXPECT_EQ(m.params[3].name.lower, "n");
  EXPECT_DOUBLE_EQ(m.params[3].number.value_or(0), 1.2);
  EXPECT_NE(testing::diagnose(".model DA D (RS=40) ) N=1\n").find("error: unmatched ')'"),
            std::string::npos);
  EXPECT_NE(testing::diagnose("V1 a 0 SIN(0 1 1k) 2)\n").find("error: unmatched ')'"),
            std::string::npos);
}

TEST(NetlistCards, ModelParamWithNonNumberKeepsRawText) {
  auto p = parse("t\n.model m1 D(level=abc)\n");
  ASSERT_EQ(p.text(), "");
  const auto& m = card<ModelCard>(p, 0);
  EXPECT_EQ(m.params.at(0).raw.text, "abc");
  EXPECT_FALSE(m.params.at(0).number.has_value());
}

// ngspice reads a function call written without braces as a model parameter's value
// (its Monte Carlo decks: TOX=AGAUSS(9e-09, 9e-09, 10)): the call is the expression
// {FUNC(args)}, with its span. A blank between the name and '(' is an error, as in ngspice.
TEST(NetlistCards, ModelParamWrittenAsAnUnbracedCallIsAnExpression) {
  auto p = parse("t\n.model DX D(IS=agauss(1e-14, 1e-15, 3) N=1.5 RS=max(1,2))\n");
  ASSERT_EQ(p.text(), "");
  const auto& m = card<ModelCard>(p, 0);
  ASSERT_EQ(m.params.size(), 3u);
  EXPECT_EQ(m.params[0].name.lower, "is");
  EXPECT_EQ(m.params[0].raw.text, "{agauss(1e-14, 1e-15, 3)}");
  EXPECT_FALSE(m.params[0].number.has_value());
  EXPECT_EQ(m.params[0].raw.span.column, 16);
  EXPECT_EQ(m.params[0].raw.span.length, 23);
  EXPECT_DOUBLE_EQ(m.params[1].number.value_or(0), 1.5);
  EXPECT_EQ(m.params[2].raw.text, "{max(1,2)}");
  EXPECT_NE(testing::diagnose(".model DX D(IS=exp (-31.5))\n")
                .find("error: expected NAME=VALUE in .model, got '(-31.5)'"),
            std::string::npos);
  EXPECT_NE(testing::diagnose(".model DX D(IS=1e-14(2))\n").find("error: expected NAME=VALUE"),
            std::string::npos);
}

TEST(NetlistCards, TranWithTwoThreeFourArgsAndUic) {
  auto p = parse("t\n.tran 1n 1u\n.tran 1n 1u 100n\n.tran 1n 1u 100n 5n\n.tran 1u 1m UIC\n");
  ASSERT_EQ(p.text(), "");
  ASSERT_EQ(p.net.cards.size(), 4u);
  const auto& t2 = card<TranCard>(p, 0);
  EXPECT_DOUBLE_EQ(t2.tstep.value, 1e-9);
  EXPECT_DOUBLE_EQ(t2.tstop.value, 1e-6);
  EXPECT_FALSE(t2.tstart.has_value());
  EXPECT_FALSE(t2.tmax.has_value());
  EXPECT_FALSE(t2.uic);
  const auto& t3 = card<TranCard>(p, 1);
  EXPECT_DOUBLE_EQ(t3.tstart.value().value, 100e-9);
  EXPECT_FALSE(t3.tmax.has_value());
  const auto& t4 = card<TranCard>(p, 2);
  EXPECT_DOUBLE_EQ(t4.tmax.value().value, 5e-9);
  EXPECT_EQ(t4.tmax->span.column, 18);
  const auto& tu = card<TranCard>(p, 3);
  EXPECT_TRUE(tu.uic);
  EXPECT_DOUBLE_EQ(tu.tstop.value, 1e-3);
}

// LTspice's .tran modifiers, in any order and case after the values: NODISCARD kept (the
// elaborator then starts the output at 0), STEADY warned and ignored (the run goes to TSTOP),
// STARTUP an error at its position (not modelled: a run from the operating point would not be
// the inrush the user asked for); a value after a modifier is an error naming it.
TEST(NetlistCards, TranLtspiceModifiers) {
  auto p = parse("t\n.tran 1u 10m 5m nodiscard Uic\n.TRAN 0 1m 0 1u STEADY\n");
  ASSERT_FALSE(p.diags.has_errors()) << p.text();
  const auto& kept = card<TranCard>(p, 0);
  EXPECT_TRUE(kept.nodiscard);
  EXPECT_TRUE(kept.uic);
  EXPECT_DOUBLE_EQ(kept.tstart.value().value, 5e-3);
  EXPECT_FALSE(card<TranCard>(p, 1).nodiscard);
  EXPECT_NE(p.text().find("t.cir:3:17: warning: LTspice's STEADY (stop once a steady state is "
                          "detected) is ignored: nsspice runs to TSTOP"),
            std::string::npos)
      << p.text();
  auto s = parse("t\n.tran 1u 10m startup\n");
  EXPECT_NE(s.text().find("t.cir:2:14: error: LTspice's STARTUP (every independent source "
                          "ramped up from 0 over the first 20 µs) is not supported"),
            std::string::npos)
      << s.text();
  auto late = parse("t\n.tran 1u 10m nodiscard 5m\n");
  EXPECT_NE(late.text().find("t.cir:2:24: error: unexpected '5m' after NODISCARD in .tran"),
            std::string::npos)
      << late.text();
}

TEST(NetlistCards, InitialConditions) {
  auto p = parse("t\n.ic V(n1)=10 v(out)=0 V( x ) = -1.5m\n");
  ASSERT_EQ(p.text(), "");
  const auto& ic = card<IcCard>(p, 0);
  ASSERT_EQ(ic.entries.size(), 3u);
  EXPECT_EQ(ic.entries[0].node.text, "n1");
  EXPECT_DOUBLE_EQ(ic.entries[0].value.value, 10);
  EXPECT_EQ(ic.entries[1].node.lower, "out");
  EXPECT_EQ(ic.entries[1].span.column, 14);
  EXPECT_EQ(ic.entries[1].span.length, 8);
  EXPECT_EQ(ic.entries[2].node.text, "x");
  EXPECT_DOUBLE_EQ(ic.entries[2].value.value, -1.5e-3);
}

TEST(NetlistCards, OptionsAllSpellings) {
  auto p = parse("t\n.options THETA=0.5 method=gear\n.option reltol=1e-4\n.opt trtol=7 noinit\n");
  ASSERT_EQ(p.text(), "");
  ASSERT_EQ(p.net.cards.size(), 3u);
  const auto& o = card<OptionsCard>(p, 0);
  ASSERT_EQ(o.params.size(), 2u);
  EXPECT_EQ(o.params[0].name.lower, "theta");
  EXPECT_DOUBLE_EQ(o.params[0].number.value_or(0), 0.5);
  EXPECT_EQ(o.params[1].raw.lower, "gear");
  EXPECT_FALSE(o.params[1].number.has_value());
  EXPECT_DOUBLE_EQ(card<OptionsCard>(p, 1).params.at(0).number.value_or(0), 1e-4);
  const auto& o3 = card<OptionsCard>(p, 2);
  ASSERT_EQ(o3.params.size(), 2u);
  EXPECT_EQ(o3.params[1].name.lower, "noinit");
  EXPECT_EQ(o3.params[1].raw.text, "");
  EXPECT_FALSE(o3.params[1].number.has_value());
}

TEST(NetlistCards, UnknownElementIsAnErrorUnknownDotCardAWarning) {
  auto p = parse("t\nJ1 d g s jmod\n.foo 1 2\nR1 a b 1\n");
  EXPECT_EQ(p.diags.error_count(), 1);
  EXPECT_EQ(p.diags.warning_count(), 1);
  ASSERT_EQ(p.diags.all().size(), 2u);
  EXPECT_EQ(p.diags.all()[0].message,
            "unsupported element type 'J' (element 'J1'): JFETs are not supported");
  EXPECT_EQ(p.diags.all()[0].severity, Severity::kError);
  EXPECT_EQ(p.diags.all()[1].message, "unsupported control card '.foo' ignored");
  EXPECT_EQ(p.diags.all()[1].severity, Severity::kWarning);
  EXPECT_EQ(p.net.cards.size(), 1u);
}

TEST(NetlistCards, EndSetsFlag) {
  EXPECT_TRUE(parse("t\n.end\n").net.has_end);
  EXPECT_TRUE(parse("t\n.END").net.has_end);
  EXPECT_FALSE(parse("t\nR1 a b 1\n").net.has_end);
  EXPECT_FALSE(parse("t\n.ends\n").net.has_end);
}

}  // namespace
}  // namespace nsspice::netlist

namespace nsspice::netlist {
namespace {

using testing::card;
using testing::parse;

TEST(NetlistCards, InstancesAndSubcircuitHeaders) {
  auto p = parse(
      "t\nX1 a b amp gain=4 rin={2*k}\nX2 amp2\nX3 n1 n2 amp params: gain=1\n"
      ".subckt amp in out params: gain=2\nR1 in out 1k\n.ends\n"
      ".subckt amp2 gain=3\n.ends amp2\n");
  ASSERT_EQ(p.text(), "");
  const auto& x1 = card<InstanceCard>(p, 0);
  EXPECT_EQ(x1.subckt.lower, "amp");
  ASSERT_EQ(x1.nodes.size(), 2u);
  ASSERT_EQ(x1.params.size(), 2u);
  EXPECT_EQ(x1.params[1].raw.text, "{2*k}");
  EXPECT_TRUE(card<InstanceCard>(p, 1).nodes.empty());
  EXPECT_EQ(card<InstanceCard>(p, 2).params.at(0).name.lower, "gain");
  ASSERT_EQ(p.net.subckts.size(), 2u);
  EXPECT_EQ(p.net.subckts[0].pins.size(), 2u);
  EXPECT_EQ(p.net.subckts[0].params.at(0).raw.text, "2");
  EXPECT_EQ(p.net.subckts[0].cards.size(), 1u);
  EXPECT_TRUE(p.net.subckts[1].pins.empty());
  EXPECT_EQ(p.net.subckts[1].params.at(0).name.lower, "gain");
}

// PSpice's "params:" written without the blank after it, in a header and in an instance.
TEST(NetlistCards, ParamsKeywordGluedToTheFirstParameter) {
  auto p = parse(
      "t\nX1 a b amp PARAMS:gain=4 rin=2\n.subckt amp in out params:r0=4k g=1\n"
      "R1 in out {r0}\n.ends\n");
  ASSERT_EQ(p.text(), "");
  const auto& x1 = card<InstanceCard>(p, 0);
  ASSERT_EQ(x1.params.size(), 2u);
  EXPECT_EQ(x1.params[0].name.lower, "gain");
  EXPECT_EQ(x1.params[0].name.span.column, 19);
  ASSERT_EQ(p.net.subckts.size(), 1u);
  EXPECT_EQ(p.net.subckts[0].pins.size(), 2u);
  ASSERT_EQ(p.net.subckts[0].params.size(), 2u);
  EXPECT_EQ(p.net.subckts[0].params[0].name.lower, "r0");
  EXPECT_EQ(p.net.subckts[0].params[0].raw.text, "4k");
}

TEST(NetlistCards, TitleIncludeLibAndExpressionsStayText) {
  auto p = parse(
      "t\n.title My circuit\n.include \"my models.inc\"\n.lib 'parts.lib' fast\n"
      ".lib fast\n.param a=1\n.endl\nR1 a b {2 * x}\n");
  ASSERT_EQ(p.text(), "");
  EXPECT_EQ(p.net.title, "My circuit");
  EXPECT_EQ(card<IncludeCard>(p, 0).path.text, "my models.inc");
  EXPECT_EQ(card<IncludeCard>(p, 1).path.text, "parts.lib");
  EXPECT_EQ(card<IncludeCard>(p, 1).section->lower, "fast");
  ASSERT_EQ(p.net.libs.size(), 1u);
  EXPECT_EQ(p.net.libs[0].cards.size(), 1u);
  const auto& r = card<ElementCard>(p, 2);
  EXPECT_EQ(r.value->expr, "2 * x");
  EXPECT_EQ(r.value->span.column, 8);
  EXPECT_EQ(r.value->span.length, 7);  // "{2 * x}"
}

TEST(NetlistCards, OtherDialectForms) {
  auto p = parse(
      "t\nV1 a 0 SINE(0 1 1k) Rser=2\nR1 a b r=1k\nC1 b 0 c=1u\n.tran 30m\n"
      ".save all alli allv @D1[id] @s1[i] @c1[i] @r1[p] @m1[vgs] i(C1) p(r1)\n"
      "E1 e 0 POLY(1) a 0 0.5 2\nR2 Net-(D1-A) 0 1\n");
  EXPECT_EQ(p.diags.error_count(), 0) << p.text();
  const auto& v = card<ElementCard>(p, 0);
  ASSERT_EQ(v.functions.size(), 1u);
  EXPECT_EQ(v.functions[0].kind.lower, "sin");
  EXPECT_EQ(v.functions[0].kind.text, "SINE");
  EXPECT_EQ(v.params.at(0).name.lower, "rser");
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 1).value->value, 1e3);
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 2).value->value, 1e-6);
  const auto& tran = card<TranCard>(p, 3);
  EXPECT_EQ(tran.tstep.value, 0.0);
  EXPECT_DOUBLE_EQ(tran.tstop.value, 30e-3);
  const auto& save = card<SaveCard>(p, 4);
  std::vector<std::string> names;
  for (const auto& w : save.signals) names.push_back(w.lower);
  EXPECT_EQ(names, (std::vector<std::string>{"all", "alli", "allv", "i(d1)", "i(s1)", "i(c1)",
                                             "p(r1)", "i(c1)", "p(r1)"}));
  EXPECT_EQ(save.signals[3].text, "@D1[id]");
  EXPECT_NE(p.text().find("unsupported signal '@m1[vgs]'"), std::string::npos) << p.text();
  const auto& e = card<ElementCard>(p, 5);
  EXPECT_EQ(e.nodes.size(), 4u);
  ASSERT_EQ(e.functions.size(), 1u);
  EXPECT_EQ(e.functions[0].kind.lower, "poly");
  ASSERT_EQ(e.functions[0].args.size(), 2u);
  EXPECT_DOUBLE_EQ(e.functions[0].args[1].value, 2);
  EXPECT_EQ(card<ElementCard>(p, 6).nodes[0].lower, "net-(d1-a)");
}

TEST(NetlistCards, ResistorModelNameInEitherOrder) {
  auto p = parse("t\nR1 a b R_NOISELESS 1e-3\nR2 a b 2k rmod l=1u\nR3 a b rmod l=2u\n");
  ASSERT_EQ(p.text(), "");
  const auto& r1 = card<ElementCard>(p, 0);
  EXPECT_EQ(r1.model->lower, "r_noiseless");
  EXPECT_DOUBLE_EQ(r1.value->value, 1e-3);
  const auto& r2 = card<ElementCard>(p, 1);
  EXPECT_EQ(r2.model->lower, "rmod");
  EXPECT_DOUBLE_EQ(r2.value->value, 2e3);
  EXPECT_EQ(r2.params.at(0).name.lower, "l");
  EXPECT_FALSE(card<ElementCard>(p, 2).value);
  // Two values, two models, a bad number (a word that does not start with a letter), nothing.
  auto bad = parse(
      "t\nR1 a b 1k 2k\nR2 a b m1 m2\nR3 a b 1.2.3\nR4 a b tc1=0.01\n"
      "R5 a b 1k r=2k\n");
  for (const char* want : {"t.cir:2:11: error: unexpected '2k' in resistor 'R1'",
                           "t.cir:3:11: error: unexpected 'm2' in resistor 'R2'",
                           "t.cir:4:8: error: expected a number, got '1.2.3'",
                           "t.cir:5:8: error: resistor 'R4' needs a value or a model name",
                           "t.cir:6:11: error: unexpected 'r=2k' in resistor 'R5'"})
    EXPECT_NE(bad.text().find(want), std::string::npos) << want << "\n" << bad.text();
  EXPECT_EQ(bad.diags.error_count(), 5) << bad.text();
}

// ngspice's instance forms of the semiconductor resistor: a model alone, the value as r= or
// resistance= among the parameters, L= W= and the temperature parameters.
TEST(NetlistCards, ResistorInstanceForms) {
  auto p = parse(
      "t\nR1 a b rmod\nR2 a b rmod r=2k\nR3 a b rmod L=10u W=1u\nR4 a b resistance={1k*2} "
      "tc1=1m\nR5 a b 1k rmod tce=0.3 dtemp=5 m=2 scale=1.5\nR6 a b r=3k\n");
  ASSERT_EQ(p.text(), "");
  const auto& r1 = card<ElementCard>(p, 0);
  EXPECT_EQ(r1.model->lower, "rmod");
  EXPECT_FALSE(r1.value);
  EXPECT_TRUE(r1.params.empty());
  const auto& r2 = card<ElementCard>(p, 1);
  EXPECT_EQ(r2.model->lower, "rmod");
  ASSERT_TRUE(r2.value);
  EXPECT_DOUBLE_EQ(r2.value->value, 2e3);
  EXPECT_TRUE(r2.params.empty()) << "r= is the value, not a parameter";
  const auto& r3 = card<ElementCard>(p, 2);
  ASSERT_EQ(r3.params.size(), 2u);
  EXPECT_EQ(r3.params[0].name.lower, "l");
  EXPECT_DOUBLE_EQ(*r3.params[1].number, 1e-6);
  const auto& r4 = card<ElementCard>(p, 3);
  EXPECT_FALSE(r4.model);
  ASSERT_TRUE(r4.value);
  EXPECT_EQ(r4.value->expr, "1k*2");  // evaluated by flatten
  EXPECT_EQ(r4.value->span.column, 19);
  const auto& r5 = card<ElementCard>(p, 4);
  EXPECT_EQ(r5.params.size(), 4u);
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 5).value->value, 3e3);
}

// ngspice's form with the function's name inside its parentheses, as some exporters write it:
// "(PULSE 0 5 ...)" is "PULSE(0 5 ...)"; a group that names no function stays an error.
TEST(NetlistCards, SourceFunctionNamedInsideItsParentheses) {
  auto p = parse(
      "t\nV1 in 0 (PULSE 0 5 0 1n 1n 5u 10u)\nV2 b 0 DC 0 (SIN 0 1 1k)\n"
      "I3 c 0 (pwl 0 0 1m 1 r=0)\nV4 d 0 PULSE(0 5 0 1n 1n 5u 10u)\n");
  ASSERT_EQ(p.text(), "");
  ASSERT_EQ(p.net.cards.size(), 4u);
  const auto& v1 = card<ElementCard>(p, 0);
  const auto& v4 = card<ElementCard>(p, 3);
  ASSERT_EQ(v1.functions.size(), 1u);
  EXPECT_EQ(v1.functions[0].kind.lower, "pulse");
  ASSERT_EQ(v1.functions[0].args.size(), v4.functions.at(0).args.size());
  for (size_t k = 0; k < v1.functions[0].args.size(); ++k)
    EXPECT_EQ(v1.functions[0].args[k].value, v4.functions[0].args[k].value) << k;
  EXPECT_EQ(v1.functions[0].span.column, 10);  // the function's name
  const auto& v2 = card<ElementCard>(p, 1);
  EXPECT_DOUBLE_EQ(v2.value->value, 0);
  EXPECT_EQ(v2.functions.at(0).kind.lower, "sin");
  EXPECT_EQ(v2.functions.at(0).args.size(), 3u);
  const auto& i3 = card<ElementCard>(p, 2);
  EXPECT_EQ(i3.functions.at(0).kind.lower, "pwl");
  EXPECT_EQ(i3.functions.at(0).args.size(), 4u);
  EXPECT_EQ(i3.functions.at(0).params.size(), 1u);  // r=0
  const auto bad = parse("t\nV1 in 0 (FOO 0 5)\n");
  EXPECT_NE(bad.text().find("t.cir:2:7: error: expected a node name, got '0 (FOO 0 5)'"),
            std::string::npos)
      << bad.text();
}

TEST(NetlistCards, TableSourcesBecomeTableExpressions) {
  auto p = parse(
      "t\nG1 o 0 TABLE {(V(a,b))} =\n+(0, 0.663e-5)\n+(4.78, 2.7e-4)\n"
      "E2 o2 0 table {V(a)} (-1 -2) (1,2)\n");
  ASSERT_EQ(p.text(), "");
  const auto& g = card<ElementCard>(p, 0);
  EXPECT_EQ(g.letter, 'g');
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.params.at(0).name.lower, "value");
  EXPECT_EQ(g.params.at(0).raw.text, "table((V(a,b)), 0, 0.663e-5, 4.78, 2.7e-4)");
  EXPECT_EQ(card<ElementCard>(p, 1).params.at(0).raw.text, "table(V(a), -1, -2, 1, 2)");
  auto bad = parse(
      "t\nG1 o 0 TABLE {V(a)} = (0, 1) (2, x)\nE1 o 0 TABLE {V(a)} = (0 1) (2)\n"
      "E2 o 0 TABLE V(a) = (0 1) (2 3)\nE3 o 0 TABLE {V(a) = (0 1)\n");
  for (const char* want :
       {"t.cir:2:34: error: voltage-controlled current source 'G1': expected a number in the "
        "TABLE points, got 'x'",
        "t.cir:3:22: error: voltage-controlled voltage source 'E1': TABLE needs at least 2 (x, y) "
        "points, got 3 numbers",
        "t.cir:4:14: error: voltage-controlled voltage source 'E2': expected the controlling "
        "expression in braces after TABLE",
        "t.cir:5:14: error: voltage-controlled voltage source 'E3': unclosed TABLE expression"})
    EXPECT_NE(bad.text().find(want), std::string::npos) << want << "\n" << bad.text();
}

TEST(NetlistCards, SelfHeatingVdmosIsRefusedWithTheWayOut) {
  auto bad = parse("t\nM1 D G 0 tj tc IRFP240 thermal\n");
  EXPECT_NE(bad.text().find("t.cir:2:24: error: MOSFET 'M1': VDMOS self-heating (THERMAL, with "
                            "the thermal nodes 'tj' and 'tc') is not supported; write 'M1 D G 0 "
                            "IRFP240' to simulate the device at .temp"),
            std::string::npos)
      << bad.text();
}

TEST(NetlistCards, PspiceSpellingsOfValueAndTemperatureCoefficients) {
  auto p = parse("t\nE1 a 0 VALUE { V(b)*2 + 1}\nR1 a b 1 TC=2.25M,-15U\n");
  ASSERT_EQ(p.text(), "");
  const auto& e = card<ElementCard>(p, 0);
  EXPECT_EQ(e.params.at(0).name.lower, "value");
  EXPECT_EQ(e.params.at(0).raw.text, " V(b)*2 + 1");
  const auto& r = card<ElementCard>(p, 1);
  ASSERT_EQ(r.params.size(), 2u);
  EXPECT_EQ(r.params[0].name.lower, "tc");
  EXPECT_DOUBLE_EQ(r.params[0].number.value_or(0), 2.25e-3);
  EXPECT_EQ(r.params[1].name.lower, "tc2");
  EXPECT_DOUBLE_EQ(r.params[1].number.value_or(0), -15e-6);
}

// ngspice's B-source forms of E and G: E n+ n- VOL='expr' and G n+ n- CUR='expr' are VALUE=
// (they were "unsupported form" errors); quoted, braced or bare. CUR= on E and VOL= on G are
// not ngspice's and stay errors.
TEST(NetlistCards, NgspiceVolAndCurAreValue) {
  auto p = parse("t\nE1 a 0 vol='v(out)*0.5'\nG1 0 gi CUR={1m*v(a)}\nE2 b 0 VOL = v(a) + 1\n");
  ASSERT_EQ(p.text(), "");
  const auto& e = card<ElementCard>(p, 0);
  ASSERT_EQ(e.params.size(), 1u);
  EXPECT_EQ(e.params[0].name.lower, "value");
  EXPECT_EQ(e.params[0].name.text, "vol");
  EXPECT_EQ(e.params[0].raw.text, "v(out)*0.5");
  const auto& g = card<ElementCard>(p, 1);
  ASSERT_EQ(g.params.size(), 1u);
  EXPECT_EQ(g.params[0].name.lower, "value");
  EXPECT_EQ(g.params[0].raw.text, "1m*v(a)");
  const auto& e2 = card<ElementCard>(p, 2);
  ASSERT_EQ(e2.params.size(), 1u);
  EXPECT_EQ(e2.params[0].name.lower, "value");
  EXPECT_EQ(e2.params[0].raw.text, "v(a) + 1");
  auto bad = parse("t\nE1 a 0 cur='v(b)'\nG1 a 0 vol='v(b)'\n");
  EXPECT_NE(bad.text().find("t.cir:2:8: error: unsupported form of voltage-controlled voltage "
                            "source 'E1': 'cur='v(b)''"),
            std::string::npos)
      << bad.text();
  EXPECT_NE(bad.text().find("t.cir:3:8: error: unsupported form of voltage-controlled current "
                            "source 'G1': 'vol='v(b)''"),
            std::string::npos)
      << bad.text();
}

// KiCad's net names "Net-(Q1-B)" on transistors as on two-terminal elements: Q with 3 or 4
// nodes (and an area), M with 3 (VDMOS) or 4 nodes.
TEST(NetlistCards, KicadNetNamesOnTransistors) {
  auto p = parse(
      "t\nQ1 Net-(Q1-C) Net-(Q1-B) 0 QN\nQ2 Net-(Q2-C) Net-(Q2-B) 0 Net-(Q2-S) QN 2\n"
      "M1 Net-(M1-D) Net-(M1-G) 0 VD\nM2 Net-(M2-D) g 0 Net-(M2-B) NM W=2u\n"
      "Q3 c b e QN 1.5\n");
  ASSERT_EQ(p.text(), "");
  const auto nodes = [&](size_t k) {
    std::vector<std::string> out;
    for (const auto& w : card<ElementCard>(p, k).nodes) out.push_back(w.lower);
    return out;
  };
  EXPECT_EQ(nodes(0), (std::vector<std::string>{"net-(q1-c)", "net-(q1-b)", "0"}));
  EXPECT_EQ(card<ElementCard>(p, 0).model->lower, "qn");
  EXPECT_EQ(nodes(1), (std::vector<std::string>{"net-(q2-c)", "net-(q2-b)", "0", "net-(q2-s)"}));
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 1).value->value, 2.0);
  EXPECT_EQ(nodes(2), (std::vector<std::string>{"net-(m1-d)", "net-(m1-g)", "0"}));
  EXPECT_EQ(card<ElementCard>(p, 2).model->lower, "vd");
  EXPECT_EQ(nodes(3), (std::vector<std::string>{"net-(m2-d)", "g", "0", "net-(m2-b)"}));
  EXPECT_EQ(card<ElementCard>(p, 3).params.at(0).name.lower, "w");
  EXPECT_EQ(nodes(4), (std::vector<std::string>{"c", "b", "e"}));
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 4).value->value, 1.5);
}

// LTspice's K with three or more inductors: the coupling factor is the last item.
TEST(NetlistCards, CouplingOfThreeInductors) {
  auto p = parse("t\nK1 L1 L2 L3 1\nK2 La Lb {kk}\n");
  ASSERT_EQ(p.text(), "");
  const auto& k = card<ElementCard>(p, 0);
  ASSERT_EQ(k.refs.size(), 3u);
  EXPECT_EQ(k.refs[2].lower, "l3");
  EXPECT_DOUBLE_EQ(k.value->value, 1.0);
  EXPECT_EQ(card<ElementCard>(p, 1).refs.size(), 2u);
  EXPECT_EQ(card<ElementCard>(p, 1).value->expr, "kk");
  auto bad = parse("t\nK1 L1 0.5 L2 0.5\nK2 L1\n");
  EXPECT_NE(bad.text().find("t.cir:2:7: error: coupling 'K1': expected an inductor name, got "
                            "'0.5' (K L1 L2 ... k: the coupling factor is the last item)"),
            std::string::npos)
      << bad.text();
  EXPECT_NE(bad.text().find("coupling 'K2' needs 2 inductor names and a coupling factor"),
            std::string::npos)
      << bad.text();
}

}  // namespace
}  // namespace nsspice::netlist
