// The LCP method of pivoting steps is the user's choice (.options lcpsolver, --lcp-solver), and
// the step's LCP can be dumped (--dump-mlcp) and replayed like tools/lcp_replay does.
//
// The DiodeBridge at θ = 1 with the block flip off (every mode change found by the LCP solver):
// Lemke, Murty and enumeration end on the same complementary basis, so the waveforms agree to
// round-off.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "helpers.hpp"
#include "solvers/lcp/lcp_dump.hpp"
#include "solvers/lcp/mode_mlcp.hpp"
#include "solvers/lcp/policy.hpp"

namespace nsspice::testing {
namespace {

namespace fs = std::filesystem;
using solvers::LcpSolverKind;

// tests/regression/diode_bridge_test.cpp's netlist at θ = 1.
const char* kBridge =
    "Siconos DiodeBridge: LC tank into a 1k load through a 4-diode bridge\n"
    "C1 n1 0 1u IC=10\nL1 n1 0 10m IC=0\n"
    "DF1 n1 nl DI\nDR1 0 nl DI\nDF2 nr 0 DI\nDR2 nr n1 DI\n"
    "R1 nl nr 1k\n"
    ".model DI D\n.options theta=1\n.tran 1u 5m UIC\n";

Waveforms bridge(LcpSolverKind kind, bool block_flip) {
  circuit::TransientOptions opt;
  opt.lcp_solver = kind;
  opt.block_flip = block_flip;
  return simulate_fixed(std::string(kBridge) + ".end\n", opt);
}

TEST(LcpSolverChoice, DiodeBridgeSameWaveformWithLemkeMurtyEnum) {
  const Waveforms ref = bridge(LcpSolverKind::kAuto, true);
  ASSERT_TRUE(ref.result.ok()) << ref.result.summary.message;
  for (LcpSolverKind kind :
       {LcpSolverKind::kLemke, LcpSolverKind::kMurty, LcpSolverKind::kEnumeration}) {
    const Waveforms r = bridge(kind, false);
    const std::string name(solvers::to_string(kind));
    ASSERT_TRUE(r.result.ok()) << name << ": " << r.result.summary.message;
    const auto& s = r.result.stats;
    EXPECT_GT(s.lcp_methods[static_cast<size_t>(kind)], 0) << name << " answered no step";
    EXPECT_EQ(s.lcp_methods[static_cast<size_t>(kind)], s.lemke_calls) << name;
    ASSERT_EQ(r.rows.size(), ref.rows.size()) << name;
    double err = 0;
    for (size_t k = 0; k < r.rows.size(); ++k)
      for (size_t j = 0; j < r.rows[k].size(); ++j)
        err = std::max(err, std::abs(r.rows[k][j] - ref.rows[k][j]));
    EXPECT_LT(err, 1e-12) << name;
  }
}

TEST(LcpSolverChoice, OptionsCardSelectsTheMethod) {
  const Waveforms r = simulate_fixed(std::string(kBridge) + ".options lcpsolver=Murty\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  EXPECT_EQ(r.circuit.lcp_solver, LcpSolverKind::kMurty);
}

int run_cli(const fs::path& dir, const std::string& args, std::string& output) {
  const std::string cmd = "cd '" + dir.string() + "' && '" + NSSPICE_BINARY + "' " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  while (size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) output.append(buf.data(), n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(LcpSolverChoice, DumpOfAStepReplaysToSuccess) {
  const fs::path dir =
      fs::temp_directory_path() / ("nsspice_dump_mlcp_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "bridge.cir") << kBridge << ".end\n";
  std::string out;
  // Step 1 leaves the all-off start of the UIC bridge: a mode change.
  fs::create_directories(dir / "out");
  ASSERT_EQ(run_cli(dir, "run bridge.cir -o out/b.csv --dump-mlcp 1 -q", out), 0) << out;
  std::string error;
  const auto dump = solvers::read_lcp_dump((dir / "out" / "b.step1.lcp").string(), &error);
  ASSERT_TRUE(dump) << error;
  EXPECT_EQ(dump->value("step"), "1");
  EXPECT_EQ(dump->value("theta"), "1");
  EXPECT_EQ(dump->value("netlist"), "bridge.cir");
  EXPECT_FALSE(dump->value("mode").empty());
  EXPECT_EQ(dump->q.size(), 4);
  // lcp_replay's code path: solve_lcp with the auto policy, and each forced method.
  for (LcpSolverKind kind : {LcpSolverKind::kAuto, LcpSolverKind::kLemke, LcpSolverKind::kMurty,
                             LcpSolverKind::kEnumeration}) {
    solvers::LcpPolicy policy;
    policy.force = kind;
    const solvers::PolicyResult r = solvers::solve_lcp(dump->M, dump->q, policy);
    EXPECT_EQ(r.status, solvers::LcpStatus::kSolved) << solvers::to_string(kind) << r.message;
  }
  fs::remove_all(dir);
}

TEST(LcpSolverChoice, UnknownNamesAreErrorsWithASuggestion) {
  const fs::path dir =
      fs::temp_directory_path() / ("nsspice_lcp_solver_name_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "bad.cir") << kBridge << ".options lcpsolver=lemk\n.end\n";
  std::ofstream(dir / "good.cir") << kBridge << ".end\n";
  std::string out;
  EXPECT_EQ(run_cli(dir, "run bad.cir -o b.csv -q", out), 1) << out;
  EXPECT_NE(out.find("unknown LCP solver 'lemk' in LCPSOLVER (did you mean 'lemke'?)"),
            std::string::npos)
      << out;
  out.clear();
  EXPECT_EQ(run_cli(dir, "run good.cir -o g.csv -q --lcp-solver murti", out), 1) << out;
  EXPECT_NE(out.find("did you mean 'murty'"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run_cli(dir, "run good.cir -o g.csv --lcp-solver enum", out), 0) << out;
  fs::remove_all(dir);
}

// bench/clamp_network.py's netlist of `n` sections (every node clamped by an ideal diode, all
// clamps turning on within a few steps after 8 µs, C of 10–28 nF so that some steps need
// pivoting), 30 steps of 1 µs.
std::string clamps(int n, const std::string& extra = "") {
  std::string s = "clamp network\nV1 in 0 SIN(-0.05 1 1k)\n";
  for (int k = 1; k <= n; ++k) {
    const std::string i = std::to_string(k);
    s += "RF" + i + " in n" + i + " 1k\nC" + i + " n" + i + " 0 " +
         std::to_string(10 + 20 * (k % 7) / 7) + "n\nD" + i + " n" + i + " 0 DI\n";
    if (k < n) s += "RC" + i + " n" + i + " n" + std::to_string(k + 1) + " 100\n";
  }
  return s + ".model DI D\n.tran 1u 30u\n.options stepping=fixed\n" + extra + ".end\n";
}

// A named method solves the dense transform of all pairs: refused above kNamedMethodMaxPairs
// (option named, exit 1, no file; the library run stops with the reason), and --dump-mlcp is
// refused where the auto policy never forms a step's LCP (above kDenseTransformMax pairs) but
// writes the dump of a named method up to its limit.
TEST(LcpSolverChoice, NamedMethodsAndDumpsRespectTheDenseLimits) {
  const fs::path dir =
      fs::temp_directory_path() / ("nsspice_lcp_dense_limit_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const int big = solvers::kNamedMethodMaxPairs + 1, mid = solvers::kDenseTransformMax + 44;
  std::ofstream(dir / "big.cir") << clamps(big);
  std::ofstream(dir / "big_pgs.cir") << clamps(big, ".options lcpsolver=pgs\n");
  std::ofstream(dir / "mid.cir") << clamps(mid);
  std::string out;
  EXPECT_EQ(run_cli(dir, "run big.cir -o b.csv -q --lcp-solver lemke", out), 1) << out;
  EXPECT_NE(out.find("--lcp-solver lemke: a named LCP method (lemke) solves the dense transform "
                     "of all 1001 complementarity pairs"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("allowed up to 1000 pairs"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "b.csv"));
  out.clear();
  EXPECT_EQ(run_cli(dir, "run big_pgs.cir -o b.csv -q", out), 1) << out;
  EXPECT_NE(out.find(".options lcpsolver=pgs: a named LCP method (pgs)"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "b.csv"));
  out.clear();
  EXPECT_EQ(run_cli(dir, "run mid.cir -o m.csv -q --dump-mlcp 12", out), 1) << out;
  EXPECT_NE(out.find("--dump-mlcp: the circuit has 300 complementarity pairs; above 256 the auto "
                     "policy pivots by blocks"),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir / "m.csv"));
  EXPECT_FALSE(fs::exists(dir / "m.step12.lcp"));
  out.clear();
  EXPECT_EQ(run_cli(dir, "run mid.cir -o m.csv -q --dump-mlcp 12 --lcp-solver murty", out), 0)
      << out;
  std::string error;
  const auto dump = solvers::read_lcp_dump((dir / "m.step12.lcp").string(), &error);
  ASSERT_TRUE(dump) << error;
  EXPECT_EQ(dump->q.size(), mid);
  fs::remove_all(dir);
  // The library (sweeps, Python) stops the run with the same reason.
  circuit::TransientOptions opt;
  opt.lcp_solver = LcpSolverKind::kLemke;
  opt.block_flip = false;  // the first mode change pivots (a flip may settle it otherwise)
  const Waveforms lib = simulate_fixed(clamps(big), opt);
  EXPECT_FALSE(lib.result.ok());
  EXPECT_NE(lib.result.summary.message.find("allowed up to 1000 pairs"), std::string::npos)
      << lib.result.summary.message;
}

}  // namespace
}  // namespace nsspice::testing
