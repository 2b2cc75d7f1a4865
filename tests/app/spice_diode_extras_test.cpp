// A SPICE diode's recombination current (ISR, NR) and high-injection knee (IKF) in its PWL
// forward branch (docs/devices.md, "SPICE diode models"), against ngspice on the same netlist
// (skipped with a message where ngspice is not installed), default pwltol and stepping: every
// figure within the PWL tolerance max(1 % of the drop, 10 mV) plus 2 mV (ngspice's time points).
// Each card's extras move ngspice's figures by more than that (checked against ngspice on the
// card without them), so the test fails when they are dropped.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

std::string without(std::string text, const std::string& what) {
  const size_t at = text.find(what);
  if (at != std::string::npos) text.erase(at, what.size());
  return text;
}

class SpiceDiodeExtras : public AppTest {
 protected:
  // `extras`: the card's text that ngspice's comparison run leaves out.
  void check(const std::string& text, const std::string& extras,
             const std::vector<std::string>& figures) {
    if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed: no comparison";
    const fs::path p = write("d.cir", text), bare = write("bare.cir", without(text, extras));
    const CliRun r = nsspice("run '" + p.string() + "' -o out.csv --no-progress");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("are ignored"), std::string::npos) << r.output;
    const auto ns = measures(r.output);
    const auto ng = measures(run_shell("ngspice -b '" + p.string() + "'").output);
    const auto ng_bare = measures(run_shell("ngspice -b '" + bare.string() + "'").output);
    bool extras_matter = false;
    for (const std::string& f : figures) {
      ASSERT_TRUE(ns.contains(f) && ng.contains(f) && ng_bare.contains(f)) << f;
      const double ref = ng.at(f), bound = std::max(0.01 * std::abs(ref), 0.01) + 0.002;
      EXPECT_NEAR(ns.at(f), ref, bound) << f << ": ngspice " << ref;
      extras_matter |= std::abs(ng_bare.at(f) - ref) > bound;
    }
    EXPECT_TRUE(extras_matter) << "the card's " << extras << " must move some figure";
  }
};

TEST_F(SpiceDiodeExtras, HighInjectionKnee) {
  check(R"(forward drop with IKF, 1 mA to 5 A
I1 0 a PWL(0 1m 1m 5)
D1 a 0 DPWR
.model DPWR D(IS=2.55n RS=0.042 N=1.75 IKF=0.5)
.tran 1u 1m 0 1u
.meas tran v1m find v(a) at=1n
.meas tran v1 find v(a) at=0.2m
.meas tran v3 find v(a) at=0.6m
.meas tran v5 find v(a) at=1m
.end
)",
        "IKF=0.5", {"v1m", "v1", "v3", "v5"});
}

TEST_F(SpiceDiodeExtras, ZenerRecombinationCurrent) {
  check(R"(Zener clipper with ISR/NR
VS in 0 SIN(0 10 1k)
R1 in a 470
D1 0 a DZ6V2
.model DZ6V2 D(Is=3.2e-17 Rs=1.1 N=1 Cjo=95p Vj=.75 M=.33 Isr=2.4n Nr=2 Bv=6.2 Ibv=5m Nbv=1.6)
.tran 2u 3m 0 2u
.meas tran vclip max v(a) from=1m to=3m
.meas tran vfwd min v(a) from=1m to=3m
.end
)",
        "Isr=2.4n Nr=2", {"vclip", "vfwd"});
}

}  // namespace
}  // namespace nsspice::testing
