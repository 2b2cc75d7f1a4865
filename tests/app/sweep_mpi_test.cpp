// Sweeps over MPI ranks (app/sweep/mpi_runs.hpp): with 2 and 3 ranks (mpirun --oversubscribe,
// as root too: CI runs as root) rank 0 writes the same .meas.csv, the same multi-plot raw file
// (its Date lines aside) and the same per-run CSV files as a threaded run; every rank runs
// some of the runs; a run that fails on another rank is reported by rank 0 with its
// diagnostics; --mpi without anything to share, and --mpi in a build without MPI, are errors.
#include <fmt/format.h>

#include <numeric>
#include <regex>

#include "app/sweep/mpi_runs.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

class SweepMpi : public AppTest {
 protected:
  void SetUp() override {
    AppTest::SetUp();
    if (!app::MpiSession::built()) GTEST_SKIP() << "nsspice was built without MPI (NSSPICE_MPI)";
    if (run_shell("command -v mpirun").exit_code != 0) GTEST_SKIP() << "mpirun is not on PATH";
  }
  // Open MPI refuses root without both variables; vader's single-copy mode needs ptrace
  // rights that containers often lack.
  CliRun mpirun(int ranks, const std::string& args) {
    return run_shell(fmt::format(
        "cd '{}' && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
        "OMPI_MCA_btl_vader_single_copy_mechanism=none timeout 120 mpirun --oversubscribe "
        "--allow-run-as-root -n {} '{}' {}",
        dir_.string(), ranks, NSSPICE_BINARY, args));
  }
  // A raw file without its Date lines (the time each plot was written).
  std::string undated(const std::string& file) {
    return std::regex_replace(read_file(dir_ / file), std::regex("Date: [^\n]*\n"), "");
  }
  // The numbers of the report's "runs per rank" line.
  std::vector<int> per_rank(const std::string& output) {
    std::smatch m;
    std::vector<int> out;
    if (!std::regex_search(output, m, std::regex("runs per rank +([0-9 ]+)"))) return out;
    std::istringstream in(m[1].str());
    for (int v; in >> v;) out.push_back(v);
    return out;
  }
};

// Monte Carlo over R and C and a swept pulse amplitude: 2 points × 12 trials, each run 10 000 steps
// of an RC (about 10 ms: every rank asks for runs while the others run).
constexpr const char* kMc =
    "mc\n.param r=agauss(1k, 100, 1) c={mc(1u, 0.1)} a=1\nV1 in 0 PULSE(0 {a} 0 1n 1n 1 2)\n"
    "R1 in out {r}\nC1 out 0 {c}\n.tran 1u 10m\n.step param a list 1 2\n"
    ".meas tran vend find v(out) at=1m\n.meas tran vavg avg v(out) from=0.5m to=2m\n.end\n";

TEST_F(SweepMpi, RanksWriteWhatThreadsWrite) {
  write("mc.cir", kMc);
  const CliRun threads = nsspice("run mc.cir -o t.raw -q --runs 12 --seed 4 --jobs 2");
  ASSERT_EQ(threads.exit_code, 0) << threads.output;
  for (const int ranks : {2, 3}) {
    const std::string out = fmt::format("m{}.raw", ranks);
    const CliRun r = mpirun(ranks, "run mc.cir -o " + out + " --runs 12 --seed 4 --mpi");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_file(dir_ / fmt::format("m{}.meas.csv", ranks)), read_file(dir_ / "t.meas.csv"))
        << ranks << " ranks";
    EXPECT_EQ(undated(out), undated("t.raw")) << ranks << " ranks";
    const std::vector<int> counts = per_rank(r.output);
    ASSERT_EQ(counts.size(), static_cast<size_t>(ranks)) << r.output;
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), 0), 24) << r.output;
    for (int c : counts) EXPECT_GE(c, 1) << "every rank runs some runs\n" << r.output;
    EXPECT_EQ(r.output.find("mc.cir:"), std::string::npos) << "one report, from rank 0\n"
                                                           << r.output;
  }
  // One CSV per run in a directory: the same files, run for run, also with two threads per
  // rank (3 ranks × 2 jobs).
  ASSERT_EQ(nsspice("run mc.cir -o td/ -q --runs 3 --seed 4 --jobs 1").exit_code, 0);
  const CliRun r = mpirun(3, "run mc.cir -o md/ --runs 3 --seed 4 --mpi --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("3 MPI ranks × 2 jobs"), std::string::npos) << r.output;
  for (int k = 1; k <= 6; ++k) {
    const std::string name = fmt::format("mc.run{}.csv", k);
    EXPECT_EQ(read_file(dir_ / "md" / name), read_file(dir_ / "td" / name)) << name;
  }
  EXPECT_EQ(read_file(dir_ / "md" / "mc.meas.csv"), read_file(dir_ / "td" / "mc.meas.csv"));
}

