// SPICE raw files: our writer and reader round-trip (binary bit for bit, ASCII to the last
// digit), the layout is ngspice's, a file is valid while it is still being written, and ngspice
// itself loads what we write.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <regex>

#include "app/io/csv_writer.hpp"
#include "app/io/raw_reader.hpp"
#include "app/io/raw_writer.hpp"
#include "app/io/waveforms.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

using app::RawWriter;
using app::Waveforms;

const std::vector<std::string> kNames = {"v(in)", "v(out)", "i(v1)", "i(d1)"};

// Awkward doubles: sub-normals, signed zero, values with 17 significant digits, huge/tiny.
std::vector<double> row_values(int i) {
  const double t = i * 1e-6 / 3.0;
  return {std::sin(1e3 * t) / 3.0, i % 7 == 0 ? -0.0 : std::nextafter(1.0 / (i + 1), 2.0),
          i == 3 ? std::numeric_limits<double>::denorm_min() : -1e-300 * i, 1e300 / (i + 1)};
}

void write_rows(RawWriter& w, int n) {
  for (int i = 0; i < n; ++i) {
    const auto v = row_values(i);
    w.row(i * 1e-6 / 3.0, v);
  }
}

void expect_same(const Waveforms& w, int n) {
  ASSERT_EQ(w.names, kNames);
  ASSERT_EQ(w.points(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double t = i * 1e-6 / 3.0;
    EXPECT_EQ(std::memcmp(&w.time[i], &t, sizeof t), 0) << "time " << i;
    const auto v = row_values(i);
    for (size_t k = 0; k < v.size(); ++k)
      EXPECT_EQ(std::memcmp(&w.columns[k][i], &v[k], sizeof(double)), 0)
          << kNames[k] << " at " << i << ": " << w.columns[k][i] << " vs " << v[k];
  }
}

class RawIo : public AppTest {};

TEST_F(RawIo, BinaryRoundTripIsBitExact) {
  RawWriter w(true);
  ASSERT_TRUE(w.open((dir_ / "a.raw").string(), "round trip", kNames));
  write_rows(w, 1000);
  ASSERT_TRUE(w.close());
  std::string error;
  const auto back = app::read_raw((dir_ / "a.raw").string(), error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->title, "round trip");
  expect_same(*back, 1000);
}

TEST_F(RawIo, AsciiRoundTripIsExact) {
  RawWriter w(false);
  ASSERT_TRUE(w.open((dir_ / "a.raw").string(), "ascii", kNames));
  write_rows(w, 300);
  ASSERT_TRUE(w.close());
  std::string error;
  const auto back = app::read_raw((dir_ / "a.raw").string(), error);
  ASSERT_TRUE(back) << error;
  expect_same(*back, 300);
}

TEST_F(RawIo, HeaderIsLaidOutAsNgspiceWritesIt) {
  RawWriter w(false);
  ASSERT_TRUE(w.open((dir_ / "a.raw").string(), "layout", {"v(a)", "i(l1)"}));
  w.row(0.0, std::vector<double>{1.0, -2.5});
  w.row(1e-6, std::vector<double>{0.5, 0.25});
  ASSERT_TRUE(w.close());
  const std::string text = read_file(dir_ / "a.raw");
  const std::regex header(
      "Title: layout\nDate: [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} \\d\\d:\\d\\d:\\d\\d  "
      "\\d{4}\nPlotname: Transient Analysis\nFlags: real\nNo. Variables: 3\nNo. Points: 2 *\n"
      "Variables:\n\t0\ttime\ttime\n\t1\tv\\(a\\)\tvoltage\n\t2\ti\\(l1\\)\tcurrent\nValues:\n"
      " 0\t0.0000000000000000e\\+00\n\t1.0000000000000000e\\+00\n\t-2.5000000000000000e\\+00\n"
      "\n 1\t9.9999999999999995e-07\n\t5.0000000000000000e-01\n\t2.5000000000000000e-01\n\n");
  EXPECT_TRUE(std::regex_match(text, header)) << text;
}

TEST_F(RawIo, AFileBeingWrittenIsValidAtEveryFlush) {
  // More than one 1 MiB buffer: the first flush has happened, the writer is still open.
  RawWriter w(true);
  ASSERT_TRUE(w.open((dir_ / "a.raw").string(), "partial", kNames));
  write_rows(w, 40000);
  std::string error;
  const auto partial = app::read_raw((dir_ / "a.raw").string(), error);
  ASSERT_TRUE(partial) << error;
  EXPECT_GT(partial->points(), 20000u);
  EXPECT_LE(partial->points(), 40000u);
  ASSERT_TRUE(w.close());
  const auto full = app::read_raw((dir_ / "a.raw").string(), error);
  ASSERT_TRUE(full) << error;
  EXPECT_EQ(full->points(), 40000u);
}

TEST_F(RawIo, ReadsNgspiceNamesAndCutFiles) {
  const std::string text =
      "Title: x\nDate: d\nPlotname: Transient Analysis\nFlags: real\nNo. Variables: 3\n"
      "No. Points: 3\nVariables:\n\t0\ttime\ttime\n\t1\tOut\tvoltage\n\t2\tv1#branch\tcurrent\n"
      "Values:\n 0\t0\n\t1\n\t2\n\n 1\t1e-6\n\t3\n\t4\n\n 2\t2e-6\n\t5\n";
  std::string error;
  const auto w = app::parse_raw(text, error);
  ASSERT_TRUE(w) << error;
  EXPECT_EQ(w->names, (std::vector<std::string>{"v(out)", "i(v1)"}));
  EXPECT_EQ(w->points(), 2u);  // the third point is cut short
  EXPECT_EQ(w->columns[1][1], 4.0);
  EXPECT_FALSE(app::parse_raw("not a raw file\n", error));
  EXPECT_NE(error.find("not a SPICE raw file"), std::string::npos);
}

TEST_F(RawIo, CsvReadsBack) {
  app::CsvWriter w;
  ASSERT_TRUE(w.open((dir_ / "a.csv").string(), "", {"v(a)", "i(d1)"}));
  w.row(0, std::vector<double>{1.0 / 3, -0.0});
  w.row(1e-6, std::vector<double>{2.5, 1e-300});
  ASSERT_TRUE(w.close());
  std::string error;
  const auto back = app::read_waveforms((dir_ / "a.csv").string(), error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->names, (std::vector<std::string>{"v(a)", "i(d1)"}));
  EXPECT_EQ(back->columns[0][0], 1.0 / 3);
  EXPECT_EQ(back->columns[1][1], 1e-300);
}

const char* kDescendingDc =
    "descending\nV1 in 0 0\nR1 in a 470\nD1 a 0 DX\nD2 0 a DX\nR2 a 0 10k\n"
    ".model DX D(IS=1e-14 N=1.0 RS=2)\n.dc V1 3 -3 -0.25\n.print dc v(a) i(v1)\n.end\n";
const char* kNestedDc =
    "nested\nV1 in 0 0\nR1 in out 100\nDZ 0 out ZM\nI1 out 0 0\n"
    ".model ZM D(VF=0.7 RON=0.5 BV=5.1 RZ=2)\n.dc V1 -5 12 0.5 I1 0 20m 10m\n.save v(out) i(v1)\n"
    ".end\n";

// A DC sweep's file is read whole, its raw file as its CSV: a descending sweep, and a nested one
// (the inner sweep starting again for each outer value) are one run each. Before, any decrease
// of the scale was taken for the start of an LTspice .step run and only the first "run" was
// read, without a word: 1 of the 25 points, 35 of the 105.
TEST_F(RawIo, DcSweepsAreReadWholeRawAsCsv) {
  write("desc.cir", kDescendingDc);
  write("nest.cir", kNestedDc);
  for (const auto& [name, points] : {std::pair{"desc", size_t{25}}, {"nest", size_t{105}}}) {
    SCOPED_TRACE(name);
    std::map<std::string, Waveforms> read;
    for (const char* format : {"csv", "raw", "rawascii"}) {
      const std::string file =
          fmt::format("{}_{}.{}", name, format, format[0] == 'c' ? "csv" : "raw");
      const auto r = nsspice(fmt::format("run {}.cir -o {} --format {} -q", name, file, format));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      std::string error;
      auto w = app::read_waveforms((dir_ / file).string(), error);
      ASSERT_TRUE(w) << error;
      EXPECT_EQ(w->points(), points) << format;
      EXPECT_EQ(w->scale, app::Scale::kSweep) << format;
      EXPECT_EQ(w->scale_unit, "V") << format;
      EXPECT_EQ(w->note, "") << format;
      read[format] = std::move(*w);
    }
    EXPECT_EQ(read["raw"].scale_name, "v(v-sweep)");
    EXPECT_EQ(read["csv"].scale_name, "v-sweep");
    for (const char* format : {"raw", "rawascii"}) {
      EXPECT_EQ(read[format].time, read["csv"].time) << format;
      for (size_t k = 0; k < read["csv"].names.size(); ++k) {
        std::string n = read["csv"].names[k];
        if (n.ends_with("-sweep")) n = "i(" + n + ")";  // the outer sweep's column
        const auto j = read[format].index(n);
        ASSERT_TRUE(j) << n;
        EXPECT_EQ(read[format].columns[*j], read["csv"].columns[k]) << format << " " << n;
      }
    }
  }
  EXPECT_EQ(read_file(dir_ / "desc_csv.csv").substr(0, 10), "v-sweep,v(");
}

// Several runs in one plot are split only where the file says so: ngspice's nested DC sweep
// (the scale starts again, no outer column) is one run; LTspice's stepped DC sweep ("stepped"
// among the Flags; descending here) starts a run where the scale is back at its first value; a
// time that goes back starts one. Whatever is left out is counted in the note.
TEST_F(RawIo, RunsAreSplitOnlyWhereTheFileHoldsSeveral) {
  auto plot = [](const std::string& plotname, const std::string& flags, const std::string& scale,
                 const std::vector<double>& x) {
    std::string text = fmt::format(
        "Title: x\nDate: d\nPlotname: {}\nFlags: {}\nNo. Variables: 2\nNo. Points: {}\n"
        "Variables:\n\t0\t{}\n\t1\tout\tvoltage\nValues:\n",
        plotname, flags, x.size(), scale);
    for (size_t i = 0; i < x.size(); ++i) text += fmt::format(" {}\t{}\n\t{}\n\n", i, x[i], i);
    return text;
  };
  std::string error;
  const auto nested = app::parse_raw(
      plot("DC transfer characteristic", "real", "v(v-sweep)\tvoltage", {-1, 0, 1, -1, 0, 1}),
      error);
  ASSERT_TRUE(nested) << error;
  EXPECT_EQ(nested->points(), 6u);
  EXPECT_EQ(nested->note, "");
  const auto stepped = app::parse_raw(
      plot("DC transfer characteristic", "real forward stepped", "V1\tvoltage", {3, 2, 1, 3, 2, 1}),
      error);
  ASSERT_TRUE(stepped) << error;
  EXPECT_EQ(stepped->time, (std::vector<double>{3, 2, 1}));
  EXPECT_EQ(stepped->note,
            "a stepped run of 2 runs: the first one is read (3 of 6 points; the other 3 left out)");
  const auto back = app::parse_raw(
      plot("Transient Analysis", "real", "time\ttime", {0, 1e-6, 2e-6, 0, 1e-6}), error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->points(), 3u);
  EXPECT_EQ(back->note,
            "a plot of 2 runs (the time goes back 1 time): the first one is read (3 of 5 points; "
            "the other 2 left out)");
}

// ngspice itself loads both kinds of file and prints the values we wrote.
TEST_F(RawIo, NgspiceLoadsOurFiles) {
  if (!have_ngspice()) GTEST_SKIP() << "ngspice is not on PATH";
  for (bool binary : {true, false}) {
    SCOPED_TRACE(binary ? "binary" : "ascii");
    RawWriter w(binary);
    ASSERT_TRUE(w.open((dir_ / "ours.raw").string(), "from nsspice", {"v(out)", "i(d1)"}));
    for (int i = 0; i < 50; ++i) w.row(i * 1e-5, std::vector<double>{std::sin(i * 0.1), -i * 1e-3});
    ASSERT_TRUE(w.close());
    write("load.cir",
          "load test\n.control\nset numdgt=16\nload ours.raw\nprint v(out)[7] i(d1)[49] "
          "time[49]\nlet n = length(time)\nprint n\n.endc\n.end\n");
    const CliRun r = run_shell("cd '" + dir_.string() + "' && ngspice -b load.cir");
    auto value = [&](const std::string& key) {
      const auto at = r.output.find(key + " = ");
      EXPECT_NE(at, std::string::npos) << key << " missing in:\n" << r.output;
      return at == std::string::npos ? NAN : std::stod(r.output.substr(at + key.size() + 3));
    };
    EXPECT_NEAR(value("v(out)[7]"), std::sin(0.7), 1e-15);
    EXPECT_NEAR(value("i(d1)[49]"), -49e-3, 1e-17);
    EXPECT_EQ(value("time[49]"), 49 * 1e-5);
    EXPECT_EQ(value("n"), 50);
  }
}

}  // namespace
}  // namespace nsspice::testing
