// `compare` against the real ngspice: a SPICE run that finishes (the escalation ladder recovers
// netlists on which ngspice fails with the defaults), a failure stated as one (exit 5, a plain
// message, a table only over the common interval, a plot that marks where SPICE stopped), the
// user's models passed through, the other peers (--against FILE, --methods). Skipped without
// ngspice (GTEST_SKIP), except where no ngspice runs.
#include <array>
#include <cmath>
#include <regex>

#include "app/io/raw_reader.hpp"
#include "app/io/waveforms.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

const std::string kCases = std::string(NSSPICE_TEST_DATA_DIR) + "/compare/";
const std::string kExamples = std::string(NSSPICE_EXAMPLES_DIR) + "/";

class CompareLadder : public AppTest {
 protected:
  void SetUp() override {
    if (!have_ngspice()) GTEST_SKIP() << "ngspice is not on PATH";
    AppTest::SetUp();
  }
  // The value after `"key": ` in compare.json (the first one from `from`).
  static std::string json_value(const std::string& json, const std::string& key, size_t from = 0) {
    const std::string k = "\"" + key + "\": ";
    const auto at = json.find(k, from);
    if (at == std::string::npos) return "";
    const auto end = json.find_first_of(",\n", at + k.size());
    return json.substr(at + k.size(), end - at - k.size());
  }
};

// "  attempt 3  " as the report labels an attempt.
std::string attempt_label(int k) { return "  attempt " + std::to_string(k) + "  "; }

class Escalation : public CompareLadder, public ::testing::WithParamInterface<std::string> {};

// Each netlist fails with the defaults alone (attempt 1 is the --no-escalate run), and the
// ladder takes ngspice to TSTOP: exit 0, every attempt before the last logged with why it
// stopped.
TEST_P(Escalation, RecoversWhatFailsWithTheDefaults) {
  const std::string netlist = GetParam();
  // The multiplier's ngspice crawls in femtosecond steps until RSHUNT: stopped after 0.5 s
  // without headway instead of 20 (a short --stall would stop healthy runs on a loaded machine).
  const std::string stall = netlist.ends_with("multiplier.cir") ? " --stall 0.5" : "";
  const CliRun r = nsspice("compare " + netlist + " -d out" + stall);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex("completed at attempt (\\d)"))) << r.output;
  const int used = std::stoi(m[1]);
  EXPECT_GE(used, 2) << r.output;
  for (int k = 1; k < used; ++k) {
    EXPECT_TRUE(
        std::regex_search(r.output, std::regex(attempt_label(k) + ".*(stopped at|stalled)")))
        << k << "\n"
        << r.output;
    EXPECT_TRUE(fs::exists(dir_ / "out" / ("ngspice.attempt" + std::to_string(k) + ".cir")));
    EXPECT_TRUE(fs::exists(dir_ / "out" / ("ngspice.attempt" + std::to_string(k) + ".log")));
  }
  EXPECT_TRUE(std::regex_search(r.output, std::regex(attempt_label(used) + ".*: completed")));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "ngspice.raw"));
  EXPECT_NE(r.output.find("verdict: "), std::string::npos);
  EXPECT_EQ(r.output.find("FAILED"), std::string::npos) << r.output;
  const std::string json = read_file(dir_ / "out" / "compare.json");
  EXPECT_EQ(json_value(json, "used_attempt"), std::to_string(used)) << json;
}

// Our own multiplier, clipper and three-phase bridge (tests/data/compare, each says why ngspice
// fails), and the project's example.
INSTANTIATE_TEST_SUITE_P(Netlists, Escalation,
                         ::testing::Values(kCases + "multiplier.cir", kCases + "clipper.cir",
                                           kCases + "bridge3.cir",
                                           kExamples + "bridge_rectifier_filter.cir"),
                         [](const auto& info) {
                           std::string n = fs::path(info.param).stem().string();
                           std::erase(n, '_');
                           return n;
                         });

