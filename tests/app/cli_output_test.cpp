// `run` output formats, selection, resampling, measurements; `plot`; the plot files themselves.
#include <cmath>

#include "app/io/raw_reader.hpp"
#include "app/io/waveforms.hpp"
#include "app/plot/plot_gnuplot.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

const char* kRect =
    "rectifier\nV1 in 0 SIN(0 10 50)\nD1 in out DI\nC1 out 0 10u\nR1 out 0 1k\n.model DI D\n"
    ".tran 100u 20m\n.end\n";

std::string magic(const fs::path& p, size_t n) { return read_file(p).substr(0, n); }

class Output : public AppTest {};

TEST_F(Output, RawByExtensionAndFormatOverride) {
  write("rect.cir", kRect);
  CliRun r = nsspice("run rect.cir -o rect.raw -q --step 100u");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string error;
  auto raw = app::read_raw((dir_ / "rect.raw").string(), error);
  ASSERT_TRUE(raw) << error;
  EXPECT_EQ(raw->names, (std::vector<std::string>{"v(in)", "v(out)", "i(v1)", "i(d1)"}));
  EXPECT_EQ(raw->points(), 201u);
  EXPECT_NE(read_file(dir_ / "rect.raw").find("Binary:\n"), std::string::npos);
  r = nsspice("run rect.cir -o rect.txt --format rawascii -q --step 100u");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_file(dir_ / "rect.txt").find("Values:\n 0\t"), std::string::npos);
  auto ascii = app::read_waveforms((dir_ / "rect.txt").string(), error);
  ASSERT_TRUE(ascii) << error;
  EXPECT_EQ(ascii->columns[1], raw->columns[1]);  // 17 digits: the same doubles
  r = nsspice("run rect.cir -o x.raw --format spice");
  EXPECT_NE(r.exit_code, 0);
}

TEST_F(Output, DifferentialColumnNamesAreQuotedInCsv) {
  write("rect.cir", kRect);
  const CliRun r = nsspice("run rect.cir -o d.csv --save 'v(in,out),v(out)' -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = read_file(dir_ / "d.csv");
  EXPECT_EQ(text.substr(0, text.find('\n')), "time,\"v(in,out)\",v(out)");
  std::string error;
  const auto w = app::read_waveforms((dir_ / "d.csv").string(), error);
  ASSERT_TRUE(w) << error;
  EXPECT_EQ(w->names, (std::vector<std::string>{"v(in,out)", "v(out)"}));
}

TEST_F(Output, SaveSelectsColumnsAndGridResamples) {
  write("rect.cir", kRect);
  const CliRun r = nsspice("run rect.cir -o r.csv --save 'v(out),i(d1)' --grid 1m -q --step 100u");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string error;
  const auto w = app::read_waveforms((dir_ / "r.csv").string(), error);
  ASSERT_TRUE(w) << error;
  EXPECT_EQ(w->names, (std::vector<std::string>{"v(out)", "i(d1)"}));
  ASSERT_EQ(w->points(), 21u);
  for (size_t i = 0; i < w->points(); ++i) EXPECT_NEAR(w->time[i], 1e-3 * i, 1e-15);
  // While the diode conducts (t = 1 ms) the output is the input: 10 sin(2π 50 t).
  EXPECT_NEAR(w->columns[0][1], 10 * std::sin(2 * M_PI * 50 * 1e-3), 1e-9);
  const CliRun bad = nsspice("run rect.cir -o r2.csv --save 'v(uot)'");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("unknown signal 'v(uot)' in --save (did you mean 'v(out)'?)"),
            std::string::npos)
      << bad.output;
  EXPECT_FALSE(fs::exists(dir_ / "r2.csv"));
  // --save may be repeated: the lists are joined.
  const CliRun twice = nsspice("run rect.cir -o r3.csv --save 'v(out)' --save 'i(d1),v(in)' -q");
  ASSERT_EQ(twice.exit_code, 0) << twice.output;
  const auto w3 = app::read_waveforms((dir_ / "r3.csv").string(), error);
  ASSERT_TRUE(w3) << error;
  EXPECT_EQ(w3->names, (std::vector<std::string>{"v(out)", "i(d1)", "v(in)"}));
}

