// i(X) and p(X) of every two-terminal element, and the output cards that name them: KCL at every
// node and Tellegen's theorem (Σ p = 0) on a circuit holding each element type, at θ = 1 (where
// i(C) = C Δv/Δt is the scheme's own current, so both hold to rounding).
#include <algorithm>
#include <cmath>
#include <map>

#include "app/io/waveforms.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

using app::Waveforms;

const char* kEveryElement = R"(every element type
V1 in 0 SIN(0 5 1k)
R1 in a 1k
C1 a 0 1u
L1 a b 10m
R2 b 0 100
D1 in c DM
R3 c 0 2k
I1 a 0 PULSE(0 1m 0.3m 1u 1u 0.2m 1m)
G1 a 0 b 0 1m
F1 a 0 V1 0.1
E1 e 0 a 0 2
R4 e 0 1k
H1 h 0 V1 100
R5 h 0 1k
S1 a 0 in 0 SW1
W1 b 0 V1 WS
.model DM D(VF=0.5 RON=10)
.model SW1 SW(VT=4 RON=100 ROFF=1e6)
.model WS CSW(IT=1m RON=1k ROFF=1e9)
.options theta=1
.tran 1u 2m
.save alli allv
.end
)";

const std::vector<std::string> kElements = {"v1", "r1", "c1", "l1", "r2", "d1", "r3", "i1",
                                            "g1", "f1", "e1", "r4", "h1", "r5", "s1", "w1"};