TEST_F(SweepMpi, AFailingRunOnAnyRankIsReportedByRankZero) {
  write("f.cir",
        "f\n.param r=1k\nV1 a 0 1\nR1 a 0 {r}\n.tran 1u 2u\n"
        ".step param r list 1k 0 2k 0 3k 4k\n.meas tran ir find i(r1) at=2u\n.end\n");
  const CliRun r = mpirun(3, "run f.cir -o f.csv --mpi");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const char* run : {"run 2 (r=0)", "run 4 (r=0)"})
    EXPECT_NE(r.output.find(std::string(run) + ": the netlist of this run has errors"),
              std::string::npos)
        << r.output;
  EXPECT_NE(r.output.find("f.cir:4:8: error: resistor 'r1' must have a positive value"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("4 ok, 2 failed"), std::string::npos) << r.output;
  const std::string meas = read_file(dir_ / "f.meas.csv");
  EXPECT_NE(meas.find("2,0,failed,\n"), std::string::npos) << meas;
  EXPECT_NE(meas.find("6,4000,ok,"), std::string::npos) << meas;
}

TEST_F(SweepMpi, NothingToShareIsBadInput) {
  write("one.cir", "one\nV1 a 0 1\nR1 a 0 1k\n.tran 1u 2u\n.end\n");
  const CliRun r = mpirun(2, "run one.cir -o one.csv --mpi");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--mpi: nothing to run more than once"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "one.csv"));
}

// Without MPI in the build, --mpi is refused before anything is read (the one test that runs
// whatever the build).
TEST(SweepMpiBuild, MpiOptionOfABuildWithoutMpiIsAnError) {
  if (app::MpiSession::built()) GTEST_SKIP() << "this build has MPI (NSSPICE_MPI=ON)";
  const CliRun r = run_shell(std::string("'") + NSSPICE_BINARY + "' run none.cir --mpi --runs 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--mpi: this nsspice was built without MPI"), std::string::npos)
      << r.output;
}

// The MPI calls are a module loaded only for --mpi: nsspice itself does not map Open MPI, and a
// module beside the executable that does not load is named in a clear error, exit 1, no file.
class SweepMpiModule : public AppTest {};

TEST_F(SweepMpiModule, OnlyMpiRunsLoadTheModuleAndABrokenOneIsNamed) {
  if (!app::MpiSession::built()) GTEST_SKIP() << "nsspice was built without MPI (NSSPICE_MPI)";
  const CliRun libs = run_shell(std::string("ldd '") + NSSPICE_BINARY + "'");
  ASSERT_EQ(libs.exit_code, 0) << libs.output;
  EXPECT_EQ(libs.output.find("libmpi"), std::string::npos) << libs.output;
  const fs::path copy = dir_ / "bin" / "nsspice";
  fs::create_directories(copy.parent_path());
  fs::copy_file(NSSPICE_BINARY, copy);
  write("bin/libnsspice_mpi.so", "not a shared object\n");
  write("two.cir",
        "two\n.param r=1\nR1 a 0 {r}\nI1 0 a 1\n.step param r list 1 2\n"
        ".tran 1u 2u\n.end\n");
  const CliRun r = run_shell(
      fmt::format("cd '{}' && '{}' run two.cir -o two.raw --mpi", dir_.string(), copy.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--mpi: cannot load the MPI module " +
                          (dir_ / "bin" / "libnsspice_mpi.so").string()),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "two.raw"));
}

}  // namespace
}  // namespace nsspice::testing
