// .func against ngspice, run on the same deck in the same test (skipped where ngspice is not
// installed): a function in a .param and in element values (R = 1 kΩ, C = 1 µF through nested
// calls) and in a B source (a clamp min(max(x, 0), 3) of v(b), plus a constant call). The
// RC charge is then v(b) = 5·(1 − exp(−t/1 ms)) after the pulse's 1 µs rise; both programs
// integrate it with 10 µs steps (trapezoidal), so the measures agree to 1e-3 relative (seen:
// 7e-5 on vb, 2e-4 on the crossing times).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

const char* const kDeck =
    ".func in a value and in a B source, against ngspice\n"
    ".func sq(x) {x*x}\n.func lim(x) {min(max(x, 0), 3)}\n.func rval(a, b) {sq(a)*b}\n"
    ".param rr = {rval(10, 10)}\nV1 a 0 PULSE(0 5 0 1u 1u 5m 10m)\nR1 a b {rr}\n"
    "C1 b 0 {sq(1m)}\nB1 c 0 V=lim(V(b)) + 0.5*sq(2)\nR2 c 0 1k\n.tran 10u 4m\n"
    ".meas tran vb find v(b) at=3m\n.meas tran tb when v(b)=2.5\n"
    ".meas tran tc when v(c)=4.9\n.meas tran vc max v(c)\n.end\n";

class UserFunctionsVsNgspice : public AppTest {};

TEST_F(UserFunctionsVsNgspice, MeasuresAgree) {
  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed: no comparison";
  const fs::path deck = write("func.cir", kDeck);
  const CliRun peer = run_shell("cd '" + dir_.string() + "' && ngspice -b func.cir");
  ASSERT_EQ(peer.exit_code, 0) << peer.output;
  const auto theirs = measures(peer.output);
  const CliRun r = nsspice("run func.cir -o out.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto ours = measures(r.output);
  for (const char* name : {"vb", "tb", "tc", "vc"}) {
    ASSERT_TRUE(theirs.contains(name)) << name << "\n" << peer.output;
    ASSERT_TRUE(ours.contains(name)) << name << "\n" << r.output;
    EXPECT_NEAR(ours.at(name), theirs.at(name), 1e-3 * std::abs(theirs.at(name))) << name;
  }
  // And the closed form of the charge, to the same tolerance (the 0.5 µs mid-rise delay).
  EXPECT_NEAR(ours.at("tb"), 0.5e-6 + 1e-3 * std::log(2.0), 1e-3 * ours.at("tb"));
  EXPECT_NEAR(ours.at("vc"), 5, 1e-9);
}

}  // namespace
}  // namespace nsspice::testing
