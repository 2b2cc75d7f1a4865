// A vendor-style library `.include`d by a netlist that uses two of its cards (docs/netlist.md
// section 6: only the .model cards that elements use are read), through the command line:
//   * `nsspice models` lists the used models' conversions and names the others (the first 20
//     and their number); `--all` converts every card, and reports a bad unused card's error;
//   * `nsspice run` succeeds although unused cards are bad (IS < 0, LEVEL=49, type NJF), and its
//     report's "device models" lists the used ones and counts the others;
//   * a .step sweep and a Monte Carlo run (DEV on a used library card) over the same netlist
//     run every run, give different measurements where the values differ, and leave the same
//     cards out (the DEV copies replace their card: it is not counted as unused).
#include <fmt/format.h>

#include <string>

#include "app_test_helpers.hpp"
#include "sweep_helpers.hpp"

namespace nsspice::testing {
namespace {

class LazyModelsCli : public SweepAppTest {
 protected:
  void SetUp() override {
    SweepAppTest::SetUp();
    std::string lib = "* vendor library\n";
    for (int k = 0; k < 30; ++k)
      lib += fmt::format(".model dv{:02d} D(IS={}n N={} RS=0.{} CJO=10p)\n", k, 1 + k % 7,
                         1 + 0.03 * k, 1 + k % 9);
    lib += ".model dbad D(IS=-1e-14)\n.model nbsim NMOS(LEVEL=49 VTH0=0.4)\n";
    lib += ".model jf NJF(VTO=-2)\n.model nsw NMOS(LEVEL=1 VTO=1.5 KP=0.2)\n";
    lib += ".model dtol D(IS=4n N=1.8 RS=0.1 DEV 20%)\n";
    write("vendor.lib", lib);
  }
  // The rectifier and a MOSFET load switch, with the library's `diode` and nsw.
  std::string rectifier(const std::string& diode, const std::string& extra = "") {
    return "rectifier\n.include vendor.lib\n.param rl=1k\nV1 in 0 SIN(0 10 1k)\n"
           "D1 in out " +
           diode +
           "\nC1 out 0 10u\nR1 out 0 {rl}\nVg g 0 PULSE(0 5 0 1u 1u 0.5m 1m)\nRd out dr 200\n"
           "M1 dr g 0 0 nsw W=100u L=2u\n.tran 1u 3m\n.meas tran vpk max v(out)\n" +
           extra + ".end\n";
  }
};

TEST_F(LazyModelsCli, ModelsListsTheUsedAndNamesTheOthers) {
  write("r.cir", rectifier("dv07"));
  const CliRun r = nsspice("models r.cir");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("  dv07: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  nsw: level-1 NMOS square law"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("  dv08: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  33 .model cards not used by any element: not converted, their "
                          "parameters not checked (nsspice models --all converts every card)\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("not used by any element: dbad, dtol, dv00, dv01, dv02, dv03, dv04, "
                          "dv05, dv06, dv08, dv09, dv10, dv11, dv12, dv13, dv14, dv15, dv16, "
                          "dv17, dv18, ... (33 in all)\n"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("error:"), std::string::npos) << r.output;
  // --all reads every card: the bad ones are the errors they are.
  const CliRun all = nsspice("models r.cir --all");
  EXPECT_EQ(all.exit_code, 1) << all.output;
  EXPECT_NE(all.output.find("vendor.lib:32:18: error: model parameter 'IS' must be a number > 0"),
            std::string::npos)
      << all.output;
  EXPECT_NE(all.output.find("error: unsupported model type 'NJF'"), std::string::npos)
      << all.output;
  // Without the bad cards, --all converts and lists every one.
  std::string good = read_file(dir_ / "vendor.lib");
  for (const char* bad : {".model dbad D(IS=-1e-14)\n", ".model nbsim NMOS(LEVEL=49 VTH0=0.4)\n",
                          ".model jf NJF(VTO=-2)\n"})
    good.erase(good.find(bad), std::string(bad).size());
  write("vendor.lib", good);
  const CliRun every = nsspice("models r.cir --all");
  ASSERT_EQ(every.exit_code, 0) << every.output;
  EXPECT_NE(every.output.find("  dv08: "), std::string::npos) << every.output;
  EXPECT_NE(every.output.find("  dv29: "), std::string::npos) << every.output;
  EXPECT_EQ(every.output.find("not used by any element"), std::string::npos) << every.output;
}

TEST_F(LazyModelsCli, RunReportListsTheUsedModelsAndCountsTheOthers) {
  write("r.cir", rectifier("dv07"));
  const CliRun r = nsspice("run r.cir -o r.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  const auto at = r.output.find("device models\n  dv07: ");
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  33 .model cards not used by any element", at), std::string::npos)
      << r.output;
  EXPECT_GT(measures(r.output).at("vpk"), 8.0) << r.output;
  // A bad card, used: the error at the card, with a note at the diode, and nothing simulated.
  write("bad.cir", rectifier("dbad"));
  const CliRun bad = nsspice("run bad.cir -o bad.csv");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("vendor.lib:32:18: error: model parameter 'IS' must be a number > 0, "
                            "got '-1e-14'"),
            std::string::npos)
      << bad.output;
  EXPECT_NE(bad.output.find("bad.cir:5:1: note: model 'dbad' is first used here, by diode 'd1'"),
            std::string::npos)
      << bad.output;
  EXPECT_FALSE(fs::exists(dir_ / "bad.csv"));
}

TEST_F(LazyModelsCli, SweepsAndMonteCarloRunOverTheLibrary) {
  write("s.cir", rectifier("dv07", ".step param rl list 200 1k 5k\n"));
  const CliRun s = nsspice("run s.cir -o s.csv --jobs 2");
  ASSERT_EQ(s.exit_code, 0) << s.output;
  const std::vector<double> vpk = column("s.meas.csv", "vpk");
  ASSERT_EQ(vpk.size(), 3u) << s.output;
  EXPECT_LT(vpk[0], vpk[1]) << "a lighter load charges C1 higher";
  EXPECT_LT(vpk[1], vpk[2]);
  EXPECT_NE(s.output.find("  33 .model cards not used by any element"), std::string::npos)
      << s.output;
  // DEV 20 % on IS of the used card dtol: each run its own copy dtol@d1; dtol is not "unused".
  write("mc.cir", rectifier("dtol"));
  const CliRun mc = nsspice("run mc.cir -o mc.csv --runs 4 --jobs 2");
  ASSERT_EQ(mc.exit_code, 0) << mc.output;
  const std::vector<double> v = column("mc.meas.csv", "vpk");
  ASSERT_EQ(v.size(), 4u) << mc.output;
  EXPECT_NE(v[0], v[1]) << "IS differs between runs";
  EXPECT_NE(mc.output.find("  dtol@d1: "), std::string::npos) << mc.output;
  EXPECT_NE(mc.output.find("  33 .model cards not used by any element"), std::string::npos)
      << mc.output;
}

}  // namespace
}  // namespace nsspice::testing
