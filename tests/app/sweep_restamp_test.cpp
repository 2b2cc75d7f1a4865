// What the runs of a sweep share (app/cli/sweep_command.hpp, SweepShare): a run restamped on the
// nominal circuit's pattern, whose θ-stepper factors with the symbolic analyses made once for
// it, writes the same file bit for bit as the same run assembled and analyzed anew — for a
// stepped source value, a stepped model parameter and a Monte Carlo draw; the sweep report says
// how many runs were restamped, and a step that changes the structure (a PWL MOS's SEGMENTS)
// falls back to a rebuild, named in the report with what differs.
#include <fmt/format.h>

#include <functional>

#include "app/cli/sweep_command.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

class SweepShareTest : public AppTest {
 protected:
  // Every run of the sweep of `netlist` twice: restamped on a SweepShare, and rebuilt (no
  // share); the files must be equal byte for byte (and the points' hashes equal). Returns the
  // restamped runs' outcomes.
  std::vector<app::RunOutcome> run_both_ways(const std::string& netlist, int monte_carlo_runs) {
    const auto path = write("s.cir", netlist);
    app::RunOptions o;
    o.netlist = path.string();
    o.quiet = true;
    o.runs = monte_carlo_runs;
    o.seed = 7;
    app::LoadOptions lo;
    std::string diagnostics;
    lo.diagnostics = &diagnostics;
    if (monte_carlo_runs > 0) lo.draw = [](bool) { return 0.0; };
    const auto nominal = app::load_netlist(o.netlist, lo);
    EXPECT_NE(nominal, nullptr) << diagnostics;
    if (!nominal) return {};
    std::string printed;
    const auto plan = app::make_sweep_plan(o, *nominal, printed);
    EXPECT_TRUE(plan.has_value()) << printed;
    if (!plan) return {};
    const app::SweepShare shared(*nominal, *plan);
    const app::RunShare share = shared.share();
    const std::function<int()> go_on = [] { return 0; };
    std::vector<app::RunOutcome> out;
    for (std::size_t k = 0; k < plan->runs.size(); ++k) {
      app::RunOptions a = o, b = o;
      a.output = (dir_ / fmt::format("restamped{}.csv", k)).string();
      b.output = (dir_ / fmt::format("rebuilt{}.csv", k)).string();
      std::string da, db;
      app::RunOutcome ra = app::sweep_run(a, *nominal, *plan, k, go_on, da, nullptr, &share);
      const app::RunOutcome rb = app::sweep_run(b, *nominal, *plan, k, go_on, db);
      EXPECT_EQ(ra.code, 0) << ra.message << da;
      EXPECT_EQ(rb.code, 0) << rb.message << db;
      EXPECT_EQ(rb.assembly, app::RunAssembly::kNone);
      EXPECT_FALSE(rb.shared_analysis);
      EXPECT_GT(ra.rows, 10) << k;
      EXPECT_EQ(ra.rows_hash, rb.rows_hash) << "run " << k + 1;
      EXPECT_EQ(read_file(a.output), read_file(b.output)) << "run " << k + 1;
      out.push_back(std::move(ra));
    }
    return out;
  }
};

// A buck converter (ideal switch and diode, θ-method with its mode changes).
constexpr const char* kBuck =
    "buck\n.param lv=100u cv=10u rv=10\nVin in 0 DC 10\nVp ctrl 0 PULSE(0 1 0 10n 10n 4.99u 10u)\n"
    "S1 in sw ctrl 0 SWM\nD1 0 sw DM\nL1 sw out {lv} IC=0\nC1 out 0 {cv} IC=0\nR1 out 0 {rv}\n"
    ".model SWM SW(VT=0.5)\n.model DM D(VF=0.4)\n.tran 20n 60u UIC\n";

TEST_F(SweepShareTest, RestampedRunsEqualRebuiltRunsBitForBit) {
  struct Case {
    const char* what;
    std::string netlist;
    int runs;
  };
  const Case cases[] = {
      {"a stepped source value", std::string(kBuck) + ".step Vin list 8 10 12.5\n.end\n", 0},
      {"a stepped model parameter",
       std::string(kBuck) + ".step DM(VF) list 0 0.4 0.7\n.step param rv list 5 10\n.end\n", 0},
      {"Monte Carlo draws",
       "buck mc\n.param lv=agauss(100u, 10u, 1) cv=agauss(10u, 1u, 1) rv=unif(10, 0.05)\n" +
           std::string(kBuck).substr(std::string(kBuck).find("Vin")) + ".end\n",
       4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const auto outcomes = run_both_ways(c.netlist, c.runs);
    ASSERT_FALSE(outcomes.empty());
    for (const auto& r : outcomes) {
      EXPECT_EQ(r.assembly, app::RunAssembly::kRestamped);
      EXPECT_TRUE(r.shared_analysis);
    }
  }
}

// A PWL MOS amplifier: SEGMENTS sets the number of complementarity pairs of M1.
constexpr const char* kMos =
    "mos\nVd d 0 5\nVg g 0 SIN(2.5 1 100k)\nRd d dr 1k\nM1 dr g 0 0 NM\n"
    ".model NM NMOS(KP=2m VTO=1 SEGMENTS=4 VMAX=5)\n.tran 100n 20u\n";

TEST_F(SweepShareTest, AStepThatChangesTheStructureIsRebuiltAndReported) {
  write("m.cir", std::string(kMos) + ".step NM(SEGMENTS) list 4 6 4\n.step param x list 1 2\n" +
                     ".meas tran vmin min v(dr)\n.end\n");
  const CliRun r = nsspice("run m.cir -o m.csv --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("assembly           4 restamped on the nominal circuit's pattern, 4 "
                          "sharing its symbolic analysis; 2 rebuilt (structure differs from the "
                          "nominal's: runs 3, 4: 10 complementarity pairs, the nominal circuit 6)"),
            std::string::npos)
      << r.output;
  // The rebuilt runs are right: run 3 equals the netlist with SEGMENTS=6 run alone.
  std::string six = kMos;
  six.replace(six.find("SEGMENTS=4"), 10, "SEGMENTS=6");
  write("six.cir", six + ".end\n");
  ASSERT_EQ(nsspice("run six.cir -o six.csv -q").exit_code, 0);
  EXPECT_EQ(read_file(dir_ / "m.run3.csv"), read_file(dir_ / "six.csv"));
  // And the restamped ones: run 5 is the nominal netlist alone.
  write("four.cir", std::string(kMos) + ".end\n");
  ASSERT_EQ(nsspice("run four.cir -o four.csv -q").exit_code, 0);
  EXPECT_EQ(read_file(dir_ / "m.run5.csv"), read_file(dir_ / "four.csv"));
}

}  // namespace
}  // namespace nsspice::testing