// The run evaluates only the signals something reads (file columns, a differential column's two
// nodes, measurements): every value equals, bit for bit, that of a run writing all signals.
TEST_F(Output, SavedSubsetEqualsTheFullRun) {
  write("rect.cir", kRect);
  ASSERT_EQ(nsspice("run rect.cir -o all.csv -q").exit_code, 0);
  const CliRun r = nsspice(
      "run rect.cir -o some.csv --save 'i(d1),v(in,out)' --meas 'max v(out)' --meas "
      "'avg i(v1)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const CliRun full = nsspice("run rect.cir -o all2.csv --meas 'max v(out)' --meas 'avg i(v1)'");
  ASSERT_EQ(full.exit_code, 0) << full.output;
  auto measures = [](const std::string& out) { return out.substr(out.find("measurements")); };
  EXPECT_EQ(measures(r.output), measures(full.output));
  std::string error;
  const auto all = app::read_waveforms((dir_ / "all.csv").string(), error);
  const auto some = app::read_waveforms((dir_ / "some.csv").string(), error);
  ASSERT_TRUE(all && some) << error;
  ASSERT_EQ(some->names, (std::vector<std::string>{"i(d1)", "v(in,out)"}));
  ASSERT_EQ(some->points(), all->points());
  const size_t id = *all->index("i(d1)"), vin = *all->index("v(in)"), vout = *all->index("v(out)");
  for (size_t i = 0; i < all->points(); ++i) {
    ASSERT_EQ(some->time[i], all->time[i]);
    ASSERT_EQ(some->columns[0][i], all->columns[id][i]);
    ASSERT_EQ(some->columns[1][i], all->columns[vin][i] - all->columns[vout][i]);
  }
}

TEST_F(Output, AFailedRunKeepsAValidRawFile) {
  write("f.cir",
        "fail\nV1 a 0 PULSE(-1 1 1m 1u 1u 1 2)\nD1 a 0 DI\nR1 a 0 1k\n.model DI D\n.tran 10u "
        "2m\n.end\n");
  const CliRun r = nsspice("run f.cir -o f.raw --step 10u");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("'f.raw' holds the 101 valid rows"), std::string::npos) << r.output;
  std::string error;
  const auto w = app::read_raw((dir_ / "f.raw").string(), error);
  ASSERT_TRUE(w) << error;
  EXPECT_EQ(w->points(), 101u);
  EXPECT_NEAR(w->time.back(), 1e-3, 1e-15);
}

TEST_F(Output, MeasurementsFromTheCliAndTheNetlist) {
  write("m.cir",
        "meas\nV1 in 0 SIN(0 1 1k)\nR1 in 0 1k\n.tran 1u 2m\n"
        ".meas tran tcross when v(in)=0.5 rise=2\n.end\n");
  const CliRun r = nsspice(
      "run m.cir -o m.csv --step 1u --meas 'vpp pp v(in) from=0 to=1m' --meas 'avg v(in) from=0 "
      "to=0.5m' "
      "--meas-json m.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("measurements"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("vpp ="), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tcross ="), std::string::npos) << r.output;
  const std::string json = read_file(dir_ / "m.json");
  auto number_after = [&](const std::string& name) {
    const auto at = json.find("\"name\": \"" + name + "\"");
    EXPECT_NE(at, std::string::npos) << json;
    const auto v = json.find("\"value\": ", at);
    return std::stod(json.substr(v + 9));
  };
  EXPECT_NEAR(number_after("vpp"), 2.0, 1e-4);
  // avg of sin over half a period = 2/π
  EXPECT_NEAR(number_after("avg_v(in)"), 2 / M_PI, 1e-5);
  // second rising crossing of 0.5: 1 ms + asin(0.5)/(2π·1 kHz) = 1 ms + 1/12 ms
  EXPECT_NEAR(number_after("tcross"), 1e-3 + 1e-3 / 12, 1e-8);
  const CliRun bad = nsspice("run m.cir -o m2.csv --meas 'avg v(nope)'");
  EXPECT_EQ(bad.exit_code, 1);
}

TEST_F(Output, PlotFilesHaveTheRightFormat) {
  app::PlotRequest rq;
  rq.title = "t_x^2 'quoted'";
  app::PlotPanel v, i;
  std::vector<double> t, y;
  for (int k = 0; k <= 20000; ++k) t.push_back(k * 1e-6), y.push_back(std::sin(k * 1e-3));
  v.series.push_back({"v(out)", t, y});
  v.series.push_back({"v(out) ngspice", t, y, true, 0});
  i.series.push_back({"i(d1)", t, y});
  rq.panels = {v, i};
  rq.events = {{5e-3, "jump"}};
  for (const auto& [name, head] : std::vector<std::pair<std::string, std::string>>{
           {"p.png", "\x89PNG"}, {"p.svg", "<?xml"}, {"p.pdf", "%PDF"}}) {
    rq.output = (dir_ / name).string();
    ASSERT_EQ(app::write_plot(rq), "") << name;
    EXPECT_GT(fs::file_size(dir_ / name), 1000u) << name;
    EXPECT_EQ(magic(dir_ / name, head.size()), head) << name;
  }
}

TEST_F(Output, PlotCommandAndRunPlotPanels) {
  write("rect.cir", kRect);
  CliRun r =
      nsspice("run rect.cir -o rect.raw --plot --panel 'v(in),v(out)' --panel 'i(d1)' -q --show");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(magic(dir_ / "rect.png", 4), "\x89PNG");
  r = nsspice("plot rect.raw -o from_raw.svg --signals 'v(out),i(d1)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(magic(dir_ / "from_raw.svg", 5), "<?xml");
  ASSERT_EQ(nsspice("run rect.cir -o rect.csv -q").exit_code, 0);
  r = nsspice("plot rect.csv -o from_csv.pdf --panel 'v(out)' --panel 'i(v1),i(d1)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(magic(dir_ / "from_csv.pdf", 4), "%PDF");
  r = nsspice("plot rect.csv -o x.png --panel 'v(ot)'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("unknown signal 'v(ot)' in --panel"), std::string::npos) << r.output;
  r = nsspice("plot rect.csv -o x.jpg");
  EXPECT_EQ(r.exit_code, 1);
}

}  // namespace
}  // namespace nsspice::testing
