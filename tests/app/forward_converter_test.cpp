// A single-switch forward converter written as a user writes it (48 V → 5 V, three windings
// coupled pairwise at k = 0.998, a reset diode, a VDMOS with its datasheet card, Schottky
// rectifiers, .tran 5n 0.1m 0 5n), over 90–100 µs of its start-up, against ngspice converged:
// RELTOL 1e-5 and TMAX 1 ns give vout 1.49154 V, ilopk 6.70641 A, vdrpk 222.44 V (RELTOL 1e-6,
// TMAX 0.2 ns: 1.49153 V, 6.70615 A, 225.12 V). ngspice at the deck's own settings gives
// 1.62401 V (+8.9 %), 8.2989 A (+24 %), 310.0 V: not converged, its leakage ring set by the
// step. nsspice at the deck's settings: within 0.2 % on vout and ilopk; the drain peak within
// 3 % once the check of the junction charges (junction_charge_check.hpp) has refitted the reset
// diode's, the body diode's and the CGD charges over the −200…0 V they met (their first fit
// covers the sources' −60…0 V; the drain rings to 171–223 V: 171 V without the refit, −23 %).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

const char* const kForward =
    "* Single-switch forward converter with reset winding, 48V -> 5V\n"
    "Vin in 0 DC 48\n"
    "* primary, reset winding (1:1), secondary n=0.25\n"
    "Lp in dr 400u\nLr 0 rst 400u\nLs s1 0 25u\n"
    "K1 Lp Lr 0.998\nK2 Lp Ls 0.998\nK3 Lr Ls 0.998\n"
    "Dr rst in DFAST\nM1 dr g 0 IRF540\nVg g 0 PULSE(0 12 0 20n 20n 3.5u 10u)\n"
    "D1 s1 k DSCH\nD2 0 k DSCH\nLo k out 47u\nCo out 0 220u\nRo out 0 2\n"
    ".model IRF540 VDMOS(Rg=3 Vto=4 Rd=22m Rs=18m Rb=30m Kp=20 lambda=.002 Cgdmax=2n "
    "Cgdmin=.1n Cgs=1.5n Cjo=1.2n Is=60p N=1.1 TT=150n Vds=100 Ron=44m Qg=72n)\n"
    ".model DFAST D(IS=1n RS=0.1 N=1.5 CJO=20p TT=30n BV=200 IBV=10u)\n"
    ".model DSCH D(IS=31.7u RS=0.051 N=1.373 CJO=110p M=0.35 VJ=0.3905 BV=40 IBV=1m)\n"
    ".tran 5n 0.1m 0 5n\n"
    ".meas tran vout AVG v(out) FROM=0.09m TO=0.1m\n"
    ".meas tran vdrpk MAX v(dr) FROM=0.09m TO=0.1m\n"
    ".meas tran ilopk MAX i(Lo) FROM=0.09m TO=0.1m\n"
    ".end\n";

class ForwardConverter : public AppTest {};

TEST_F(ForwardConverter, AgreesWithNgspiceConverged) {
  write("forward.cir", kForward);
  const CliRun r = nsspice("run forward.cir -o out.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("note: diode 'm1.body' (model 'irf540.body'): its PWL junction charge"),
            std::string::npos)
      << r.output;
  const auto ours = measures(r.output);
  ASSERT_TRUE(ours.contains("vout") && ours.contains("ilopk") && ours.contains("vdrpk"));
  EXPECT_NEAR(ours.at("vout"), 1.49154, 0.002 * 1.49154);
  EXPECT_NEAR(ours.at("ilopk"), 6.70641, 0.002 * 6.70641);
  EXPECT_NEAR(ours.at("vdrpk"), 222.44, 0.03 * 222.44);
  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed: no comparison";
  std::string tight = kForward;
  tight.replace(tight.find(".tran 5n 0.1m 0 5n"), 18, ".tran 1n 0.1m 0 1n");
  tight.replace(tight.find(".end\n"), 5, ".options reltol=1e-5 abstol=1e-14 vntol=1e-9\n.end\n");
  const fs::path p = write("tight.cir", tight);
  const auto theirs = measures(run_shell("ngspice -b '" + p.string() + "'").output);
  ASSERT_TRUE(theirs.contains("vout") && theirs.contains("ilopk") && theirs.contains("vdrpk"));
  EXPECT_NEAR(ours.at("vout"), theirs.at("vout"), 0.002 * theirs.at("vout"));
  EXPECT_NEAR(ours.at("ilopk"), theirs.at("ilopk"), 0.002 * theirs.at("ilopk"));
  EXPECT_NEAR(ours.at("vdrpk"), theirs.at("vdrpk"), 0.03 * theirs.at("vdrpk"));
}

}  // namespace
}  // namespace nsspice::testing