// A failure is a failure: ngspice stopped by the timeout gives exit 5, says so first and in
// plain words, and no table (it wrote nothing to compare with); a timeout ends the ladder.
TEST_F(CompareLadder, ATimeoutIsAFailureWithoutATable) {
  const CliRun r = nsspice("compare " + kExamples + "buck.cir -d out --timeout 0.2");
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex("compare: [^\n]*\n  FAILED     ngspice did not reach TSTOP = 2 ms")))
      << r.output;
  EXPECT_NE(r.output.find("ngspice did not finish within 0.2 s (killed"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("a timeout ends the ladder"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("max|err|"), std::string::npos) << "no table\n" << r.output;
  EXPECT_EQ(r.output.find("steady state"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verdict: SPICE FAILED: ngspice did not reach TSTOP = 2 ms"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("nothing to compare"), std::string::npos) << r.output;
  const std::string json = read_file(dir_ / "out" / "compare.json");
  EXPECT_EQ(json_value(json, "failed", json.find("\"ngspice\": {")), "true") << json;
  EXPECT_EQ(json_value(json, "grid_points"), "0") << json;
}

// A netlist no rung rescues: the MMC example with a regularization so steep (N = 0.001,
// RS = 0) that ngspice fails at every attempt. Every attempt is logged, the furthest one is
// compared over the common interval only, and the report, the plot and the JSON say so.
TEST_F(CompareLadder, ANetlistThatDefeatsEveryRung) {
  const CliRun r =
      nsspice("compare " + kExamples + "mmc_m10.cir -d out --diode-model 'IS=1e-14 N=0.001 RS=0'");
  EXPECT_EQ(r.exit_code, 5) << r.output;
  for (int k = 1; k <= 7; ++k)
    EXPECT_NE(r.output.find(attempt_label(k)), std::string::npos) << k << "\n" << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex("\n  FAILED     ngspice did not reach TSTOP = 1 ms: it stopped at t "
                           "= [^\n]* \\(the furthest of 7 attempts\\)")))
      << r.output;
  EXPECT_TRUE(std::regex_search(r.output,
                                std::regex("the errors cover t = [^\n]* ONLY: ngspice stopped at")))
      << r.output;
  EXPECT_NE(r.output.find("nsspice: error: ngspice did not reach TSTOP = 1 ms"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("steady state"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verdict: SPICE FAILED"), std::string::npos) << r.output;
  const std::string json = read_file(dir_ / "out" / "compare.json");
  EXPECT_EQ(json_value(json, "common_interval_only"), "true") << json;
  size_t attempts = 0;
  for (size_t at = json.find("\"attempt\": "); at != std::string::npos;
       at = json.find("\"attempt\": ", at + 1))
    ++attempts;
  EXPECT_EQ(attempts, 7u);
  // The table stops where ngspice did.
  const double t_end = std::stod(json_value(json, "t_end", json.find("\"ngspice\": {")));
  EXPECT_LE(std::stod(json_value(json, "to", json.find("\"window\""))), t_end);
  EXPECT_EQ(read_file(dir_ / "out" / "compare.png").substr(0, 4), "\x89PNG");
}

// Question 1: ngspice runs the netlist's own models. What it computes from compare's deck is
// what it computes from the user's own netlist (with compare's .options and TMAX added).
TEST_F(CompareLadder, UserModelsGiveWhatTheUsersNgspiceGives) {
  const std::string netlist = kExamples + "spice_mosfet_buck.cir";
  const CliRun r = nsspice("compare " + netlist + " -d out --step 50n --signals 'v(out),i(d1)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("question   1: how far is the ideal/PWL result from your own SPICE "
                          "models?"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("runs the netlist's own SPICE models unchanged: NM, D1N5819"),
            std::string::npos)
      << r.output;
  const std::string deck = read_file(dir_ / "out" / "ngspice.cir");
  EXPECT_NE(deck.find("\n.model NM NMOS(LEVEL=1 VTO=2 KP=20 RD=0.01 RS=0.01)\n"), std::string::npos)
      << deck;
  EXPECT_NE(deck.find("\n.model D1N5819 D(IS=31.7u RS=0.051 N=1.373 CJO=190p M=0.3 BV=40 "
                      "IBV=1m)\n"),
            std::string::npos)
      << deck;
  // The user's netlist as ngspice reads it, with compare's options and TMAX.
  std::string own = read_file(netlist);
  own.replace(own.find(".tran 50n 1.002m 0 50n"), 22,
              ".tran 50n 1.002m 0 50n\n.options reltol=1e-4\n.control\nset filetype=binary\n"
              "run\nwrite own.raw\n.endc");
  write("own.cir", own);
  run_shell("cd '" + dir_.string() + "' && ngspice -b own.cir");
  std::string error;
  const auto a = app::read_raw((dir_ / "own.raw").string(), error);
  ASSERT_TRUE(a) << error;
  const auto b = app::read_raw((dir_ / "out" / "ngspice.raw").string(), error);
  ASSERT_TRUE(b) << error;
  const auto ka = a->index("v(out)"), kb = b->index("v(out)");
  ASSERT_TRUE(ka && kb);
  // The same circuit and models: the decks differ only by compare's 0 V current probes, which
  // move ngspice's time points a little (a different Newton history), not the waveform.
  double worst = 0;
  for (size_t i = 0; i < a->points(); ++i)
    worst = std::max(worst, std::abs(a->columns[*ka][i] -
                                     app::interpolate(b->time, b->columns[*kb], a->time[i])));
  EXPECT_LT(worst, 1e-3) << "V, on a 5.8 V output";
  EXPECT_NEAR(static_cast<double>(a->points()), static_cast<double>(b->points()),
              1e-3 * static_cast<double>(a->points()));
}

// --against a raw file ngspice wrote from the user's own netlist (binary, ngspice's names:
// nodes without v(), "v1#branch"): the PWL models against the real ones, as docs/devices.md
// tabulates them (+0.05 % on the average output).
TEST_F(CompareLadder, AgainstNgspicesOwnRawFile) {
  const std::string netlist = kExamples + "spice_rectifier_1n4007.cir";
  std::string own = read_file(netlist);
  own.replace(own.find("\n.end"), 5,
              "\n.control\nset filetype=binary\nrun\nwrite own.raw\n.endc\n.end");
  write("own.cir", own);
  run_shell("cd '" + dir_.string() + "' && ngspice -b own.cir");
  ASSERT_TRUE(fs::exists(dir_ / "own.raw"));
  const CliRun r = nsspice("compare " + netlist + " -d out --against own.raw");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("file       own.raw"), std::string::npos) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.output, m, std::regex("verdict: agree within ([0-9.e-]+) % \\((v\\(|measurement )")))
      << r.output;
  EXPECT_LT(std::stod(m[1]), 0.5);
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n  i\\(v1\\) "))) << "v1#branch mapped";
}

// Without the ladder, N = 1 diodes leave the bridge's nodes floating ("timestep too small"): the
// comparison fails (exit 5), said first, its table marked as partial; and in --sweep-ideality a
// run that does not reach TSTOP is a failed point, in the table, the JSON and the plot.
TEST_F(CompareLadder, WithoutTheLadderFailedRunsAndSweepPointsAreFailures) {
  const CliRun r = nsspice("compare " + kExamples +
                           "diode_bridge.cir -d out --diode-model 'IS=1e-14 N=1 RS=1m' "
                           "--no-escalate --sweep-ideality --sweep-n 1,0.01 --signals 'v(n1)'");
  EXPECT_EQ(r.exit_code, 5) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("compare: .*\n  FAILED     ngspice did not "
                                                     "reach TSTOP = 5 ms: it stopped at t =")))
      << r.output;
  EXPECT_NE(r.output.find("imestep too small"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ONLY: ngspice stopped at"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verdict: SPICE FAILED"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(attempt_label(2)), std::string::npos) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n +1 [^\n]+FAILED at t = [^\n]+ \\(errors "
                                                     "up to there\\)\n")))
      << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n +0.01 [^\n]+  ok\n"))) << r.output;
  EXPECT_NE(r.output.find("--sweep-ideality: ngspice did not reach TSTOP for N = 1"),
            std::string::npos)
      << r.output;
  const std::string json = read_file(dir_ / "out" / "compare.json");
  EXPECT_EQ(json_value(json, "common_interval_only"), "true") << json;
  EXPECT_EQ(json_value(json, "failed", json.find("\"sweep\": [")), "true") << json;
  EXPECT_EQ(read_file(dir_ / "out" / "sweep.png").substr(0, 4), "\x89PNG");
}

