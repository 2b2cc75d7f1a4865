// Resistor models (ngspice's semiconductor resistor, PSpice's RES) and `temper` in parameter
// expressions, against ngspice run on the same deck in the same test: every branch current of
// the .op to 1e-9 relative (they agree to round-off). Skipped where ngspice is not installed.
// And `.step temp` reaching `temper` in expressions (ngspice has no .step: closed forms).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

// One resistor per branch from node 1 (1 V) through a 0 V probe: each instance form, model
// parameter and temperature rule (tests/data/resistor_models.cir; tests/circuit/analysis_test.cpp
// has their closed forms).
const std::string kDeck = read_file(fs::path(NSSPICE_TEST_DATA_DIR) / "resistor_models.cir");

const char* const kProbes = "abcdefghijklmnopqrs";

// The first data row of a CSV by column name.
std::map<std::string, double> csv_row(const std::string& text) {
  std::istringstream in(text);
  std::string header, row, cell;
  std::getline(in, header);
  std::getline(in, row);
  std::vector<std::string> names;
  std::istringstream h(header), r(row);
  while (std::getline(h, cell, ',')) names.push_back(cell);
  std::map<std::string, double> out;
  for (std::size_t k = 0; std::getline(r, cell, ',') && k < names.size(); ++k)
    out[names[k]] = std::stod(cell);
  return out;
}

class ResistorModelsVsNgspice : public AppTest {};

TEST_F(ResistorModelsVsNgspice, EveryBranchCurrentAgrees) {
  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not installed: no comparison";
  std::string print = "print";
  for (const char* c = kProbes; *c != '\0'; ++c) print += std::string(" i(v") + *c + ")";
  const fs::path ng =
      write("ng.cir", kDeck + ".op\n.control\nset numdgt=15\nop\n" + print + "\n.endc\n.end\n");
  const CliRun peer = run_shell("cd '" + dir_.string() + "' && ngspice -b '" + ng.string() + "'");
  ASSERT_EQ(peer.exit_code, 0) << peer.output;
  std::map<std::string, double> theirs;
  static const std::regex line(R"((i\(v[a-z]\)) = ([-+0-9.eE]+))");
  for (std::sregex_iterator m(peer.output.begin(), peer.output.end(), line), end; m != end; ++m)
    theirs[(*m)[1]] = std::stod((*m)[2]);
  ASSERT_EQ(theirs.size(), std::string(kProbes).size()) << peer.output;

  const fs::path ns = write("ns.cir", kDeck + ".op\n.end\n");
  const CliRun r = nsspice("run '" + ns.string() + "' -o out.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto ours = csv_row(read_file(dir_ / "out.csv"));
  for (const auto& [name, ref] : theirs) {
    ASSERT_TRUE(ours.contains(name)) << name;
    EXPECT_NEAR(ours.at(name), ref, 1e-9 * std::abs(ref)) << name;
  }
}

// A .step temp run's temperature is that of `temper` in expressions too, not only of the
// devices: 1k + 10·T, and 2k·(1 + 0.01·(T − 27)) of a model's TC1, at −40, 27 and 85 °C.
TEST_F(ResistorModelsVsNgspice, StepTempReachesTemperInExpressions) {
  const fs::path p = write("st.cir",
                           "step temp\nV1 1 0 1\nVa 1 a 0\nRa a 0 {1k + 10*temper}\nVb 1 b 0\n"
                           "Rb b 0 2k rm\n.model rm R(tc1=0.01)\n.step temp list -40 27 85\n"
                           ".tran 1u 2u\n.meas tran ia find i(va) at=1u\n"
                           ".meas tran ib find i(vb) at=1u\n.end\n");
  const CliRun r = nsspice("run '" + p.string() + "' -o st.csv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream in(read_file(dir_ / "st.meas.csv"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "run,temp,status,ia,ib");
  for (const double t : {-40.0, 27.0, 85.0}) {
    ASSERT_TRUE(std::getline(in, line)) << t;
    std::istringstream row(line);
    std::vector<std::string> cells;
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    ASSERT_EQ(cells.size(), 5u) << line;
    EXPECT_DOUBLE_EQ(std::stod(cells[1]), t);
    EXPECT_NEAR(std::stod(cells[3]), 1 / (1e3 + 10 * t), 1e-12 / (1e3 + 10 * t)) << line;
    const double rb = 2e3 * (1 + 0.01 * (t - 27));
    EXPECT_NEAR(std::stod(cells[4]), 1 / rb, 1e-12 / rb) << line;
  }
}

}  // namespace
}  // namespace nsspice::testing
