// Elaboration (circuit/elaborate.hpp): netlist cards → devices, nodes, models, .tran/.options,
// with the diagnostics of bad cards.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <variant>

#include "circuit_helpers.hpp"

namespace nsspice::circuit {
namespace {

using testing::elaborate_text;

TEST(Elaborate, NodesDevicesAndModels) {
  const auto e = elaborate_text(
      "rect\nV1 IN 0 SIN(0 10 50)\nD1 in Out DI\nC1 out 0 10u\nR1 out 0 1k\n"
      ".model DI D(VF=0.7 RON=0.1)\n.tran 10u 60m 1m 5u\n.end\n");
  ASSERT_FALSE(e.diags.has_errors()) << e.text();
  const Circuit& c = e.circuit;
  EXPECT_EQ(c.title, "rect");
  EXPECT_EQ(c.nodes, (std::vector<std::string>{"0", "in", "out"})) << "lower case, ground first";
  EXPECT_EQ(c.node_count(), 2);
  ASSERT_EQ(c.devices.size(), 4u);
  const auto* d = std::get_if<Diode>(&c.devices[1]);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->name, "d1");
  EXPECT_EQ(d->a, 1);
  EXPECT_EQ(d->k, 2);
  EXPECT_DOUBLE_EQ(d->model.vf, 0.7);
  EXPECT_DOUBLE_EQ(d->model.ron, 0.1);
  const auto* cap = std::get_if<Capacitor>(&c.devices[2]);
  ASSERT_NE(cap, nullptr);
  EXPECT_DOUBLE_EQ(cap->c, 10e-6);
  const auto* r = std::get_if<Resistor>(&c.devices[3]);
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(r->r, 1e3);
  EXPECT_EQ(device_name(c.devices[0]), "v1");
  ASSERT_TRUE(c.tran);
  EXPECT_DOUBLE_EQ(c.tran->tstep, 10e-6);
  EXPECT_DOUBLE_EQ(c.tran->tstop, 60e-3);
  EXPECT_DOUBLE_EQ(c.tran->tstart, 1e-3);
  EXPECT_DOUBLE_EQ(c.tran->tmax, 5e-6);
}

// LTspice's NODISCARD keeps the points before TSTART: the run's output starts at 0.
TEST(Elaborate, NodiscardStartsTheOutputAtZero) {
  const auto e = elaborate_text("t\nV1 a 0 1\nR1 a 0 1\n.tran 1u 10m 5m 2u nodiscard\n.end\n");
  ASSERT_FALSE(e.diags.has_errors()) << e.text();
  ASSERT_TRUE(e.circuit.tran);
  EXPECT_EQ(e.circuit.tran->tstart, 0.0);
  EXPECT_DOUBLE_EQ(e.circuit.tran->tmax, 2e-6);
}

TEST(Elaborate, OptionsOfTheSchemeAndTheEventMode) {
  const auto e = elaborate_text(
      "t\nV1 a 0 1\nR1 a 0 1\n.options theta=0.75 method=event evrtol=1e-6 reltol=1e-4 "
      "lcpsolver=murty\n.tran 1u 1m\n.end\n");
  ASSERT_FALSE(e.diags.has_errors()) << e.text();
  EXPECT_DOUBLE_EQ(e.circuit.theta, 0.75);
  EXPECT_EQ(e.circuit.method, TranMethod::kEvent);
  EXPECT_DOUBLE_EQ(e.circuit.event.rtol, 1e-6);
  EXPECT_DOUBLE_EQ(e.circuit.stepping.reltol, 1e-4);
  EXPECT_EQ(e.circuit.lcp_solver, solvers::LcpSolverKind::kMurty);
}

TEST(Elaborate, BadOptionValuesAreErrorsWithTheRange) {
  const auto e =
      elaborate_text("t\nV1 a 0 1\nR1 a 0 1\n.options theta=2 reltol=3\n.tran 1u 1m\n.end\n");
  EXPECT_EQ(e.diags.error_count(), 2) << e.text();
  EXPECT_NE(e.text().find("THETA must be a number in [0.5, 1], got '2'"), std::string::npos)
      << e.text();
  EXPECT_NE(e.text().find("reltol must be below 1, got 3"), std::string::npos) << e.text();
}

TEST(Elaborate, UnknownModelSuggestsTheNearest) {
  const auto e = elaborate_text("t\nV1 a 0 1\nD1 a 0 DIDEAL\n.model DIDEEL D\n.tran 1u 1m\n.end\n");
  ASSERT_EQ(e.diags.error_count(), 1) << e.text();
  EXPECT_NE(e.text().find("t.cir:3:8: error: unknown model 'DIDEAL' for diode 'd1' (did you mean "
                          "'dideel'?)"),
            std::string::npos)
      << e.text();
}

TEST(Elaborate, NonPositiveValuesAreErrors) {
  const auto e = elaborate_text("t\nV1 a 0 1\nR1 a 0 -5\nC1 a 0 0\n.tran 1u 1m\n.end\n");
  EXPECT_EQ(e.diags.error_count(), 2) << e.text();
}

TEST(Elaborate, ResistorModelErrorsNameTheResistorAndTheModel) {
  const auto e = elaborate_text(
      "t\nV1 in 0 1\nR1 in a nosuch 1k\nR2 a b dmod w=1u\nR3 b c rmdo\nR4 c 0 rmod 1k\n"
      "R5 c 0 semi l=20u w=1u\nR6 c 0 rmod tc1=-0.1 temp=50\nR7 c 0 empty\nR8 c 0 semi w=3u\n"
      "R9 c 0 rmod scale=0\n"
      ".model dmod D\n.model semi r rsh=100 narrow=0.5u short=6u\n.model rmod r(r=1k kf=1e-12 "
      "foo=2)\n.model empty RES\n.op\n.end\n");
  EXPECT_EQ(e.diags.error_count(), 8) << e.text();
  for (const char* want :
       {"t.cir:3:9: error: unknown model 'nosuch' for resistor 'r1'",
        "t.cir:4:8: error: model 'dmod' is not a resistor (R or RES) model",
        "t.cir:5:8: error: 'rmdo' of resistor 'r3' is neither a number nor a model name (did you "
        "mean 'rmod'?)",
        "t.cir:7:8: error: resistor 'r5' must have a positive, finite resistance, got inf Ω: R_0 "
        "inf Ω = RSH·(L − 2·SHORT)/(W − 2·NARROW) = 100·(2e-05 − 2·6e-06)/(1e-06 − 2·5e-07), "
        "temperature factor 1 at 27 °C (TNOM 27 °C)",
        "t.cir:8:8: error: resistor 'r6' must have a positive, finite resistance, got -1300 Ω: R_0 "
        "1000 Ω (the R of model 'rmod'), temperature factor -1.3 at 50 °C (TNOM 27 °C)",
        "t.cir:9:1: error: resistor 'r7' has no value (model 'empty' gives neither R nor RSH)",
        // L defaults to DEFL = 10 µm: 10 µm − 2·6 µm < 0
        "t.cir:10:8: error: resistor 'r8' must have a positive, finite resistance, got -100 Ω",
        "t.cir:11:8: error: resistor 'r9' must have a positive, finite resistance, got 0 Ω",
        "t.cir:14:8: warning: model 'rmod': parameters kf, foo are ignored (the resistor model "
        "uses R|RES RSH"})
    EXPECT_NE(e.text().find(want), std::string::npos) << want << "\n" << e.text();
}

TEST(Elaborate, PspiceSwitchesStateTheirApproximation) {
  const auto e = elaborate_text(
      "t\nV1 a 0 1\nVc c 0 0\nS1 a 0 c 0 sw1\nW1 a 0 Vc sw2\n"
      ".model sw1 VSWITCH(VON=0.49 VOFF=0.55 RON=2)\n.model sw2 ISWITCH(ION=1m IOFF=2m)\n"
      ".op\n.end\n");
  EXPECT_EQ(e.diags.error_count(), 1) << e.text();
  EXPECT_NE(e.text().find("model 'sw1': VSWITCH's smooth change from ROFF at VOFF = 0.55 V to "
                          "RON at VON = 0.49 V is approximated by the ideal switch: on below "
                          "0.49 V, off above 0.55 V"),
            std::string::npos)
      << e.text();
  EXPECT_NE(e.text().find("model 'sw2': ISWITCH with ION (0.001 A) below IOFF (0.002 A)"),
            std::string::npos)
      << e.text();
}

TEST(Elaborate, TranStopBeforeStartIsAnError) {
  const auto e = elaborate_text("t\nV1 a 0 1\nR1 a 0 1\n.tran 1u 1m 2m\n.end\n");
  EXPECT_EQ(e.diags.error_count(), 1) << e.text();
  EXPECT_NE(e.text().find("must be after the start time"), std::string::npos) << e.text();
  EXPECT_FALSE(e.circuit.tran);
}

// LTspice's K L1 L2 L3 k: one mutual inductance per pair, each with k; an inductor that is not
// there is reported once, at its name; an inductor named twice is an error.
TEST(Elaborate, CouplingOfThreeInductorsIsEveryPair) {
  const auto e = elaborate_text(
      "t\nV1 a 0 1\nL1 a 0 1m\nL2 b 0 4m\nL3 c 0 9m\nR2 b 0 1\nR3 c 0 1\n"
      "K1 L1 L2 L3 0.5\n.tran 1u 10u\n.end\n");
  ASSERT_FALSE(e.diags.has_errors()) << e.text();
  std::vector<std::string> pairs;
  for (const Device& d : e.circuit.devices)
    if (const auto* k = std::get_if<Mutual>(&d)) {
      pairs.push_back(k->name + " " + k->l1 + " " + k->l2);
      EXPECT_DOUBLE_EQ(k->k, 0.5);
    }
  EXPECT_EQ(pairs,
            (std::vector<std::string>{"k1(l1,l2) l1 l2", "k1(l1,l3) l1 l3", "k1(l2,l3) l2 l3"}));
  const auto bad = elaborate_text(
      "t\nV1 a 0 1\nL1 a 0 1m\nL2 b 0 4m\nR2 b 0 1\nK1 L1 L2 L4 0.5\nK2 L1 L2 L1 0.5\n"
      "K3 L1 L2 L3 1.5\n.tran 1u 10u\n.end\n");
  const std::string text = bad.text();
  EXPECT_NE(text.find("t.cir:6:10: error: 'k1' refers to 'l4', which is not an inductor"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("refers to 'l4'"), text.rfind("refers to 'l4'")) << "once\n" << text;
  EXPECT_NE(text.find("t.cir:7:10: error: mutual inductance 'k2' names inductor 'l1' twice"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("coupling of 'k3' must be in [-1, 1] (negative: one winding reversed), got 1.5"),
      std::string::npos)
      << text;
}

// Three inductors coupled pairwise (circuit/src/inductive_systems.cpp): each |k| ≤ 1, but
// k12 = k13 = 1 with k23 = 0.1 makes the scaled inductance matrix [[1, 1, 1], [1, 1, 0.1],
// [1, 0.1, 1]] indefinite: its eigenvalues are 0.9 and (2.1 ± √8.01)/2, the smaller −0.365. The
// run used to go on and call the operating point an unstable equilibrium (growth 1.3e4 /s); it
// is an error naming the inductors and the couplings. k23 = 1 (all three perfectly coupled:
// semidefinite) stays accepted, and so do k13 = k23 = −0.5 (L3 wound against the other two).
TEST(Elaborate, AnIndefiniteInductiveSystemIsAnError) {
  const std::string deck =
      "t\nV1 a 0 SIN(0 1 1k)\nR1 a b 1\nL1 b 0 1m\nL2 c 0 1m\nL3 d 0 1m\nR2 c 0 10\nR3 d 0 10\n"
      "K12 L1 L2 1\nK13 L1 L3 {}\nK23 L2 L3 {}\n.tran 1u 1m\n.end\n";
  const auto bad = elaborate_text(fmt::format(fmt::runtime(deck), 1, 0.1));
  const std::string text = bad.text();
  EXPECT_NE(text.find("t.cir:9:1: error: the coupled inductors l1, l2, l3 (k12 = 1, k13 = 1, "
                      "k23 = 0.1) have an inductance matrix that is not positive semidefinite "
                      "(its scaled form has the eigenvalue -0.365 < 0)"),
            std::string::npos)
      << text;
  for (const auto& [k13, k23] : {std::pair{1.0, 1.0}, std::pair{-0.5, -0.5}}) {
    const auto good = elaborate_text(fmt::format(fmt::runtime(deck), k13, k23));
    EXPECT_FALSE(good.diags.has_errors()) << good.text();
  }
}

}  // namespace
}  // namespace nsspice::circuit
