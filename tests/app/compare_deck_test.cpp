// `compare` on decks a stranger wrote: nodes named like ngspice's keywords, UIC with the probes'
// nodes, element currents in measurements, a diode's terminal current against ngspice's probe,
// and which signals (and which window) the verdict judges. The translation and the choices are
// checked offline; the runs against the real ngspice (skipped when it is not installed).
#include <nlohmann/json.hpp>
#include <regex>

#include "app/compare/compare_analysis.hpp"
#include "app/compare/compare_signals.hpp"
#include "app/compare/ngspice_netlist.hpp"
#include "app_test_helpers.hpp"
#include "circuit/circuit_helpers.hpp"

namespace nsspice::testing {
namespace {

circuit::Circuit circuit_of(const std::string& text) {
  auto e = circuit::testing::elaborate_text(text);
  EXPECT_FALSE(e.diags.has_errors()) << e.text();
  return std::move(e.circuit);
}

app::Translation translated(const std::string& text) {
  const circuit::Circuit c = circuit_of(text);
  std::string error;
  auto t = app::translate_to_ngspice(c, {}, error);
  EXPECT_TRUE(t) << error;
  return t ? *t : app::Translation{};
}

bool mapped(const app::Translation& t, const std::string& ng, const std::string& ns) {
  return std::find(t.names.begin(), t.names.end(), std::pair{ng, ns}) != t.names.end();
}

// ngspice reads `vnsp_d1 ac p DC 0` as an AC specification and stops ("unknown parameter"):
// nodes named like its source keywords are renamed in the deck (apart from every other node,
// one the user named nsp_n_ac too) and mapped back; ngspice's own reading of such a line is
// checked in CompareDecks.NodesNamedAsKeywordsRunInNgspice.
TEST(Translate, NodesNamedAsNgspiceKeywordsAreRenamed) {
  const auto t = translated(
      "t\nV1 ac 0 SIN(0 10 60)\nD1 ac dc DI\nR1 dc pwl 1k\nR2 pwl 0 1k\nR3 ac nsp_n_ac 1k\n"
      "R4 nsp_n_ac 0 1k\n.model DI D(RON=1m)\n.ic v(ac)=1\n.tran 20u 50m\n.end\n");
  const std::string& s = t.text;
  EXPECT_NE(s.find("\nv1 nsp_n_ac_2 0 SIN("), std::string::npos) << s;
  EXPECT_NE(s.find("\nvnsp_d1 nsp_n_ac_2 nsp_d1_p DC 0\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nd1 nsp_d1_p nsp_n_dc dnsp_d1\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nr1 nsp_n_dc nsp_n_pwl 1k\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nr3 nsp_n_ac_2 nsp_n_ac 1k\n"), std::string::npos) << s;
  EXPECT_NE(s.find(".ic v(nsp_n_ac_2)=1 v(nsp_d1_p)=1\n"), std::string::npos) << s;
  EXPECT_FALSE(std::regex_search(s, std::regex(R"( (ac|dc|pwl) )"))) << s;
  EXPECT_TRUE(mapped(t, "v(nsp_n_ac_2)", "v(ac)"));
  EXPECT_TRUE(mapped(t, "v(nsp_n_dc)", "v(dc)"));
  EXPECT_TRUE(mapped(t, "v(nsp_n_ac)", "v(nsp_n_ac)"));
}

// Under UIC ngspice starts every node without an .ic at 0 V: a probe's node next to a node at
// 9.5 V puts 9.5 V across a 0 V source, and no rung of the ladder gets past the first point.
// Every node the translation makes gets the .ic of the node it sits at (a VF source's far side:
// minus VF).
TEST(Translate, NodesTheTranslationMakesGetTheirNodesIc) {
  const auto t = translated(
      "t\nV1 a 0 9\nR1 a c 1k\nC1 c 0 1u\nD1 c 0 DV\nS1 c 0 g 0 SM\nVG g 0 0\n"
      ".model DV D(VF=0.7)\n.model SM SW(VT=1)\n.ic v(c)=9.5 v(a)=9\n.tran 1u 1m UIC\n.end\n");
  EXPECT_NE(t.text.find(".ic v(c)=9.5 v(a)=9 v(nsp_d1_p)=9.5 v(nsp_d1_q)=8.8 v(nsp_s1_p)=9.5\n"),
            std::string::npos)
      << t.text;
}

// Nodes a chain of voltage sources ties to ground are never judged; the user's signals first,
// then the defaults (a device's current before a source's).
TEST(CompareSignals, SourceFixedNodesAreNotJudgedAndTheUsersComeFirst) {
  const circuit::Circuit c = circuit_of(
      "ce\nVCC vcc 0 12\nVIN in 0 SIN(0 5m 1k)\nV2 x vcc 1\nCIN in b 10u\nR1 vcc b 47k\n"
      "R2 b 0 10k\nRC vcc c 4.7k\nRE e 0 1k\nQ1 c b e QN\nCOUT c out 10u\nRL out 0 47k\n"
      "E1 y 0 b 0 2\nRY y 0 1k\n.model QN NPN(BF=100)\n.tran 5u 2m\n.end\n");
  EXPECT_EQ(app::source_fixed_voltages(c),
            (std::set<std::string>{"v(vcc)", "v(in)", "v(x)"}));  // not v(y): E follows v(b)
  const std::vector<std::string> names = {"v(vcc)", "v(in)",  "v(x)", "v(b)",   "v(c)",
                                          "v(e)",   "v(out)", "v(y)", "i(vcc)", "i(vin)",
                                          "i(v2)",  "i(e1)",  "i(q1)"};
  EXPECT_EQ(app::judged_signals({}, names, {}, c),
            (std::vector<std::string>{"v(b)", "v(c)", "v(e)", "i(e1)"}));
  EXPECT_EQ(app::judged_signals({"v(vcc)", "v(out)", "i(q1)", "v(nowhere)"}, names, {}, c),
            (std::vector<std::string>{"v(out)", "i(q1)", "v(b)", "v(c)", "v(e)"}));
}

app::CompareResult agreeing() {
  app::CompareResult r;
  r.t_stop = 1e-3;
  r.steady_metrics.push_back({"v(out)", 5, 5.01, 0.1, 0.1, 5});
  r.meas_nsspice.push_back({"vout_pp", "pp v(out)", 2.28, {}, "V", ""});
  r.meas_ngspice.push_back({"vout_pp", "pp v(out)", 2.14, {}, "V", ""});
  r.meas_rel.push_back(0.14 / 2.28);
  return r;
}

// The user's measurements join the verdict: one that differs more than the averages heads it;
// one that failed on one side only is named.
TEST(CompareVerdict, TheUsersMeasurementsAreFoldedIn) {
  auto r = agreeing();
  EXPECT_EQ(app::verdict_line(r),
            "differ by 6.1 % (measurement vout_pp), ripples within 0 % (v(out))");
  r.meas_rel[0] = 1e-3;
  EXPECT_EQ(app::verdict_line(r), "agree within 0.2 % (v(out) avg), ripples within 0 % (v(out))");
  r.meas_ngspice[0].value.reset();
  r.meas_rel[0].reset();
  EXPECT_EQ(app::verdict_line(r),
            "agree within 0.2 % (v(out) avg), ripples within 0 % (v(out)); measurement vout_pp "
            "failed in ngspice");
}

TEST(CompareVerdict, MeasurementDifferencesAreRelativeToTheValueOrTheSignalsSize) {
  app::Waveforms w;
  w.names = {"v(out)"};
  w.time = {0, 1e-3, 2e-3};
  w.columns = {{0, 10, 0}};
  std::string error;
  std::vector<app::MeasureSpec> specs;
  for (const char* text : {"avg v(out)", "min v(out)", "when v(out)=5"})
    specs.push_back(*app::parse_measure(text, error));
  const std::vector<app::MeasureResult> a = {
      {"a", "", 5.0, {}, "V", ""}, {"b", "", 0.0, {}, "V", ""}, {"c", "", 0.5e-3, {}, "s", ""}};
  const std::vector<app::MeasureResult> b = {{"a", "", 5.1, {}, "V", ""},
                                             {"b", "", 1e-3, {}, "V", ""},
                                             {"c", "", 0.5e-3 + 1e-7, {}, "s", ""}};
  const auto rel = app::measure_differences(specs, a, b, w, 2e-3);
  ASSERT_EQ(rel.size(), 3u);
  EXPECT_NEAR(*rel[0], 0.1 / 5, 1e-12);
  EXPECT_NEAR(*rel[1], 1e-3 / (1e-3 * 10), 1e-12);  // 0 V: against a thousandth of 10 V
  EXPECT_NEAR(*rel[2], 1e-7 / 0.5e-3, 1e-9);
}

// A single pulse long over: the last 10 % of the window is 0 in both runs and says nothing; the
// whole window is judged instead (max|err|), and the report says so.
TEST(CompareWindow, AConstantSteadyStateGivesTheWholeWindow) {
  app::Waveforms ref, peer;
  ref.names = peer.names = {"v(z)"};
  ref.columns.resize(1), peer.columns.resize(1);
  for (int i = 0; i <= 1000; ++i) {
    const double t = i * 1e-5;
    const double pulse = t > 2e-3 && t < 5e-3 ? 5.0 : 0.0;
    ref.time.push_back(t), peer.time.push_back(t);
    ref.columns[0].push_back(pulse);
    peer.columns[0].push_back(pulse * 1.01);
  }
  app::CompareResult r;
  r.t_stop = 1e-2;
  app::AnalysisOptions o;
  o.steady_signals = {"v(z)"};
  app::analyse(r, ref, peer, o);
  EXPECT_TRUE(r.steady.whole);
  EXPECT_DOUBLE_EQ(r.steady.from, r.t_from);
  EXPECT_NE(r.steady.how.find("constant"), std::string::npos) << r.steady.how;
  EXPECT_EQ(app::verdict_line(r), "agree within 1 % (v(z) max|err|, whole window)");
  // With activity in the last 10 %, the steady state stays there.
  for (size_t i = 950; i < ref.time.size(); ++i) ref.columns[0][i] = peer.columns[0][i] = i % 2;
  app::CompareResult active;
  active.t_stop = 1e-2;
  app::analyse(active, ref, peer, o);
  EXPECT_FALSE(active.steady.whole);
  EXPECT_NEAR(active.steady.from, active.t_to - 0.1 * (active.t_to - active.t_from), 1e-12);
}

class CompareDecks : public AppTest {
 protected:
  void SetUp() override {
    if (!have_ngspice()) GTEST_SKIP() << "ngspice is not on PATH";
    AppTest::SetUp();
  }
  nlohmann::json json() { return nlohmann::json::parse(read_file(dir_ / "out" / "compare.json")); }
  // The steady-state row of `signal`.
  nlohmann::json steady(const nlohmann::json& j, const std::string& signal) {
    for (const auto& row : j["steady_state"]["signals"])
      if (row["name"] == signal) return row;
    ADD_FAILURE() << signal << " not in the steady state";
    return {};
  }
};

// Before: "SPICE FAILED: ngspice did not reach TSTOP = 50 ms (it wrote no point)".
TEST_F(CompareDecks, NodesNamedAsKeywordsRunInNgspice) {
  write("ac.cir",
        "* nodes named ac and dc\nV1 ac 0 SIN(0 10 60)\nD1 ac dc dr\nR1 dc 0 1k\nC1 dc 0 1u\n"
        ".model dr D(IS=7n N=1.8)\n.tran 20u 50m\n.end\n");
  const CliRun r = nsspice("compare ac.cir -d out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n  v\\(ac\\) "))) << r.output;
  EXPECT_LT(steady(json(), "v(dc)")["rel_avg"].get<double>(), 0.01) << r.output;
}

