// The plots a user gets from `run --plot` and `plot` without options: the netlist's signals,
// panels by kind with the PWM node alone, no signal dropped silently, gnuplot's chatter kept off
// the terminal and its failures reported; -q keeps the measurements; exact time columns; the
// event log names the pair of two-pair devices; the ngspice deck's numbers in their short form.
#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <set>

#include "app/cli/plot_command.hpp"
#include "app/compare/spice_params.hpp"
#include "app/io/raw_reader.hpp"
#include "app/io/waveforms.hpp"
#include "app/plot/plot_layout.hpp"
#include "app_test_helpers.hpp"
#include "netlist/units.hpp"

namespace nsspice::testing {
namespace {

using app::PlotRequest;
using app::PlotSeries;

// The trace names of a gnuplot SVG (each plot element carries its title), " (right)" removed.
std::set<std::string> svg_traces(const fs::path& svg) {
  const std::string text = read_file(svg);
  const std::string open = "<title>", close = "</title>";
  std::set<std::string> out;
  for (size_t at = text.find("<g id=\"gnuplot_plot_"); at != std::string::npos;
       at = text.find("<g id=\"gnuplot_plot_", at + 1)) {
    const size_t a = text.find(open, at), b = text.find(close, at);
    if (a == std::string::npos || b == std::string::npos || a > b || a > at + 40) continue;
    const std::string name = text.substr(a + open.size(), b - a - open.size());
    out.insert(name.substr(0, name.find(" (right)")));
  }
  return out;
}

// An RC ladder of n nodes (v(n1) ... v(nN)) driven by a sine, without .print.
std::string ladder(int n) {
  std::string s = "RC ladder\nV1 n0 0 SIN(0 1 1k)\n";
  for (int k = 1; k <= n; ++k) s += fmt::format("R{0} n{1} n{0} 1k\nC{0} n{0} 0 10n\n", k, k - 1);
  return s + ".tran 10u 2m\n.end\n";
}

// A buck converter without .print: which signals it plots is the default's choice.
const char* kBuck =
    "buck\nVin in 0 DC 10\nVpwm ctrl 0 PULSE(0 1 0 10n 10n 4.99u 10u)\nS1 in sw ctrl 0 SWIDEAL\n"
    "D1 0 sw DIDEAL\nL1 sw out 100u IC=0\nC1 out 0 10u IC=0\nR1 out 0 10\n"
    ".model SWIDEAL SW(VT=0.5)\n.model DIDEAL D\n.tran 20n 400u UIC\n.end\n";

class PlotCli : public AppTest {};

TEST_F(PlotCli, PrintCardSignalsAreExactlyThePlottedOnes) {
  write("z.cir",
        "zener\nVIN in 0 SIN(12 2 100)\nR1 in out 100\nDZ 0 out Z5V1\nRL out 0 1k\n"
        ".model Z5V1 D(BV=5.1 RZ=0.5)\n.tran 10u 30m\n.print tran v(in) v(out) i(dz)\n.end\n");
  const CliRun r = nsspice("run z.cir --plot z.svg -q --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(svg_traces(dir_ / "z.svg"), (std::set<std::string>{"v(in)", "v(out)", "i(dz)"}));
}

TEST_F(PlotCli, TwelveNodeVoltagesAreAllPlotted) {
  write("l12.cir", ladder(12));
  const CliRun r = nsspice("run l12.cir --plot l12.svg -q --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto traces = svg_traces(dir_ / "l12.svg");
  for (int k = 0; k <= 12; ++k) EXPECT_TRUE(traces.count("v(n" + std::to_string(k) + ")")) << k;
  EXPECT_EQ(r.output.find("not plotted"), std::string::npos) << r.output;
}

TEST_F(PlotCli, SignalsLeftOutAreStatedOnStderrAndOnThePlot) {
  write("l20.cir", ladder(20));
  const CliRun r = nsspice("run l20.cir --plot l20.svg -q --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // 21 node voltages and the source current: 16 plotted, 6 left out, said where and how.
  EXPECT_NE(r.output.find("6 more signals are not plotted: choose with --signals or --panel"),
            std::string::npos)
      << r.output;
  EXPECT_NE(read_file(dir_ / "l20.svg").find("6 more signals are not plotted"), std::string::npos);
  EXPECT_EQ(svg_traces(dir_ / "l20.svg").size(), app::kMaxDefaultSignals);
}

TEST_F(PlotCli, BuckPwmNodeLandsInAThinPanelOfItsOwnWithAZoomColumn) {
  write("buck.cir", kBuck);
  CliRun r = nsspice("run buck.cir -o buck.csv -q --no-progress --plot buck.svg");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string error;
  auto w = app::read_waveforms((dir_ / "buck.csv").string(), error);
  ASSERT_TRUE(w) << error;
  const auto layout = app::panel_layout({}, "", w->names, true, error);
  ASSERT_TRUE(layout) << error;
  const auto panels = app::arrange_panels(app::make_panels(*w, *layout)[0].series);
  bool found = false;
  for (const auto& p : panels)
    for (const auto& s : p.series)
      if (s.name == "v(sw)") {
        found = true;
        EXPECT_TRUE(p.thin);
        for (const auto& other : p.series)  // only switching signals beside it
          EXPECT_TRUE(app::is_two_level(other.y)) << other.name;
      }
  EXPECT_TRUE(found);
  for (const auto& p : panels) {  // the full panels do not hold it
    if (p.thin) continue;
    for (const auto& s : p.series) EXPECT_NE(s.name, "v(sw)");
  }
  // 40 periods: the plot gets the zoom column on the last 5 periods.
  EXPECT_NE(read_file(dir_ / "buck.svg").find("last 5 periods"), std::string::npos);
  r = nsspice("run buck.cir -o b2.csv -q --no-progress --plot b2.svg --zoom last:2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_file(dir_ / "b2.svg").find("last 2 periods"), std::string::npos);
  r = nsspice("run buck.cir -o b3.csv -q --no-progress --plot b3.svg --zoom off");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(dir_ / "b3.svg").find("periods"), std::string::npos);
  r = nsspice("run buck.cir -o b5.csv -q --no-progress --plot b5.svg --size 900x1200");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_file(dir_ / "b5.svg").find("width=\"900\" height=\"1200\""), std::string::npos);
  r = nsspice("run buck.cir -q --size 10x10 --plot b6.svg");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = nsspice("run buck.cir -q --zoom first:3 --plot b4.svg");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("last:N"), std::string::npos) << r.output;
}

TEST_F(PlotCli, GnuplotChatterIsCapturedAndItsErrorsAreErrors) {
  // A panel mixing a voltage with an all-zero current: gnuplot warns "empty y2 range".
  write("z.csv", "time,v(a),i(x)\n0,0,0\n1e-3,1,0\n2e-3,0.5,0\n");
  CliRun r = run_shell("cd '" + dir_.string() + "' && ( '" + NSSPICE_BINARY +
                       "' plot z.csv --panel 'v(a),i(x)' -o z.png 2>err.txt >out.txt )");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(dir_ / "err.txt"), "");
  EXPECT_EQ(read_file(dir_ / "out.txt").find("arning"), std::string::npos);
  EXPECT_EQ(read_file(dir_ / "z.png").substr(1, 3), "PNG");
  // A plot that cannot be written: exit 3, the file named, nothing on stdout (no PNG bytes).
  r = run_shell("cd '" + dir_.string() + "' && ( '" + NSSPICE_BINARY +
                "' plot z.csv -o no/such/dir/z.png 2>err.txt >out.txt )");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(read_file(dir_ / "out.txt"), "");
  const std::string err = read_file(dir_ / "err.txt");
  EXPECT_NE(err.find("error"), std::string::npos) << err;
  EXPECT_NE(err.find("no/such/dir/z.png"), std::string::npos) << err;
  // The same from run --plot.
  write("rc.cir", ladder(1));
  r = run_shell("cd '" + dir_.string() + "' && ( '" + NSSPICE_BINARY +
                "' run rc.cir -q --no-progress --plot no/such/dir/rc.png 2>err.txt >out.txt )");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(read_file(dir_ / "out.txt"), "");
  EXPECT_NE(read_file(dir_ / "err.txt").find("no/such/dir/rc.png"), std::string::npos);
}

// The plot requests of two files of the same run are equal: panels, series, points, axis.
void expect_same_plot(const PlotRequest& a, const PlotRequest& b) {
  EXPECT_EQ(a.xlabel, b.xlabel);
  EXPECT_EQ(a.log_x, b.log_x);
  ASSERT_EQ(a.panels.size(), b.panels.size());
  for (size_t p = 0; p < a.panels.size(); ++p) {
    EXPECT_EQ(a.panels[p].ylabel, b.panels[p].ylabel);
    ASSERT_EQ(a.panels[p].series.size(), b.panels[p].series.size()) << p;
    for (size_t k = 0; k < a.panels[p].series.size(); ++k) {
      const PlotSeries &x = a.panels[p].series[k], &y = b.panels[p].series[k];
      EXPECT_EQ(x.name, y.name);
      EXPECT_EQ(x.t, y.t) << x.name;
      EXPECT_EQ(x.y, y.y) << x.name;
    }
  }
}

// `nsspice plot` of a DC sweep's file draws what `run --plot` draws: every point (a descending
// sweep; a nested one, one curve per outer value) over the sweep's scale, not over "time [s]",
// the same from the raw file as from the CSV. Before, the raw file of the descending sweep
// plotted 1 point and the nested one its first outer value, with exit 0 and no note.
TEST_F(PlotCli, DcSweepFilesPlotEveryPointOverTheirScale) {
  write("desc.cir",
        "descending\nV1 in 0 0\nR1 in a 470\nD1 a 0 DX\nD2 0 a DX\nR2 a 0 10k\n"
        ".model DX D(IS=1e-14 N=1.0 RS=2)\n.dc V1 3 -3 -0.25\n.print dc v(a) i(v1)\n.end\n");
  write("nest.cir",
        "nested\nV1 in 0 0\nR1 in out 100\nDZ 0 out ZM\nI1 out 0 0\n"
        ".model ZM D(VF=0.7 RON=0.5 BV=5.1 RZ=2)\n.dc V1 -5 12 0.5 I1 0 20m 10m\n"
        ".save v(out) i(v1)\n.end\n");
  const struct {
    const char* name;
    size_t points;
    std::set<std::string> traces;
  } cases[] = {
      {"desc", 25, {"v(a)", "i(v1)"}},
      {"nest",
       105,
       {"v(out) (i1-sweep=0)", "v(out) (i1-sweep=0.01)", "v(out) (i1-sweep=0.02)",
        "i(v1) (i1-sweep=0)", "i(v1) (i1-sweep=0.01)", "i(v1) (i1-sweep=0.02)"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<PlotRequest> requests;
    for (const char* ext : {"raw", "csv"}) {
      const std::string file = fmt::format("{}.{}", c.name, ext);
      auto r = nsspice(fmt::format("run {}.cir -o {} -q", c.name, file));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      r = nsspice(fmt::format("plot {} -o {}_{}.svg", file, c.name, ext));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_NE(r.output.find(fmt::format("(2 panels, {} points)", c.points)), std::string::npos)
          << r.output;
      EXPECT_EQ(r.output.find("note"), std::string::npos) << r.output;
      EXPECT_EQ(svg_traces(dir_ / fmt::format("{}_{}.svg", c.name, ext)), c.traces);
      const std::string svg = read_file(dir_ / fmt::format("{}_{}.svg", c.name, ext));
      EXPECT_NE(svg.find("v-sweep [V]"), std::string::npos);
      EXPECT_EQ(svg.find("time ["), std::string::npos);
      std::string error;
      const auto w = app::read_waveforms((dir_ / file).string(), error);
      ASSERT_TRUE(w) << error;
      app::PlotOptions o;
      o.input = file;
      const auto rq = app::analysis_plot_request(*w, o, error);
      ASSERT_TRUE(rq) << error;
      EXPECT_EQ(rq->xlabel, "v-sweep [V]");
      requests.push_back(*rq);
    }
    expect_same_plot(requests[0], requests[1]);
  }
  // ngspice's nested sweep has no outer column: a new curve where the scale starts again.
  std::string error;
  const auto ng = app::parse_raw(
      "Title: x\nDate: d\nPlotname: DC transfer characteristic\nFlags: real\nNo. Variables: 2\n"
      "No. Points: 4\nVariables:\n\t0\tv(v-sweep)\tvoltage\n\t1\tv(out)\tvoltage\nValues:\n"
      " 0\t0\n\t1\n\n 1\t1\n\t2\n\n 2\t0\n\t3\n\n 3\t1\n\t4\n\n",
      error);
  ASSERT_TRUE(ng) << error;
  const auto rq = app::analysis_plot_request(*ng, {}, error);
  ASSERT_TRUE(rq) << error;
  ASSERT_EQ(rq->panels.size(), 1u);
  ASSERT_EQ(rq->panels[0].series.size(), 2u);
  EXPECT_EQ(rq->panels[0].series[1].name, "v(out) (outer sweep 2)");
  EXPECT_EQ(rq->panels[0].series[1].y, (std::vector<double>{3, 4}));
  // Options of waveforms over time are errors naming themselves.
  app::PlotOptions panel;
  panel.panels = {"v(out)"};
  EXPECT_FALSE(app::analysis_plot_request(*ng, panel, error));
  EXPECT_NE(error.find("--panel: "), std::string::npos) << error;
}

// `nsspice plot` of an AC analysis's raw file (complex data, ours) draws the Bode plot `run
// --plot` draws, the same from the raw file as from the CSV (it refused complex data before);
// `view` and `compare --against`, which take waveforms over time, say what the file is.
TEST_F(PlotCli, AcRawFilesPlotAsBodePlots) {
  write("rlc.cir",
        "series RLC\nV1 in 0 DC 0 AC 1\nR1 in a 10\nL1 a b 1m\nC1 b 0 1u\n"
        ".ac dec 10 100 100k\n.save v(b) i(l1)\n.end\n");
  std::vector<PlotRequest> requests;
  for (const char* ext : {"raw", "csv"}) {
    const std::string file = fmt::format("rlc.{}", ext);
    auto r = nsspice(fmt::format("run rlc.cir -o {} -q", file));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = nsspice(fmt::format("plot {} -o rlc_{}.svg", file, ext));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("(2 panels, 31 points)"), std::string::npos) << r.output;
    EXPECT_EQ(svg_traces(dir_ / fmt::format("rlc_{}.svg", ext)),
              (std::set<std::string>{"vdb(b)", "vp(b)", "idb(l1)", "ip(l1)"}));
    std::string error;
    const auto w = app::read_waveforms((dir_ / file).string(), error);
    ASSERT_TRUE(w) << error;
    EXPECT_EQ(w->scale, app::Scale::kFrequency);
    const auto rq = app::analysis_plot_request(*w, {}, error);
    ASSERT_TRUE(rq) << error;
    EXPECT_EQ(rq->xlabel, "frequency [Hz]");
    EXPECT_TRUE(rq->log_x);
    requests.push_back(*rq);
  }
  expect_same_plot(requests[0], requests[1]);
  // At 100 Hz: v(b) = 1/(1 − ω²LC + jωRC).
  const double w = 2 * 3.141592653589793 * 100;
  const std::complex<double> vb = 1.0 / (1.0 - w * w * 1e-9 + std::complex<double>(0, w * 1e-5));
  EXPECT_NEAR(requests[0].panels[0].series[0].y[0], 20 * std::log10(std::abs(vb)), 1e-9);
  const auto r = nsspice("view rlc.raw -o v.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: 'rlc.raw' is an AC analysis (complex data over frequency), not "
                          "waveforms over time: view takes a transient's file (nsspice plot "
                          "draws this one as a Bode plot)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "v.html"));
}

TEST_F(PlotCli, QuietKeepsTheMeasurements) {
  write("rc.cir", ladder(1));
  const CliRun r = run_shell("cd '" + dir_.string() + "' && ( '" + NSSPICE_BINARY +
                             "' run rc.cir -q --meas 'max v(n0)' 2>/dev/null )");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("max v(n0)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("steps"), std::string::npos) << r.output;  // no run report
}

// Every time of the file is the double nearest to t0 + k·h, written as that short decimal.
void expect_exact_times(const fs::path& csv, double h, size_t rows) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  size_t k = 0;
  const double per = std::round(1 / h);
  while (std::getline(in, line)) {
    const std::string text = line.substr(0, line.find(','));
    const double t = std::stod(text);
    ASSERT_EQ(t, static_cast<double>(k) / per) << "row " << k << ": " << text;
    ASSERT_EQ(text.find("99999"), std::string::npos) << text;
    ASSERT_EQ(text.find("00000"), std::string::npos) << text;
    ++k;
  }
  EXPECT_EQ(k, rows);
}

TEST_F(PlotCli, TimeValuesAreExactMultiplesOfTheStep) {
  write("rc.cir", ladder(2));
  CliRun r = nsspice("run rc.cir -o fixed.csv -q --no-progress --step 1u");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_exact_times(dir_ / "fixed.csv", 1e-6, 2001);
  r = nsspice("run rc.cir -o grid.csv -q --no-progress --step 1u --grid 10u");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_exact_times(dir_ / "grid.csv", 1e-5, 201);
}

TEST_F(PlotCli, EventLogNamesThePairOfTwoPairDevices) {
  // A Zener clamp on a ±10 V sine: forward conduction on the negative half, breakdown on the
  // positive one.
  write("clamp.cir",
        "clamp\nV1 in 0 SIN(0 10 1k)\nR1 in out 1k\nD1 0 out DZ\nRL out 0 10k\n"
        ".model DZ D(BV=5.1)\n.tran 10u 2m\n.options method=event\n.end\n");
  const CliRun r = nsspice("run clamp.cir -o clamp.csv -q --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string log = read_file(dir_ / "clamp.events.csv");
  ASSERT_NE(log.find(",pair\n"), std::string::npos) << log;
  EXPECT_NE(log.find(",d1,off->on,"), std::string::npos) << log;
  std::istringstream in(log);
  std::string line;
  std::getline(in, line);
  std::set<std::string> pairs;
  while (std::getline(in, line))
    if (line.find(",d1,") != std::string::npos) pairs.insert(line.substr(line.rfind(',') + 1));
  EXPECT_EQ(pairs, (std::set<std::string>{"forward", "breakdown"})) << log;
}

TEST_F(PlotCli, DeckNumbersInTheirShortestExactForm) {
  const auto parse = [](const std::string& s) { return *netlist::parse_spice_number(s); };
  EXPECT_EQ(app::spice_number(parse("100u")), "100u");
  EXPECT_EQ(app::spice_number(1e-4), "100u");
  EXPECT_EQ(app::spice_number(parse("4.99u")), "4.99u");
  EXPECT_EQ(app::spice_number(parse("10n")), "10n");
  EXPECT_EQ(app::spice_number(0.25), "0.25");
  EXPECT_EQ(app::spice_number(0), "0");
  EXPECT_EQ(app::spice_number(-12), "-12");
  // Whatever the value, the text reads back to the same double, never longer than plain.
  double v = 1.234567e-7;
  for (int k = 0; k < 2000; ++k, v *= 1.0173) {
    const std::string s = app::spice_number(v);
    ASSERT_EQ(parse(s), v) << s;
    ASSERT_LE(s.size(), fmt::format("{}", v).size()) << s;
  }
}

}  // namespace
}  // namespace nsspice::testing

namespace nsspice::testing {
namespace {

TEST_F(PlotCli, CompareQuietKeepsTheMeasurementsAndWritesTheViewer) {
  if (!have_ngspice()) GTEST_SKIP() << "ngspice not installed";
  write("rect.cir",
        "rectifier\nV1 in 0 SIN(0 10 50)\nD1 in out DI\nC1 out 0 10u\nR1 out 0 1k\n.model DI D\n"
        ".tran 100u 20m\n.end\n");
  const CliRun r =
      run_shell("cd '" + dir_.string() + "' && ( '" + NSSPICE_BINARY +
                "' compare rect.cir -d cmp -q --view --meas 'max v(out)' 2>/dev/null )");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nsspice\n  max_v(out)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ngspice\n  max_v(out)"), std::string::npos) << r.output;
  const std::string html = read_file(dir_ / "cmp" / "compare.html");
  EXPECT_NE(html.find("\"name\":\"v(out) ngspice\""), std::string::npos);
  EXPECT_NE(html.find("max_v(out) (ngspice)"), std::string::npos);
}

}  // namespace
}  // namespace nsspice::testing
