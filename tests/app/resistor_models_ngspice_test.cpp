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
// parameter and temperature rule (tests/circuit/analysis_test.cpp has their closed forms).
const char* const kDeck =
    "resistor models against ngspice\n.temp 60\n.options tnom=20\nV1 1 0 1\n"
    "Va 1 a 0\nRa a 0 ma\nVb 1 b 0\nRb b 0 ma tc1=0.002\nVc 1 c 0\nRc c 0 mres\n"
    "Vd 1 d 0\nRd d 0 ma dtemp=10\nVe 1 e 0\nRe e 0 ma temp=100\n"
    "Vf 1 f 0\nRf f 0 msh l=20u w=2u m=2\nVg 1 g 0\nRg g 0 2k mt\n"
    "Vh 1 h 0\nRh h 0 2k mt tc1=0.001\nVi 1 i 0\nRi i 0 2k mt tce=0.5\n"
    "Vj 1 j 0\nRj j 0 mshort l=20u w=3u\nVk 1 k 0\nRk k 0 msh\nVl 1 l 0\nRl l 0 mboth\n"
    "Vm 1 m 0\nRm m 0 ma r=2k scale=1.5\nVn 1 n 0\nRn n 0 1.5k ma\n"
    "Vo 1 o 0\nRo o 0 malias l=30u w=4u\nVp 1 p 0\nRp p 0 {1k + 10*temper}\n"
    "Vq 1 q 0\nRq q 0 mtemper\nVr 1 r 0\nRr r 0 1k tc1=0.01 tc2=-1e-5\n"
    "Vs 1 s 0\nRs s 0 {temper >= 25 ? 1k : 2k}\n"
    ".model ma R(r=3k tc1=0.01 tc2=1e-4 tnom=27)\n.model mres RES(r=3k tc1=0.01)\n"
    ".model msh R(rsh=100 tc2=1e-4)\n.model mt R(tce=0.3 tc1=0.01)\n"
    ".model mshort R(rsh=100 short=1u narrow=0.5u)\n.model mboth R(rsh=50 r=5k defw=2u l=8u)\n"
    ".model malias R(rsh=200 dw=0.25u dlr=2u tc1r=0.003 tc2r=2e-6)\n"
    ".model mtemper R(r={2k + 5*temper})\n";

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
  const fs::path ng = write("ng.cir", std::string(kDeck) + ".op\n.control\nset numdgt=15\nop\n" +
                                          print + "\n.endc\n.end\n");
  const CliRun peer = run_shell("cd '" + dir_.string() + "' && ngspice -b '" + ng.string() + "'");
  ASSERT_EQ(peer.exit_code, 0) << peer.output;
  std::map<std::string, double> theirs;
  static const std::regex line(R"((i\(v[a-z]\)) = ([-+0-9.eE]+))");
  for (std::sregex_iterator m(peer.output.begin(), peer.output.end(), line), end; m != end; ++m)
    theirs[(*m)[1]] = std::stod((*m)[2]);
  ASSERT_EQ(theirs.size(), std::string(kProbes).size()) << peer.output;

  const fs::path ns = write("ns.cir", std::string(kDeck) + ".op\n.end\n");
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