// Before: no rung of 7 got past the first point ("initial timepoint: trouble with q1").
TEST_F(CompareDecks, UicWithIcRunsInNgspiceAsWritten) {
  write("colpitts.cir",
        "* Colpitts oscillator, common base\nVCC vcc 0 9\nL1 vcc c 10u\nC1 c e 4.7n\n"
        "C2 e 0 4.7n\nRE e 0 1k\nQ1 c b e QN\nR1 vcc b 22k\nR2 b 0 10k\nCB b 0 100n\n"
        ".model QN NPN(IS=1E-14 BF=200 BR=3 CJC=8E-12 CJE=25E-12 RB=10 RC=.3 RE=.2)\n"
        ".ic v(c)=9.5 v(vcc)=9 v(b)=2.8 v(e)=2.1\n.tran 10n 60u uic\n"
        ".meas tran vcpp pp v(c) from=40u to=60u\n.end\n");
  const CliRun r = nsspice("compare colpitts.cir -d out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(json()["ngspice"]["attempts"].size(), 1u) << r.output;
  EXPECT_NE(read_file(dir_ / "out" / "ngspice.cir").find(" v(nsp_q1_p)=9.5"), std::string::npos);
  const auto m = json()["measurements"];
  EXPECT_NEAR(m["ngspice"][0]["value"].get<double>(), m["nsspice"][0]["value"].get<double>(),
              0.05 * m["nsspice"][0]["value"].get<double>())
      << r.output;
}

// i(R), i(C) of `run` on both sides, from each run's node voltages (before: "unknown signal
// 'i(r1)'" on both); an element nsspice adds whose current ngspice cannot give is said so.
TEST_F(CompareDecks, ElementCurrentsAreMeasuredOnBothSides) {
  write("r.cir",
        "* element currents\nV1 a 0 SIN(0 10 60)\nD1 a o dr\nR1 o 0 1k\nC1 o 0 1u\n"
        ".model dr D(IS=7n N=1.8 CJO=10p)\n.tran 20u 50m\n.meas tran ir max i(r1)\n"
        ".meas tran vo max v(o)\n.end\n");
  const CliRun run = nsspice("run r.cir -o run.csv");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto ran = measures(run.output);
  const CliRun r = nsspice(
      "compare r.cir -d out --meas 'max i(c1)' --meas 'max i(d1.cj)' --signals "
      "'v(o),i(r1)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto m = json()["measurements"];
  const double ir_ns = m["nsspice"][0]["value"], ir_ng = m["ngspice"][0]["value"];
  EXPECT_NEAR(ir_ns, ran.at("ir"), 1e-6 * ran.at("ir"));  // as `run` (which prints 6 digits)
  EXPECT_NEAR(ir_ns, m["nsspice"][1]["value"].get<double>() / 1e3, 1e-12);  // max v(o) / R
  EXPECT_NEAR(ir_ng, m["ngspice"][1]["value"].get<double>() / 1e3, 1e-12);
  EXPECT_NEAR(ir_ng, ir_ns, 0.01 * ir_ns);
  const double ic_ns = m["nsspice"][2]["value"], ic_ng = m["ngspice"][2]["value"];
  EXPECT_NEAR(ic_ng, ic_ns, 0.05 * ic_ns);
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n  i\\(r1\\) "))) << r.output;
  EXPECT_TRUE(m["ngspice"][3]["value"].is_null());
  EXPECT_NE(r.output.find("i(d1.cj): an element nsspice adds for its PWL form; ngspice's deck has "
                          "no such element (its model holds it): ngspice has no i(d1.cj)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("; measurement max_i(d1.cj) failed in ngspice"), std::string::npos)
      << r.output;
}

// ngspice's probe sees a diode's terminal current: junction, junction capacitance, stored
// charge. Compared with nsspice's junction current alone, the ripples of a diode driven by
// fast edges differed by 18 % (CJO), 120 % (CJO and TT) and 110 % (RS·CJO = 1 µs: RS split off
// to an internal node) though the averages agreed.
TEST_F(CompareDecks, ADiodesTerminalCurrentAgainstNgspicesProbe) {
  struct Case {
    std::string model, tran, terms;
    double pp;  // the bound on the ripples' difference
  };
  for (const Case& c :
       {Case{"IS=31.7u RS=.051 N=1.373 CJO=110p M=.35", "10n 50u", "i(d1) + i(d1.cj) ", 0.06},
        Case{"IS=31.7u RS=.051 N=1.373 CJO=110p M=.35 TT=100n", "10n 50u",
             "i(d1) + i(d1.cj) + dq(d1.q)/dt", 0.06},
        Case{"IS=1n RS=1k N=1.5 CJO=1n M=.5", "1u 500u", "i(d1.rs) (RS split off", 0.2}}) {
    const std::string per = c.tran == "1u 500u" ? "1u 1u 50u 100u" : "10n 10n 5u 10u";
    write("d.cir", "* diode driven by fast edges through 10 ohm\nV1 in 0 PULSE(-5 5 0 " + per +
                       ")\nR1 in a 10\nD1 a 0 DS\n.model DS D(" + c.model + ")\n.tran " + c.tran +
                       "\n.end\n");
    const CliRun r = nsspice("compare d.cir -d out");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("note       d1: i(d1) is its terminal current, " + c.terms),
              std::string::npos)
        << r.output;
    const auto j = json();
    EXPECT_LT(steady(j, "i(d1)")["rel_pp"].get<double>(), c.pp) << c.model << "\n" << r.output;
    EXPECT_LT(steady(j, "i(d1)")["rel_avg"].get<double>(), 0.01) << c.model << "\n" << r.output;
    fs::remove_all(dir_ / "out");
  }
}

// A common-emitter amplifier: the supply and the input source's node are not judged; the
// user's measurements are, and the verdict's head is never below any of them.
TEST_F(CompareDecks, TheVerdictJudgesTheUsersSignalsAndMeasurements) {
  write("ce.cir",
        "* CE amplifier\nVCC vcc 0 DC 12\nVIN in 0 SIN(0 5m 1k)\nCIN in b 10u\nR1 vcc b 47k\n"
        "R2 b 0 10k\nRC vcc c 4.7k\nRE e 0 1k\nCE e 0 100u\nCOUT c out 10u\nRL out 0 47k\n"
        "Q1 c b e QN\n.model QN NPN(IS=1E-14 VAF=100 BF=300 IKF=0.4 BR=4 CJC=4E-12 CJE=8E-12 "
        "RB=20)\n.tran 5u 20m 10m\n.meas tran vout_pp pp v(out)\n.meas tran vc_avg avg v(c)\n"
        ".end\n");
  const CliRun r = nsspice("compare ce.cir -d out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = json();
  std::vector<std::string> judged;
  for (const auto& row : j["steady_state"]["signals"]) judged.push_back(row["name"]);
  ASSERT_GE(judged.size(), 2u);
  EXPECT_EQ(judged[0], "v(out)");
  EXPECT_EQ(judged[1], "v(c)");
  for (const char* fixed : {"v(vcc)", "v(in)"})
    EXPECT_EQ(std::find(judged.begin(), judged.end(), fixed), judged.end()) << fixed;
  std::smatch head;
  const std::string verdict = j["verdict"];
  ASSERT_TRUE(
      std::regex_search(verdict, head, std::regex("^(agree within|differ by) ([0-9.e+-]+) %")))
      << verdict;
  const double stated = std::stod(head[2]) / 100;
  for (const auto& rel : j["measurements"]["relative_difference"])
    EXPECT_LE(rel.get<double>(), stated * 1.06) << verdict;  // "%.2g" rounding
}

}  // namespace
}  // namespace nsspice::testing
