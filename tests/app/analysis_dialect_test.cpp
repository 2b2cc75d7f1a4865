// Decks of an analog designer's kind, each reduced to the defect it showed: LAMBDA of a level-1
// MOSFET in .ac (the output conductance) and in a .dc sweep (the constant factor), the stored
// charges in the .op listing and the .ac/.dc files, a bare parameter as a .meas level, and the
// dialect forms params:NAME=V and max(a, b, c).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

class AnalysisDialect : public AppTest {};

// A common-source stage biased in saturation, I_0 = K/2·x² = 125 µA (K = 1 mA/V², x = 0.5 V),
// v_ds 8.537 V: LAMBDA's factor F = 1 + λ·v_ds = 1.1707 is exact there.
const char* kCommonSource =
    "cs stage\nVDD vdd 0 10\nVG g 0 DC 1.5 AC 1\nRD vdd d 10k\nM1 d g 0 0 NM W=10u L=1u\n"
    ".model NM NMOS(LEVEL=1 VTO=1 KP=100u LAMBDA=0.02)\n";

// SPICE's small-signal gain g_m·(R_D ∥ r_o), g_m = K·x·F, 1/r_o = λ·I_0: 15.1341 dB (ngspice-39:
// 15.13407). Without λ·I_0 the .ac gave 15.3485 dB (g_m·R_D) and said nothing.
TEST_F(AnalysisDialect, AcHasTheMosOutputConductance) {
  write("cs.cir", std::string(kCommonSource) + ".ac dec 1 1k 10k\n.save v(d)\n.end\n");
  const auto r = nsspice("run cs.cir -o cs.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("note: the output conductance λ·I_D of 1 MOSFET with LAMBDA is added "
                          "to the small-signal model"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("m1 2.5 µS (r_o 400 kΩ"), std::string::npos) << r.output;
  const double k = 1e-3, x = 0.5, i0 = 0.5 * k * x * x;
  const double vds = 10 - 1e4 * i0 * (1 + 0.02 * 8.536585), f = 1 + 0.02 * vds;
  const double gain = k * x * f / (1e-4 + 0.02 * i0);
  const auto csv = text_lines(read_file(dir_ / "cs.csv"));
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_EQ(csv[0], "frequency,vdb(d),vp(d)");
  double freq = 0, db = 0, phase = 0;
  ASSERT_EQ(std::sscanf(csv[1].c_str(), "%lf,%lf,%lf", &freq, &db, &phase), 3);
  EXPECT_NEAR(db, 20 * std::log10(gain), 2e-3) << csv[1];
  EXPECT_NEAR(db, 15.13407, 2e-3) << csv[1];
  EXPECT_NEAR(std::abs(phase), 180, 1e-9);
}

// The same stage swept over its gate: F stays the operating point's (1.1707) while v_ds falls
// to 3.98 V at 2 V (1 + λ·v_ds = 1.0795): the PWL current is 8.4 % above ngspice's there
// (v(d) 3.977 V against ngspice-39's 4.545 V). The sweep now says so, with the point.
TEST_F(AnalysisDialect, DcSweepWarnsOfLambdaAwayFromTheOperatingPoint) {
  write("cs.cir", std::string(kCommonSource) + ".dc VG 1 2 0.25\n.end\n");
  const auto r = nsspice("run cs.cir -o cs.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nsspice: warning: m1 (model 'nm'): LAMBDA 0.02 /V is the constant "
                          "factor F = 1.1707 on the PWL drain current"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the PWL current is +8.4 % off ngspice's I_0·(1 + λ·|v_ds|) at vg = 2 "
                          "(|v_ds| 3.977 V)"),
            std::string::npos)
      << r.output;
  // At the operating point's own value alone: nothing to say.
  write("one.cir", std::string(kCommonSource) + ".dc VG 1.5 1.5 0.1\n.end\n");
  const auto one = nsspice("run one.cir -o one.csv");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(one.output.find("LAMBDA"), std::string::npos) << one.output;
}

