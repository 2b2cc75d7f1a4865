// The run command's refit (docs/devices.md, "Current range"): a run whose converted SPICE
// junction leaves the estimated current range of its PWL fit is repeated with that model fitted
// over the range the run met, and says so; a range the user set is kept and warned about. The
// same for a diode whose junction charge is off SPICE's where it matters ("Capacitances").
//
// The circuit: an emitter follower whose 1 µF emitter capacitor is charged through the
// transistor from a 5 V step behind RB = 10 kΩ (BF = 100). The emitter current reaches 39 mA,
// where the estimate (2·ΣV 15 V / R_min 10 kΩ = 3 mA) fits the B-E junction up to 3 mA only:
// above it the last chord continues, V_BE comes out at 1.15 V instead of 0.76 V, the base current
// is low and the charging slow. Measured against ngspice (same netlist): the time v(e) takes to
// reach 2 V 8.4 % late and the peak of v(e) 2.6 % low with the estimated range kept, both within
// 0.2 % refitted.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

const std::string kFollower =
    "Emitter follower charging a capacitor, user style\n"
    "VCC vcc 0 10\n"
    "VIN in 0 PULSE(0 5 10u 10n 10n 200u 400u)\n"
    "RB in b 10k\n"
    "Q1 vcc b e QGEN\n"
    "CE e 0 1u\n"
    "RE e 0 10k\n"
    ".model QGEN NPN(IS=1e-14 BF=100)\n"
    ".tran 1u 400u\n"
    ".meas tran t2 when v(e)=2 rise=1\n"
    ".meas tran ve max v(e)\n";