// ngspice's TMAX follows how nsspice stepped: its fixed step (the .tran step, or --step), or
// under error control ngspice's own default min(TSTEP, span / 50) — whichever is the default.
TEST_F(CompareLadder, TmaxFollowsNsspicesStepping) {
  const std::string rc =
      "rc\nV1 a 0 PULSE(0 1 0 1u 1u 0.3m 0.6m)\nR1 a b 1k\nC1 b 0 100n\n.tran 100u 1m\n";
  for (const auto& [options, args, tran] : std::vector<std::array<std::string, 3>>{
           {".options stepping=fixed\n", "", ".tran 100u 1m 0 100u"},
           {".options stepping=adaptive\n", "", ".tran 100u 1m 0 20u"},
           {".options stepping=adaptive\n", " --step 5u", ".tran 100u 1m 0 5u"}}) {
    write("rc.cir", rc + options + ".end\n");
    const CliRun r = nsspice("compare rc.cir -d out -q" + args);
    EXPECT_EQ(r.exit_code, 0) << options << args << "\n" << r.output;
    const std::string deck = read_file(dir_ / "out" / "ngspice.cir");
    EXPECT_NE(deck.find("\n" + tran + "\n"), std::string::npos) << options << args << "\n" << deck;
  }
}

// No ngspice runs in these.
class CompareOffline : public AppTest {};