// A SPICE diode's stored charge: its unknown qs(d1.q) = q/s is no branch current. The .op
// listing shows q(d1.q) in coulombs under its own heading; the files of .op and .ac leave the
// unknown out unless it is asked for.
TEST_F(AnalysisDialect, StoredChargesAreNotBranchCurrents) {
  write("q.cir",
        "charges\nV1 a 0 DC 5 AC 1\nR1 a k 1k\nD1 k 0 DX\n.model DX D(IS=1e-14 CJO=2p TT=5n)\n"
        ".op\n.end\n");
  auto r = nsspice("run q.cir -o q.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("qs(d1.q)"), std::string::npos) << r.output;
  const auto charges = r.output.find("  stored charges\n    q(d1.q) ");
  ASSERT_NE(charges, std::string::npos) << r.output;
  EXPECT_GT(charges, r.output.find("  branch currents\n    i(v1) "));
  EXPECT_NE(r.output.find(" C\n", charges), std::string::npos) << r.output;
  EXPECT_EQ(text_lines(read_file(dir_ / "q.csv"))[0], "v(a),v(k),i(v1),q(d1.q),i(d1)");
  write("q.cir",
        "charges\nV1 a 0 DC 5 AC 1\nR1 a k 1k\nD1 k 0 DX\n.model DX D(IS=1e-14 CJO=2p TT=5n)\n"
        ".ac dec 1 1k 10k\n.end\n");
  r = nsspice("run q.cir -o q.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string header = text_lines(read_file(dir_ / "q.csv"))[0];
  EXPECT_EQ(header.find("qs"), std::string::npos) << header;
  EXPECT_NE(header.find("qdb(d1.q)"), std::string::npos) << header;
  // Asked for by name, the unknown is written.
  r = nsspice("run q.cir -o q.csv --save 'qs(d1.q)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(text_lines(read_file(dir_ / "q.csv"))[0], "frequency,qsdb(d1.q),qsp(d1.q)");
}

// ngspice's .meas takes a parameter's name as a level without braces (WHEN V(out)=vth); it was
// "expected a number for the level". RISE=LAST stays the keyword.
TEST_F(AnalysisDialect, MeasLevelMayBeABareParameter) {
  write("m.cir",
        "rc\n.param vth=0.5 last=3\nV1 in 0 PULSE(0 1 0 1n 1n 1 2)\nR1 in out 1k\nC1 out 0 1u\n"
        ".tran 10u 3m\n.meas tran t50 WHEN V(out)=vth RISE=1\n"
        ".meas tran t50b WHEN V(out)={vth} RISE=last\n.end\n");
  const auto r = nsspice("run m.cir -o m.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double want = 1e-3 * std::log(2.0);
  const auto m = measures(r.output);
  ASSERT_TRUE(m.count("t50") && m.count("t50b")) << r.output;
  EXPECT_NEAR(m.at("t50"), want, 2e-6) << r.output;
  EXPECT_DOUBLE_EQ(m.at("t50"), m.at("t50b"));
}

// A subcircuit header with params:r0=4k (no blank) and a three-argument max, as decks from
// PSpice and HSPICE libraries write them: both were errors.
TEST_F(AnalysisDialect, GluedParamsAndThreeArgumentMax) {
  write("s.cir",
        "sub\n.param a=3 b=7 c=5\n.subckt rr p n params:r0=4k\nR1 p n {r0}\n.ends\n"
        "V1 x 0 {max(a,b,c)}\nX1 x 0 rr\nX2 x 0 rr PARAMS:r0={min(a,b,c)*1k}\n.op\n.end\n");
  const auto r = nsspice("run s.cir -o s.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = text_lines(read_file(dir_ / "s.csv"));
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_EQ(csv[0], "v(x),i(v1)");
  double v = 0, i = 0;
  ASSERT_EQ(std::sscanf(csv[1].c_str(), "%lf,%lf", &v, &i), 2);
  EXPECT_DOUBLE_EQ(v, 7);
  EXPECT_NEAR(i, -(7 / 4e3 + 7 / 3e3), 1e-15);
}

// A B source's max of three unknowns: a kink per argument after the first. It was "'max' of an
// unknown ('v(a)') is not supported: only ... min, max ... of them are".
TEST_F(AnalysisDialect, BehaviouralMaxOfThreeUnknowns) {
  write("b.cir",
        "b\nV1 a 0 0\nV2 b 0 2\nB1 o 0 V=max(v(a),v(b),0.5*v(a)+1.5)\nB2 p 0 V=min(v(a),v(b),1)\n"
        "R1 o 0 1k\nR2 p 0 1k\n.dc V1 0 4 0.5\n.save v(o) v(p)\n.end\n");
  const auto r = nsspice("run b.cir -o b.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = text_lines(read_file(dir_ / "b.csv"));
  ASSERT_EQ(csv.size(), 10u);
  for (size_t k = 1; k < csv.size(); ++k) {
    double va = 0, vo = 0, vp = 0;
    ASSERT_EQ(std::sscanf(csv[k].c_str(), "%lf,%lf,%lf", &va, &vo, &vp), 3) << csv[k];
    EXPECT_NEAR(vo, std::max({va, 2.0, 0.5 * va + 1.5}), 1e-12) << csv[k];
    EXPECT_NEAR(vp, std::min({va, 2.0, 1.0}), 1e-12) << csv[k];
  }
}

}  // namespace
}  // namespace nsspice::testing
