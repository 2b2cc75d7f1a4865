// PSpice's DEV/LOT model tolerances in Monte Carlo runs (app/sweep/model_tolerances.hpp), read
// back through the forward drops of ideal diodes: in `V 5 V — R 1 kΩ — D — 0` the diode
// current is (5 V − VF)/1 kΩ, so VF = 5 V − 1 kΩ·i exactly (RON = 0).
//   * DEV is drawn per device, LOT once per model and run: for D1, D2 of one model with
//     VF = 0.7 DEV 0.1 LOT 0.2 (absolute, uniform), VF1 − VF2 = 0.1 (ξ1 − ξ2) has no LOT part:
//     σ = 0.1·√(2/3), |VF1 − VF2| ≤ 0.2; VF1 has σ = √((0.1² + 0.2²)/3);
//   * DEV/GAUSS 10 %: σ = 0.07 V around 0.7 V, never beyond 4σ;
//   * LOT/1 on two models: the same ξ (VFa − 0.7 = VFb − 0.5 in every run);
// sample means within 4σ/√n and standard deviations within 20 % (n = 400, fixed seed: the test
// is deterministic; the bounds fail with probability below 1e-4 for correct draws). Also: a
// run's values depend only on (seed, run index); without --runs each tolerance warns that its
// parameter keeps its nominal value; malformed tolerances are errors at their place.
#include <fmt/format.h>

#include <cmath>
#include <numeric>

#include "app_test_helpers.hpp"
#include "sweep_helpers.hpp"

namespace nsspice::testing {
namespace {

class ModelTolerances : public SweepAppTest {
 protected:
  // VF = 5 V − 1 kΩ·i of each run.
  std::vector<double> drops(const std::string& file, const std::string& meas) {
    std::vector<double> v;
    for (double i : column(file, meas)) v.push_back(5.0 - 1e3 * i);
    return v;
  }
  static double mean(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  }
  static double sd(const std::vector<double>& v) {
    const double m = mean(v);
    double s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return std::sqrt(s / static_cast<double>(v.size() - 1));
  }
};

constexpr const char* kDiodes =
    "tolerances\n"
    "V1 a 0 5\nR1 a b1 1k\nD1 b1 0 dm\nR2 a b2 1k\nD2 b2 0 dm\n"
    "R3 a b3 1k\nD3 b3 0 dg\nR4 a b4 1k\nD4 b4 0 da\nR5 a b5 1k\nD5 b5 0 db\n"
    ".model dm D(VF=0.7 DEV 0.1 LOT=0.2)\n"
    ".model dg D(VF=0.7 DEV/GAUSS 10%)\n"
    ".model da D(VF=0.7 LOT/1 0.1)\n"
    ".model db D(VF=0.5 LOT/1/UNIFORM 0.1)\n"
    ".tran 1u 2u\n"
    ".meas tran i1 find i(d1) at=2u\n.meas tran i2 find i(d2) at=2u\n"
    ".meas tran i3 find i(d3) at=2u\n.meas tran i4 find i(d4) at=2u\n"
    ".meas tran i5 find i(d5) at=2u\n.end\n";

TEST_F(ModelTolerances, DevPerDeviceLotPerModelTracksShared) {
  write("t.cir", kDiodes);
  const CliRun r = nsspice("run t.cir -o t.csv -q --runs 400 --seed 7 --save 'v(a)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto vf1 = drops("t.meas.csv", "i1"), vf2 = drops("t.meas.csv", "i2");
  const auto vf3 = drops("t.meas.csv", "i3"), vf4 = drops("t.meas.csv", "i4");
  const auto vf5 = drops("t.meas.csv", "i5");
  ASSERT_EQ(vf1.size(), 400u);
  const double n = 400, s1 = std::sqrt((0.01 + 0.04) / 3), s12 = 0.1 * std::sqrt(2.0 / 3);
  EXPECT_NEAR(mean(vf1), 0.7, 4 * s1 / std::sqrt(n));
  EXPECT_NEAR(sd(vf1), s1, 0.2 * s1);
  std::vector<double> diff;
  for (size_t k = 0; k < vf1.size(); ++k) diff.push_back(vf1[k] - vf2[k]);
  EXPECT_NEAR(sd(diff), s12, 0.2 * s12) << "DEV: independent per device, LOT: shared";
  for (double d : diff) EXPECT_LE(std::abs(d), 0.2 + 1e-9);
  EXPECT_NEAR(mean(vf3), 0.7, 4 * 0.07 / std::sqrt(n));
  EXPECT_NEAR(sd(vf3), 0.07, 0.2 * 0.07);
  for (double v : vf3) EXPECT_LE(std::abs(v - 0.7), 4 * 0.07 + 1e-9);
  for (size_t k = 0; k < vf4.size(); ++k)
    EXPECT_NEAR(vf4[k] - 0.7, vf5[k] - 0.5, 1e-9) << "run " << k + 1 << ": LOT/1 shared";
  EXPECT_GT(sd(vf4), 0.04);  // uniform ±0.1: σ = 0.058
}

TEST_F(ModelTolerances, RunsDependOnlyOnSeedAndIndex) {
  write("t.cir", kDiodes);
  ASSERT_EQ(nsspice("run t.cir -o a.csv -q --runs 6 --seed 3 --jobs 2").exit_code, 0);
  ASSERT_EQ(nsspice("run t.cir -o b.csv -q --runs 3 --seed 3 --jobs 1").exit_code, 0);
  const auto a = column("a.meas.csv", "i1"), b = column("b.meas.csv", "i1");
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(a[k], b[k]) << "run " << k + 1;
  EXPECT_NE(a[0], a[1]);
}

TEST_F(ModelTolerances, WithoutMonteCarloTheNominalValueIsKeptAndSaid) {
  write("t.cir", kDiodes);
  const CliRun r = nsspice("run t.cir -o t.csv -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("t.cir:13:20: warning: 'DEV 0.1' of 'VF' in model 'dm': VF keeps its "
                          "nominal value 0.7 (no Monte Carlo run: use --runs N to draw it)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("0.0043 A  (find i(d1) at=2u)"), std::string::npos) << r.output;
}

TEST_F(ModelTolerances, MalformedTolerancesAreErrorsAtTheirPlace) {
  write("e.cir",
        "e\nV1 a 0 5\nR1 a b 1k\nD1 b 0 dm\n"
        ".model dm D(DEV 5% VF=0.7 LOT/WCASE 1% RON=1 DEV/3/X 2 BV=5 LOT -1)\n"
        ".tran 1u 2u\n.end\n");
  const CliRun r = nsspice("run e.cir -o e.csv --runs 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  for (const char* text :
       {"e.cir:5:13: error: model 'dm': DEV 5%: a DEV/LOT tolerance applies to the parameter "
        "before it",
        "e.cir:5:27: error: model 'dm': LOT/WCASE 1%: the WCASE distribution is for PSpice's "
        "worst-case analysis",
        "e.cir:5:46: error: model 'dm': DEV/3/X 2: unknown distribution 'x' (UNIFORM or GAUSS)",
        "e.cir:5:61: error: model 'dm': LOT -1: the tolerance '-1' is not a number ≥ 0"})
    EXPECT_NE(r.output.find(text), std::string::npos) << text << "\n" << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "e.run1.csv"));
}

}  // namespace
}  // namespace nsspice::testing
