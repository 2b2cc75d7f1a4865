// LAMBDA along the run, from the command line: a half bridge of level-1 NMOS with LAMBDA = 0.01
// into an RL load, whose high side conducts in saturation at |v_ds| ≈ 14 V (its gate drive is
// 12 V over its source, so its saturation current sets the load current). With F from the initial
// point (where that channel is off: F = 1) the inductor current's valley was 0.5876 A against
// ngspice's 0.6966 A (−16 %). The run now measures the charge-weighted 1 + λ·|v_ds| (1.155),
// repeats itself with it, and again (1.143, settled within the tolerance), and warns that the
// spread left is 5.4 % on average; the valley and peak come within 3.5 % of ngspice's. The
// ngspice figures are stored (ngspice-39, this deck as written) and, where ngspice is installed,
// checked against a fresh run.
#include <gtest/gtest.h>

#include <cmath>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

const char* kHalfBridge = R"(half bridge, level-1 NMOS pair, RL load
VDD vdd 0 24
VGH gh mid PULSE(0 12 0 50n 50n 4.8u 10u)
VGL gl 0 PULSE(12 0 0 50n 50n 5.2u 10u)
MH vdd gh mid mid NPOW L=1u W=1m
ML mid gl 0 0 NPOW L=1u W=1m
RL mid x 5
LL x 0 100u
.model NPOW NMOS(LEVEL=1 VTO=3 KP=20u LAMBDA=0.01 RD=0.05 RS=0.05)
.tran 50n 200u
.meas tran imax max i(LL) from=150u to=200u
.meas tran imin min i(LL) from=150u to=200u
.end
)";

constexpr double kNgspiceMax = 0.953903, kNgspiceMin = 0.696615;

class MosLambdaCli : public AppTest {};

TEST_F(MosLambdaCli, AHalfBridgeRunsAgainWithItsChargeWeightedFactor) {
  write("hb.cir", kHalfBridge);
  const CliRun r = nsspice("run hb.cir -o hb.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nsspice: note: MOSFET 'mh' (model 'npow'): while its channel "
                          "conducted, 1 + λ·|v_ds| was"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("against F = 1 (1 + λ·|v_ds| at the initial point)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("and the simulation repeated (2 of at most 3)"), std::string::npos)
      << r.output;
  // What no constant factor removes is said, with its size.
  const std::regex spread(
      R"(warning: mh \(model 'npow'\): LAMBDA 0\.01 /V is the constant factor F = 1\.1[0-9]* .* )"
      R"(differs from the PWL one by ([0-9.]+) % on average \(charge-weighted\); no constant )"
      R"(factor does better)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, spread)) << r.output;
  EXPECT_GT(std::stod(m[1]), 3.0);
  EXPECT_LT(std::stod(m[1]), 8.0);
  EXPECT_NE(r.output.find("mh LAMBDA 0.01 /V: K × 1.14"), std::string::npos) << r.output;
  // The low side conducts in triode at |v_ds| ≈ 0: nothing to say.
  EXPECT_EQ(r.output.find("MOSFET 'ml'"), std::string::npos) << r.output;
  const auto ours = measures(r.output);
  ASSERT_TRUE(ours.contains("imax") && ours.contains("imin")) << r.output;
  EXPECT_NEAR(ours.at("imax") / kNgspiceMax, 1.0, 0.035) << ours.at("imax");
  EXPECT_NEAR(ours.at("imin") / kNgspiceMin, 1.0, 0.035) << ours.at("imin");

  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed: the stored figures only";
  const auto ng = measures(run_shell("cd '" + dir_.string() + "' && ngspice -b hb.cir").output);
  ASSERT_TRUE(ng.contains("imax") && ng.contains("imin"));
  EXPECT_NEAR(ng.at("imax") / kNgspiceMax, 1.0, 2e-3);
  EXPECT_NEAR(ng.at("imin") / kNgspiceMin, 1.0, 2e-3);
}

}  // namespace
}  // namespace nsspice::testing