class PwlRefit : public AppTest {
 protected:
  std::map<std::string, double> run(const std::string& name, const std::string& extra, CliRun& r) {
    const fs::path p = write(name, kFollower + extra + ".end\n");
    r = nsspice("run '" + p.string() + "' -o out.csv --no-progress");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return measures(r.output);
  }
  static ::testing::AssertionResult says(const CliRun& r, const std::string& text) {
    if (r.output.find(text) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "no '" << text << "' in:\n" << r.output;
  }
};

TEST_F(PwlRefit, ALeftRangeIsRefittedAndTheRunRepeated) {
  CliRun r;
  const auto refit = run("follower.cir", "", r);
  EXPECT_TRUE(says(r,
                   "nsspice: note: model 'qgen' left the estimated current range of its PWL "
                   "fit (q1's B-E current reached 38.9 mA, above imax 3 mA): it is fitted "
                   "again over 3 nA–77.8 mA and the simulation repeated (2 of at most 3)"));
  // The run reported is the refitted one: its conversion says so, and no range is left.
  EXPECT_TRUE(says(r,
                   "range 3 nA–77.8 mA from a refit: simulation 1: q1's B-E current reached "
                   "38.9 mA, above imax 3 mA"));
  EXPECT_EQ(r.output.find("run again"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("(3 of at most 3)"), std::string::npos) << r.output;
  ASSERT_TRUE(refit.count("t2") && refit.count("ve")) << r.output;
  // The file holds the refitted run: the row at the crossing measured.
  EXPECT_TRUE(fs::exists(dir_ / "out.csv"));

  // A range the user set that covers the run: no refit, the same answer within the PWL
  // tolerance's effect (two fits of the same junction over different ranges).
  CliRun covered_run;
  const auto covered = run("covered.cir", ".options pwlimax=0.1\n", covered_run);
  EXPECT_EQ(covered_run.output.find("note: model 'qgen'"), std::string::npos);
  EXPECT_NEAR(refit.at("t2"), covered.at("t2"), 3e-3 * covered.at("t2"));
  EXPECT_NEAR(refit.at("ve"), covered.at("ve"), 3e-3 * covered.at("ve"));

  // The estimated range set by the user: kept, warned about with the pwlimax that covers the
  // run, and the answer is the doubtful one (8 % slow).
  CliRun kept_run;
  const auto kept = run("kept.cir", ".options pwlimax=3m\n", kept_run);
  EXPECT_EQ(kept_run.output.find("note: model 'qgen'"), std::string::npos);
  EXPECT_TRUE(says(kept_run,
                   "nsspice: warning: q1 (model 'qgen'): the B-E current reached 0.0389 A, "
                   "above the range of its PWL fit (imax = 0.003 A), where the voltage error "
                   "bound does not hold; set .options pwlimax=0.078 and run again"));
  EXPECT_GT(kept.at("t2"), 1.05 * refit.at("t2"));
  EXPECT_LT(kept.at("ve"), 0.99 * refit.at("ve"));

  if (!have_ngspice()) GTEST_SKIP() << "ngspice not installed: the comparison with it skipped";
  const CliRun ng = run_shell("ngspice -b '" + (dir_ / "follower.cir").string() + "'");
  const auto theirs = measures(ng.output);
  ASSERT_TRUE(theirs.count("t2") && theirs.count("ve")) << ng.output;
  EXPECT_NEAR(refit.at("t2"), theirs.at("t2"), 5e-3 * theirs.at("t2"));
  EXPECT_NEAR(refit.at("ve"), theirs.at("ve"), 5e-3 * theirs.at("ve"));
  EXPECT_GT(std::abs(kept.at("t2") / theirs.at("t2") - 1), 0.05);
}

// A junction charge off SPICE's (circuit/src/junction_charge_check.hpp), on
// examples/spice_junction_ring.cir: a 5 V step through 100 µH into a reverse-biased junction
// (CJO 1 nF, VJ 0.7 V, M 0.5) rings down to −10 V, twice the sources' swing its two-slope charge
// was fitted over (519 pF over −5…0 V). Nothing else conducts, so the charge is all that
// matters: its error (up to 30 % of SPICE's charge) fires the check, and the run is repeated with
// the charge in segments over −12.5…0 V (it then rings to −12.4 V). Against ngspice on the same
// netlist: two ring periods 2.441 µs and the peak 12.57 V; with the two slopes 2.86 µs (+17 %)
// and 9.97 V (−21 %), refitted within 0.5 % and 2 %.
TEST_F(PwlRefit, AJunctionChargeOffSpicesIsRefittedInSegments) {
  const fs::path p = std::string(NSSPICE_EXAMPLES_DIR) + "/spice_junction_ring.cir";
  const CliRun r = nsspice("run '" + p.string() + "' -o out.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(says(r,
                   "nsspice: note: diode 'd1' (model 'dv'): its PWL junction charge (519 pF "
                   "below 0 V) was up to 30 % off SPICE's over the voltages the run met (down "
                   "to -9.97 V)"));
  EXPECT_TRUE(says(r,
                   "its charge is fitted again in segments over -12.5…0 V and the simulation "
                   "repeated (2 of at most 3)"));
  EXPECT_TRUE(says(r,
                   "d1's junction charge refitted over the voltages an earlier run met: as a "
                   "PWL charge: "));
  EXPECT_EQ(r.output.find("warning: d1"), std::string::npos) << "the refitted run passes";
  const auto ours = measures(r.output);
  ASSERT_TRUE(ours.count("period") && ours.count("vpk")) << r.output;
  // Two periods of the linear 519 pF ring: 4π·√(100 µH · 519 pF) = 2.86 µs; the refit is not it.
  EXPECT_LT(ours.at("period"), 2.6e-6);
  if (!have_ngspice()) GTEST_SKIP() << "ngspice not installed: the comparison with it skipped";
  const CliRun ng = run_shell("ngspice -b '" + p.string() + "'");
  const auto theirs = measures(ng.output);
  ASSERT_TRUE(theirs.count("period") && theirs.count("vpk")) << ng.output;
  EXPECT_NEAR(ours.at("period"), theirs.at("period"), 5e-3 * theirs.at("period"));
  EXPECT_NEAR(ours.at("vpk"), theirs.at("vpk"), 2e-2 * theirs.at("vpk"));
}

// A VDMOS's gate-drain charge off SPICE's (junction_charge_check.hpp): 12 V through 10 µH, turned
// off after 1 µs at 2.4 A. The drain rings up to ngspice's 621 V against the MOSFET's CGD alone
// (no body capacitance), 28 times the sources' 22 V swing the two-slope CGD was fitted over
// (90.9 pF over −22…0 V, where ngspice's C(v_gd) falls to CGDMIN = 20 pF): with that chord
// continued the peak came out at 336 V (−46 %) and the time above 50 V at 96 ns against 49 ns,
// exit 0 without a word. Now the check fires and the run is repeated with CGD in segments over the
// voltages met.
// The ring of the two tests below: `load` goes across the supply.
std::string vdmos_ring(const std::string& load) {
  return "VDMOS turning off an inductor: the drain rings far above the supply\n"
         "Vdd vdd 0 12\n" +
         load +
         "Vg g 0 PULSE(0 10 0 10n 10n 1u 20u)\n"
         "L1 vdd d 10u\n"
         "Rp d vdd 2k\n"
         "M1 d g 0 MV\n"
         ".model MV VDMOS(Vto=3 Kp=5 Cgdmax=1n Cgdmin=20p A=1 Cgs=500p Rg=5)\n"
         ".tran 1n 4u\n"
         ".meas tran vpk MAX v(d)\n"
         ".meas tran tr WHEN v(d)=50 RISE=1\n"
         ".meas tran tf WHEN v(d)=50 FALL=1\n"
         ".end\n";
}

TEST_F(PwlRefit, AVdmosGateDrainChargeOffSpicesIsRefitted) {
  const fs::path p = write("ring.cir", vdmos_ring(""));
  const CliRun r = nsspice("run '" + p.string() + "' -o out.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(says(r,
                   "nsspice: note: MOSFET 'm1' (model 'mv'): its PWL gate-drain charge CGD of "
                   "v_gd (90.9 pF below 0 V) was up to "));
  EXPECT_TRUE(says(r, "its charge is fitted again in segments over "));
  EXPECT_TRUE(says(r, "m1's CGD refitted over the voltages an earlier run met: as a PWL charge: "));
  EXPECT_EQ(r.output.find("warning: m1"), std::string::npos) << "the refitted run passes";
  const auto ours = measures(r.output);
  ASSERT_TRUE(ours.count("vpk") && ours.count("tr") && ours.count("tf")) << r.output;
  // ngspice 39 on the same netlist: 620.8 V, 49.35 ns above 50 V (622.2 V, 49.27 ns at RELTOL
  // 1e-5).
  EXPECT_NEAR(ours.at("vpk"), 622.2, 0.03 * 622.2);
  EXPECT_NEAR(ours.at("tf") - ours.at("tr"), 49.27e-9, 0.05 * 49.27e-9);
  if (!have_ngspice()) GTEST_SKIP() << "ngspice not installed: the comparison with it skipped";
  const CliRun ng = run_shell("ngspice -b '" + p.string() + "'");
  const auto theirs = measures(ng.output);
  ASSERT_TRUE(theirs.count("vpk")) << ng.output;
  EXPECT_NEAR(ours.at("vpk"), theirs.at("vpk"), 0.03 * theirs.at("vpk"));
}

