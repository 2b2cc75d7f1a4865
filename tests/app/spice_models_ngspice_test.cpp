// SPICE diode models through the PWL conversion against ngspice run on the same netlist, with
// the same models (examples/spice_*.cir, each with its .meas cards): key figures within 2 % at
// the default tolerance, within 0.5 % at pwltol = 2 mV, and closer at 2 mV than at 50 mV
// (the four diode circuits, a boost with a power Schottky, a buck with a level-1 NMOS).
// Skipped (with a message) where ngspice is not installed. Also `nsspice models` and --ideal.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

// "name = value" lines of ngspice's .meas output or nsspice's measurement report.
std::map<std::string, double> measures(const std::string& text) {
  std::map<std::string, double> out;
  static const std::regex line(R"(^\s*(v[a-z]+)\s*=\s*([-+0-9.eE]+))");
  std::istringstream in(text);
  for (std::string s; std::getline(in, s);) {
    std::smatch m;
    if (std::regex_search(s, m, line)) out[m[1]] = std::stod(m[2]);
  }
  return out;
}

class SpiceModelsVsNgspice : public AppTest {
 protected:
  // The example with `.options pwltol=tol` (0: the default) inserted before its .tran card.
  fs::path variant(const std::string& example, double tol) {
    std::string text = read_file(fs::path(NSSPICE_EXAMPLES_DIR) / example);
    if (tol > 0) text.insert(text.find("\n.tran") + 1, fmt_tol(tol));
    return write(example, text);
  }
  static std::string fmt_tol(double tol) {
    std::ostringstream s;
    s << ".options pwltol=" << tol << "\n";
    return s.str();
  }
  std::map<std::string, double> nsspice_measures(const std::string& example, double tol) {
    const fs::path p = variant(example, tol);
    const CliRun r = nsspice("run '" + p.string() + "' -o out.csv --no-progress");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return measures(r.output);
  }
  std::map<std::string, double> ngspice_measures(const std::string& example) {
    const CliRun r =
        run_shell("ngspice -b '" + (fs::path(NSSPICE_EXAMPLES_DIR) / example).string() + "'");
    return measures(r.output);
  }

  void check(const std::string& example, size_t figures) {
    if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed: no comparison";
    const auto ng = ngspice_measures(example);
    ASSERT_EQ(ng.size(), figures) << "ngspice's .meas results";
    const auto coarse = nsspice_measures(example, 0.05), dflt = nsspice_measures(example, 0),
               fine = nsspice_measures(example, 0.002);
    for (const auto& [name, ref] : ng) {
      ASSERT_TRUE(dflt.contains(name) && coarse.contains(name) && fine.contains(name)) << name;
      const auto rel = [&](double v) { return std::abs(v - ref) / std::abs(ref); };
      EXPECT_LT(rel(dflt.at(name)), 0.02)
          << name << ": ngspice " << ref << ", nsspice " << dflt.at(name);
      EXPECT_LT(rel(fine.at(name)), 0.005)
          << name << ": ngspice " << ref << ", nsspice " << fine.at(name) << " at pwltol = 2 mV";
      EXPECT_LT(rel(fine.at(name)), rel(coarse.at(name)))
          << name << ": pwltol 2 mV " << fine.at(name) << " vs 50 mV " << coarse.at(name)
          << ", ngspice " << ref;
    }
  }
};

TEST_F(SpiceModelsVsNgspice, Rectifier1N4007) { check("spice_rectifier_1n4007.cir", 2); }
TEST_F(SpiceModelsVsNgspice, Clamp1N4148) { check("spice_clamp_1n4148.cir", 2); }
TEST_F(SpiceModelsVsNgspice, ZenerClipper) { check("spice_zener_clipper.cir", 2); }
TEST_F(SpiceModelsVsNgspice, SchottkyChargePump) { check("spice_charge_pump_schottky.cir", 2); }

TEST_F(SpiceModelsVsNgspice, MosfetBuckLevel1) { check("spice_mosfet_buck.cir", 2); }
TEST_F(SpiceModelsVsNgspice, BoostPowerSchottky) { check("spice_boost_schottky.cir", 2); }

TEST_F(SpiceModelsVsNgspice, ModelsCommandListsEachConversion) {
  const fs::path p = variant("spice_zener_clipper.cir", 0);
  const CliRun r = nsspice("models '" + p.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("dz4v7: 6 segments over 42.5 nA–42.5 mA, max error 10 mV (drop "
                          "0.458–0.826 V); breakdown 4 segments"),
            std::string::npos)
      << r.output;
  const CliRun ideal = nsspice("models '" + p.string() + "' --ideal");
  EXPECT_NE(ideal.output.find("dz4v7: idealized (.options idealize / --ideal)"), std::string::npos)
      << ideal.output;
  const CliRun plot = nsspice("models '" + p.string() + "' --plot z.png");
  EXPECT_TRUE(plot.exit_code == 0 ? fs::exists(dir_ / "z.png")
                                  : plot.output.find("gnuplot") != std::string::npos)
      << plot.output;
  const CliRun ideal_plot = nsspice("models '" + p.string() + "' --ideal --plot zi.png");
  EXPECT_TRUE(ideal_plot.exit_code == 0 ? fs::exists(dir_ / "zi.png")
                                        : ideal_plot.output.find("gnuplot") != std::string::npos)
      << ideal_plot.output;
  const CliRun bad = nsspice("models '" + p.string() + "' --plot z.txt");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
}

TEST_F(SpiceModelsVsNgspice, RunIdealFlagUsesTheIdealDiode) {
  const fs::path p = variant("spice_zener_clipper.cir", 0);
  const CliRun r = nsspice("run '" + p.string() + "' -o out.csv --no-progress --ideal");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("dz4v7: idealized"), std::string::npos) << r.output;
  const auto m = measures(r.output);
  ASSERT_TRUE(m.contains("vclip") && m.contains("vfwd")) << r.output;
  EXPECT_NEAR(m.at("vclip"), 4.7, 1e-9) << "the ideal Zener clips at BV";
  EXPECT_NEAR(m.at("vfwd"), 0.0, 1e-9) << "and drops nothing forward";
}

}  // namespace
}  // namespace nsspice::testing