// --methods: the θ-scheme against the event mode, no ngspice involved.
TEST_F(CompareOffline, MethodsComparesThetaWithEventMode) {
  const CliRun r = nsspice("compare " + kExamples + "rectifier.cir -d out --methods");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("question   do nsspice's θ-scheme and its event mode agree"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n  θ-scheme .*completed")));
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n  event +.*completed")));
  // The output's average over the last periods: the two methods within 0.5 %.
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(r.output, m, std::regex("verdict: agree within ([0-9.e-]+) % \\((v|i)\\(")))
      << r.output;
  EXPECT_LT(std::stod(m[1]), 0.5);
  EXPECT_NE(r.output.find("event mode "), std::string::npos);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "event.raw"));
}

// Options that contradict each other or the netlist: exit 1, nothing run.
TEST_F(CompareOffline, RejectsContradictoryOptions) {
  const std::string rect = "compare " + kExamples + "rectifier.cir -d out ";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--models foo", "--models foo: must be 'user' or 'regularized'"},
           {"--models user", "--models user: the netlist has no SPICE model card"},
           {"--map 'a=b'", "--map renames the signals of --against FILE"},
           {"--against x.raw --methods", "--methods and --against exclude each other"},
           {"--methods --sweep-ideality", "--sweep-ideality runs ngspice"},
           {"--startup -1", "--startup"},
           {"--stall 0", "--stall 0: must be positive"},
           {"--against nothere.raw", "--against: cannot open 'nothere.raw'"}}) {
    const CliRun r = nsspice(rect + args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
}

}  // namespace
}  // namespace nsspice::testing