// The same ring with a 10 Ω load across the supply: the CGD's error current (12.8 mA on average)
// is now below 2 % of the source's 1.29 A, but weighed by the hundreds of volts it is met at it is
// 1.95 W against the 15.6 W the source delivers (junction_charge_check.hpp): the check still
// fires, says why, and the refitted peak is ngspice's (the load across the ideal source does not
// touch the ring). With a 1 Ω load (144 W) it is quiet and the peak 336 V: a limit stated in
// docs/devices.md.
TEST_F(PwlRefit, AChargeMetAtHighVoltageIsRefittedWhateverItsAverageCurrent) {
  const fs::path p = write("ring.cir", vdmos_ring("Rload vdd 0 10\n"));
  const CliRun r = nsspice("run '" + p.string() + "' -o out.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(says(r,
                   "an error current of 12.8 mA on average against the 1.29 A the circuit's "
                   "busiest source or inductor conducted, but weighed by the voltage it was met "
                   "at 1.95 W against the 15.6 W the voltage sources delivered"));
  EXPECT_TRUE(says(r, "its charge is fitted again in segments over "));
  const auto ours = measures(r.output);
  ASSERT_TRUE(ours.count("vpk")) << r.output;
  EXPECT_NEAR(ours.at("vpk"), 622.2, 0.03 * 622.2);
  if (!have_ngspice()) GTEST_SKIP() << "ngspice not installed: the comparison with it skipped";
  const auto theirs = measures(run_shell("ngspice -b '" + p.string() + "'").output);
  ASSERT_TRUE(theirs.count("vpk"));
  EXPECT_NEAR(ours.at("vpk"), theirs.at("vpk"), 0.03 * theirs.at("vpk"));
}

// Each run of a sweep refits on its own: the note is among the sweep's warnings with its run,
// and the run at RB = 10 kΩ measures what the single run above does.
TEST_F(PwlRefit, EachSweepRunRefitsOnItsOwn) {
  std::string text = kFollower;
  text.replace(text.find("RB in b 10k"), 11,
               "RB in b {rb}\n.param rb=10k\n.step param rb list 10k 20k");
  CliRun single;
  const auto alone = run("follower.cir", "", single);
  const fs::path p = write("swept.cir", text + ".end\n");
  const CliRun r = nsspice("run '" + p.string() + "' -o out.csv --no-progress");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(says(r,
                   "(q1's B-E current reached 38.9 mA, above imax 3 mA): it is fitted again "
                   "over 3 nA–77.8 mA and the simulation repeated (2 of at most 3) (run 1)"));
  EXPECT_TRUE(says(r,
                   "(q1's B-E current reached 20.6 mA, above imax 3 mA): it is fitted again "
                   "over 3 nA–41.2 mA and the simulation repeated (2 of at most 3) (run 2)"));
  EXPECT_EQ(r.output.find("run again"), std::string::npos) << r.output;
  // The sweep's statistics line of t2: runs, mean, deviation, min, max; the later start of the
  // slower run (RB = 20 kΩ) is the max, the refitted RB = 10 kΩ run the min.
  std::istringstream in(r.output);
  double min = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name;
    double runs = 0, mean = 0, dev = 0;
    if (fields >> name >> runs >> mean >> dev >> min && name == "t2") break;
    min = 0;
  }
  EXPECT_NEAR(min, alone.at("t2"), 1e-6 * alone.at("t2")) << r.output;
}

// compare refits its nsspice side the same way, so that it compares the answer nsspice stands
// by: the measurement rows then differ from ngspice's by the PWL tolerance's effect only.
TEST_F(PwlRefit, CompareRefitsItsSide) {
  if (!have_ngspice()) GTEST_SKIP() << "ngspice not installed";
  const fs::path p = write("follower.cir", kFollower + ".end\n");
  const CliRun r = nsspice("compare '" + p.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(says(r, "it is fitted again over 3 nA–77.8 mA and the simulation repeated"));
  // "  t2    73.2 µs    73.1 µs    -76.5 ns   (when ...)": nsspice, ngspice, difference.
  EXPECT_TRUE(says(r, "  t2                        73.2 µs        73.1 µs"));
}

}  // namespace
}  // namespace nsspice::testing
