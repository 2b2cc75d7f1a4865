// Level-1 MOSFET cards against ngspice on the same netlist (docs/devices.md, "PWL MOSFET"),
// default pwltol and stepping; skipped (with a message) where ngspice is not installed.
//  * a common-source stage with LAMBDA = 0.02 (LAMBDA raises ngspice's gain by 14 % here): the
//    bias within 0.1 % (K·(1 + λ·v_ds) and the bias knot make the initial point exact), the
//    10 mV gain within 3 % (the output conductance λ·I_D is not modelled: R_D/r_o = 2.5 %, and
//    the report says so);
//  * a buck whose freewheel diode is an off NMOS's body diode (its bulk tied to its source,
//    IS = 1e-12): the switch node while it conducts within 2 %, the output within 1 %;
//  * a card given by UO and TOX without KP: KP derived as ngspice's MOS1 does, the source
//    follower's output within 1 % (and the figure checked without ngspice too).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

class SpiceMosLevel1 : public AppTest {
 protected:
  // nsspice's and ngspice's measurements of `text`; nsspice's report in `report`.
  void both(const std::string& text, std::map<std::string, double>& ours,
            std::map<std::string, double>& theirs, std::string& report) {
    const fs::path p = write("m.cir", text);
    const CliRun r = nsspice("run '" + p.string() + "' -o out.csv --no-progress");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    report = r.output;
    ours = measures(r.output);
    theirs = measures(run_shell("ngspice -b '" + p.string() + "'").output);
  }
  static double rel(double a, double b) { return std::abs(a - b) / std::abs(b); }
};

const char* kCommonSource = R"(common-source stage, LAMBDA
VDD vdd 0 10
VG g 0 SIN(1.5 10m 1k)
RD vdd d 10k
M1 d g 0 0 NCH W=10u L=1u
.model NCH NMOS(LEVEL=1 VTO=1 KP=100u LAMBDA=0.02)
.tran 2u 5m 0 2u
.meas tran vd avg v(d) from=2m to=5m
.meas tran vdpp pp v(d) from=2m to=5m
.end
)";

TEST_F(SpiceMosLevel1, CommonSourceWithLambda) {
  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed: no comparison";
  std::map<std::string, double> ns, ng;
  std::string report;
  both(kCommonSource, ns, ng, report);
  ASSERT_TRUE(ns.contains("vd") && ng.contains("vd") && ns.contains("vdpp") && ng.contains("vdpp"));
  EXPECT_LT(rel(ns.at("vd"), ng.at("vd")), 0.001) << ns.at("vd") << " vs " << ng.at("vd");
  EXPECT_LT(rel(ns.at("vdpp"), ng.at("vdpp")), 0.03) << ns.at("vdpp") << " vs " << ng.at("vdpp");
  // The approximation, with its numbers: r_o = 1/(λ·I_D0) = 1/(0.02·125 µA) = 400 kΩ.
  EXPECT_NE(report.find("m1 LAMBDA 0.02 /V at the initial point (saturation, v_ds 8.5"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("r_o 400 kΩ"), std::string::npos) << report;
  EXPECT_NE(report.find("m1: bias knot at overdrive 0.5 V"), std::string::npos) << report;
}

// A buck whose freewheel diode is an off NMOS's body diode (bulk tied to source): the PWL MOS
// alone conducted backwards through its channel at v_gd > VT instead (−2.6 V, output −25 %).
const char* kBodyDiodeBuck = R"(buck with a body diode as the freewheel diode
VIN in 0 12
VG g 0 PULSE(0 20 0 20n 20n 4u 10u)
MH in g sw sw NSW W=1 L=1
ML sw 0 0 0 NSW W=1 L=1
L1 sw out 47u
C1 out 0 22u
RL out 0 4
.model NSW NMOS(LEVEL=1 VTO=2 KP=2 RD=10m RS=10m IS=1e-12)
.tran 10n 1m 0 10n
.meas tran vout avg v(out) from=0.8m to=1m
.meas tran vswmin min v(sw) from=0.8m to=1m
.meas tran vfw avg v(sw) from=0.9951m to=0.9999m
.end
)";

TEST_F(SpiceMosLevel1, BodyDiodeCarriesTheFreewheelCurrent) {
  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed: no comparison";
  std::map<std::string, double> ns, ng;
  std::string report;
  both(kBodyDiodeBuck, ns, ng, report);
  for (const char* name : {"vout", "vswmin", "vfw"})
    ASSERT_TRUE(ns.contains(name) && ng.contains(name)) << name;
  EXPECT_LT(ng.at("vfw"), -0.6) << "ngspice: the body diode conducts";
  EXPECT_LT(rel(ns.at("vfw"), ng.at("vfw")), 0.02) << ns.at("vfw") << " vs " << ng.at("vfw");
  EXPECT_LT(rel(ns.at("vswmin"), ng.at("vswmin")), 0.02)
      << ns.at("vswmin") << " vs " << ng.at("vswmin");
  EXPECT_LT(rel(ns.at("vout"), ng.at("vout")), 0.01) << ns.at("vout") << " vs " << ng.at("vout");
  EXPECT_NE(report.find("nsw.bulk:"), std::string::npos) << "the bulk diodes' conversion";
}

// A card given by UO and TOX (no KP): ngspice's MOS1 derives KP = UO·1e-4·3.9·ε0/TOX =
// 8.633e-5 A/V²; the default KP (2e-5) gave 0.138 V for ngspice's 0.372 V.
const char* kProcessParameters = R"(level-1 NMOS given by UO and TOX
VDD vdd 0 5
RD vdd d 10k
M1 d g s b NM W=10u L=1u
VG g 0 PULSE(0 2 0 1u 1u 5u 10u)
RS s 0 1k
VB b 0 -2
.model NM NMOS(LEVEL=1 VTO=0.7 TOX=20n UO=500 LAMBDA=0)
.tran 0.1u 10u
.meas tran vs FIND v(s) AT=4u
.end
)";

TEST_F(SpiceMosLevel1, KpFromUoAndTox) {
  std::map<std::string, double> ns, ng;
  std::string report;
  if (have_ngspice()) {
    both(kProcessParameters, ns, ng, report);
    ASSERT_TRUE(ns.contains("vs") && ng.contains("vs"));
    EXPECT_LT(rel(ns.at("vs"), ng.at("vs")), 0.01) << ns.at("vs") << " vs " << ng.at("vs");
  } else {
    const fs::path p = write("m.cir", kProcessParameters);
    const CliRun r = nsspice("run '" + p.string() + "' -o out.csv --no-progress");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    report = r.output;
    ns = measures(r.output);
  }
  EXPECT_NEAR(ns.at("vs"), 0.372, 0.004) << "ngspice-39: 0.3716";
  EXPECT_NE(report.find("KP 8.633e-05 A/V² derived from UO 500 cm²/V·s and TOX 2e-08 m"),
            std::string::npos)
      << report;
  EXPECT_EQ(report.find("are ignored"), std::string::npos) << report;
}

}  // namespace
}  // namespace nsspice::testing