class ElementSignals : public AppTest {
 protected:
  Waveforms run(const std::string& netlist, const std::string& args) {
    write("e.cir", netlist);
    const CliRun r = nsspice("run e.cir -o e.csv -q " + args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    output_ = r.output;
    std::string error;
    auto w = app::read_waveforms((dir_ / "e.csv").string(), error);
    EXPECT_TRUE(w) << error;
    return w ? *w : Waveforms{};
  }
  std::string output_;
};

double at(const Waveforms& w, const std::string& name, size_t i) {
  const auto k = w.index(name);
  EXPECT_TRUE(k) << name;
  return k ? w.columns[*k][i] : NAN;
}

TEST_F(ElementSignals, CurrentsOfEveryElementTypeSatisfyKcl) {
  const Waveforms w = run(kEveryElement, "");
  EXPECT_EQ(output_, "");  // no warning
  for (const auto& e : kElements) EXPECT_TRUE(w.index("i(" + e + ")")) << e;
  ASSERT_GT(w.points(), 2000u);
  // Currents leaving each node through its elements (first node → second node is +i).
  const std::map<std::string, std::vector<std::pair<std::string, double>>> kcl = {
      {"in", {{"v1", 1}, {"r1", 1}, {"d1", 1}}},
      {"a", {{"r1", -1}, {"c1", 1}, {"l1", 1}, {"i1", 1}, {"g1", 1}, {"f1", 1}, {"s1", 1}}},
      {"b", {{"l1", -1}, {"r2", 1}, {"w1", 1}}},
      {"c", {{"d1", -1}, {"r3", 1}}},
      {"e", {{"e1", 1}, {"r4", 1}}},
      {"h", {{"h1", 1}, {"r5", 1}}}};
  double scale = 0;
  for (size_t i = 0; i < w.points(); ++i) scale = std::max(scale, std::abs(at(w, "i(r1)", i)));
  ASSERT_GT(scale, 1e-3);
  // From the second point: the first point's i(C1) is the first step's mean current.
  for (const auto& [node, terms] : kcl) {
    double worst = 0;
    for (size_t i = 1; i < w.points(); ++i) {
      double sum = 0;
      for (const auto& [e, sign] : terms) sum += sign * at(w, "i(" + e + ")", i);
      worst = std::max(worst, std::abs(sum));
    }
    EXPECT_LT(worst, 1e-9 * scale) << "KCL at node " << node;
  }
  // The elements that carry current in this run do (not a column of zeros).
  for (const char* e : {"c1", "l1", "d1", "s1", "i1", "g1", "f1"}) {
    double peak = 0;
    for (size_t i = 0; i < w.points(); ++i)
      peak = std::max(peak, std::abs(at(w, "i(" + std::string(e) + ")", i)));
    EXPECT_GT(peak, 1e-5) << e;
  }
}

TEST_F(ElementSignals, PowersSumToZero) {
  std::string save = ".save";
  for (const auto& e : kElements) save += " p(" + e + ")";
  std::string netlist = kEveryElement;
  netlist.replace(netlist.find(".save alli allv"), 15, save + " v(in) v(a) i(r1)");
  const Waveforms w = run(netlist, "");
  EXPECT_EQ(output_, "");
  ASSERT_EQ(w.names.size(), kElements.size() + 3);
  double scale = 0, worst = 0;
  for (size_t i = 1; i < w.points(); ++i) {
    double sum = 0;
    for (const auto& e : kElements) sum += at(w, "p(" + e + ")", i);
    worst = std::max(worst, std::abs(sum));
    scale = std::max(scale, std::abs(at(w, "p(v1)", i)));
    // p(R1) = v(in,a)·i(R1), relative 1e-12
    const double p = (at(w, "v(in)", i) - at(w, "v(a)", i)) * at(w, "i(r1)", i);
    EXPECT_NEAR(at(w, "p(r1)", i), p, 1e-12 * std::abs(p) + 1e-18);
    EXPECT_GE(at(w, "p(r1)", i), 0.0);  // a resistor absorbs
  }
  ASSERT_GT(scale, 1e-3);
  EXPECT_LT(worst, 1e-9 * scale);  // Tellegen: Σ p(X) = 0
}

TEST_F(ElementSignals, NgspiceDeviceQuantitiesAndAllForms) {
  std::string netlist = kEveryElement;
  netlist.replace(netlist.find(".save alli allv"), 15,
                  ".save v(b) @d1[id] @s1[i] @c1[i] @r1[i] @R2[p]\n.print tran all");
  const Waveforms w = run(netlist, "");
  EXPECT_EQ(output_, "");
  // v(b) first, the device quantities as i()/p(), then every signal of the run (`all`).
  ASSERT_GE(w.names.size(), 6u);
  EXPECT_EQ(std::vector<std::string>(w.names.begin(), w.names.begin() + 6),
            (std::vector<std::string>{"v(b)", "i(d1)", "i(s1)", "i(c1)", "i(r1)", "p(r2)"}));
  EXPECT_TRUE(w.index("v(h)") && w.index("i(l1)") && w.index("i(w1)"));
  EXPECT_FALSE(w.index("i(r3)"));  // `all` is the run's own signals, as without a .save card
}

TEST_F(ElementSignals, AllvAndAlli) {
  std::string netlist = kEveryElement;
  netlist.replace(netlist.find(".save alli allv"), 15, ".save allv");
  Waveforms w = run(netlist, "");
  EXPECT_EQ(w.names, (std::vector<std::string>{"v(in)", "v(a)", "v(b)", "v(c)", "v(e)", "v(h)"}));
  netlist = kEveryElement;
  netlist.replace(netlist.find(".save alli allv"), 15, ".save alli");
  w = run(netlist, "");
  EXPECT_EQ(w.names.size(), kElements.size());
  for (const auto& name : w.names) EXPECT_EQ(name.substr(0, 2), "i(");
}

TEST_F(ElementSignals, UnknownSignalsAreWarningsAtTheirPlace) {
  std::string netlist = kEveryElement;
  netlist.replace(netlist.find(".save alli allv"), 15, ".save v(a) i(rq1) @r1[vgs] vdb(a) i(nope)");
  const Waveforms w = run(netlist, "");
  EXPECT_EQ(w.names, (std::vector<std::string>{"v(a)"}));
  EXPECT_NE(output_.find("e.cir:23:12: warning: unknown signal 'i(rq1)' ignored (did you mean "
                         "'i(r1)', 'i(v1)' or 'i(l1)'?)"),
            std::string::npos)
      << output_;
  EXPECT_NE(output_.find("e.cir:23:19: warning: unsupported signal '@r1[vgs]' in .save ignored "
                         "(nsspice has a device's current (@name[i], @d1[id]) and power "
                         "(@name[p]))"),
            std::string::npos)
      << output_;
  EXPECT_NE(output_.find("e.cir:23:28: warning: unsupported signal 'vdb(a)' in .save ignored"),
            std::string::npos)
      << output_;
  EXPECT_NE(output_.find("e.cir:23:35: warning: unknown signal 'i(nope)' ignored"),
            std::string::npos)
      << output_;
}

TEST_F(ElementSignals, CommandLineSaveTakesElementCurrentsAndStillRejectsUnknowns) {
  const Waveforms w = run(kEveryElement, "--save 'i(c1),p(i1),v(a,b)'");
  EXPECT_EQ(w.names, (std::vector<std::string>{"i(c1)", "p(i1)", "v(a,b)"}));
  write("e.cir", kEveryElement);
  const CliRun r = nsspice("run e.cir -o x.csv -q --save 'i(nope)'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("unknown signal 'i(nope)' in --save"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
}

TEST_F(ElementSignals, MeasureReadsACapacitorCurrent) {
  // RC charge from 0 through R = 1k into C = 1u by a 1 V step: i(C) = 1 mA·exp(−t/RC).
  const char* rc =
      "rc\nV1 in 0 PULSE(0 1 0 1n 1n 1 2)\nR1 in a 1k\nC1 a 0 1u\n"
      ".tran 1u 5m\n.meas tran ic1 find i(c1) at=1m\n.end\n";
  write("rc.cir", rc);
  const CliRun r = nsspice("run rc.cir -o rc.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto pos = r.output.find("ic1");
  ASSERT_NE(pos, std::string::npos) << r.output;
  const double value = std::stod(r.output.substr(r.output.find_first_of("-0123456789", pos + 3)));
  // The scheme's own capacitor current (ddt of v(a)) at error-controlled steps, RELTOL 1e-3:
  // within RELTOL of exact (2.6e-4 seen).
  EXPECT_NEAR(value, 1e-3 * std::exp(-1.0), 1e-3 * std::exp(-1.0) * 1e-3);
}

TEST_F(ElementSignals, MeasCardOfAnUnknownSignalIsAWarningAtItsPlace) {
  write("m.cir",
        "m\nV1 in 0 SIN(0 1 1k)\nR1 in 0 1k\n.tran 1u 1m\n.meas tran pk max v(inn)\n"
        ".meas tran top max v(in)\n.end\n");
  const CliRun r = nsspice("run m.cir -o m.csv");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("m.cir:5:1: warning: measurement 'pk': unknown signal 'v(inn)' (did you "
                          "mean 'v(in)'?); the measurement is left out"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("top ="), std::string::npos) << r.output;
  const CliRun bad = nsspice("run m.cir -o n.csv --meas 'max v(nope)'");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_FALSE(fs::exists(dir_ / "n.csv"));
}

}  // namespace
}  // namespace nsspice::testing
