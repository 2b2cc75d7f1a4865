// The pieces of a sweep that are not runs: a run's record survives its bytes (the MPI message)
// bit for bit and a damaged message is refused; the histogram bins hold every value once with
// Rice's bin count; the summary's mean, standard deviation and yield against hand-computed
// values; the measurement table's rows, statuses and drawn values; a dimension that changes
// nothing is found.
#include "app/sweep/sweep_tables.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "app/sweep/run_record.hpp"

namespace nsspice::testing {
namespace {

app::RunRecord sample_record() {
  app::RunRecord r;
  r.ran = true;
  r.code = 2;
  r.message = "simulation stopped at t = 1e-3 s: \"d1\" ...";
  r.diagnostics = std::string("a.cir:3:1: error: x\n\0binary", 30);
  r.measures.push_back({"vavg", "avg v(out)", 0.1 + 0.2, std::nullopt, "V", ""});
  r.measures.push_back({"tr", "when v(out)=2.5", std::nullopt, std::nullopt, "s", "never"});
  r.measures.push_back(
      {"m", "max v(a)", -std::numeric_limits<double>::denorm_min(), 5e-324, "", ""});
  r.warnings = {"w1", ""};
  r.drawn = {{"rl", std::nextafter(100.0, 0.0)}, {"dm@d1.is", -0.0}};
  r.rows = 123456789012;
  r.t_end = std::nextafter(2e-3, 1.0);
  r.rows_hash = 0xfedcba9876543210ULL;
  return r;
}

TEST(RunRecord, SurvivesItsBytesBitForBit) {
  const app::RunRecord r = sample_record();
  const std::string bytes = app::encode(r);
  const auto back = app::decode(bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->ran, r.ran);
  EXPECT_EQ(back->code, r.code);
  EXPECT_EQ(back->message, r.message);
  EXPECT_EQ(back->diagnostics, r.diagnostics);
  ASSERT_EQ(back->measures.size(), r.measures.size());
  for (size_t k = 0; k < r.measures.size(); ++k) {
    EXPECT_EQ(back->measures[k].name, r.measures[k].name);
    EXPECT_EQ(back->measures[k].text, r.measures[k].text);
    EXPECT_EQ(back->measures[k].value.has_value(), r.measures[k].value.has_value());
    if (r.measures[k].value) {
      EXPECT_EQ(std::signbit(*back->measures[k].value), std::signbit(*r.measures[k].value));
    }
    EXPECT_EQ(back->measures[k].value, r.measures[k].value);
    EXPECT_EQ(back->measures[k].at, r.measures[k].at);
    EXPECT_EQ(back->measures[k].unit, r.measures[k].unit);
    EXPECT_EQ(back->measures[k].failure, r.measures[k].failure);
  }
  EXPECT_EQ(back->warnings, r.warnings);
  EXPECT_EQ(back->drawn, r.drawn);
  EXPECT_TRUE(std::signbit(back->drawn[1].second));
  EXPECT_EQ(back->rows_hash, r.rows_hash);
  EXPECT_EQ(back->rows, r.rows);
  EXPECT_EQ(back->t_end, r.t_end);
  EXPECT_EQ(app::encode(*back), bytes);
}

TEST(RunRecord, ADamagedMessageIsRefused) {
  const std::string bytes = app::encode(sample_record());
  for (size_t cut : {size_t{0}, size_t{7}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_FALSE(app::decode(bytes.substr(0, cut))) << "cut at " << cut;
  EXPECT_FALSE(app::decode(bytes + "x"));
  std::string huge = bytes;
  huge[23] = '\x7f';  // the message's length (its top byte): far beyond the buffer
  EXPECT_FALSE(app::decode(huge));
}

TEST(SweepTables, HistogramBinsEveryValueOnce) {
  std::vector<double> v;
  for (int k = 0; k < 1000; ++k) v.push_back(std::sin(k * 0.37) * 3 + 1);
  const auto h = app::histogram(v);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->counts.size(), 20u);  // ⌈2·1000^(1/3)⌉ = 20 (Rice)
  ASSERT_EQ(h->edges.size(), 21u);
  EXPECT_EQ(std::accumulate(h->counts.begin(), h->counts.end(), 0L), 1000);
  EXPECT_EQ(h->edges.front(), *std::min_element(v.begin(), v.end()));
  EXPECT_EQ(h->edges.back(), *std::max_element(v.begin(), v.end()));
  for (size_t b = 0; b < h->counts.size(); ++b) {  // each count is that of its interval
    const long in = std::count_if(v.begin(), v.end(), [&](double x) {
      return x >= h->edges[b] && (x < h->edges[b + 1] || b + 1 == h->counts.size());
    });
    EXPECT_NEAR(static_cast<double>(h->counts[b]), static_cast<double>(in), 1) << "bin " << b;
  }
  EXPECT_EQ(app::histogram({1, 2, 3})->counts.size(), 5u);  // at least 5 bins
  EXPECT_FALSE(app::histogram({2, 2, 2}));
  EXPECT_FALSE(app::histogram({}));
}

TEST(SweepTables, SummaryAndMeasurementTable) {
  std::vector<app::RunRecord> records(4);
  const double x[] = {1, 2, 4};
  for (int k = 0; k < 3; ++k) {
    records[k].ran = true;
    records[k].measures.push_back({"a", "", x[k], std::nullopt, "V", ""});
  }
  records[2].measures.push_back({"b", "", std::nullopt, std::nullopt, "", "never"});
  records[3].ran = true;
  records[3].code = 1;  // its netlist failed: no values, out of the yield
  std::string error;
  const auto spec = app::parse_spec("A 1.5 4", error);
  ASSERT_TRUE(spec) << error;
  const std::string table = app::summary_table(records, {*spec});
  // mean 7/3, s = √(((1 − 7/3)² + (2 − 7/3)² + (4 − 7/3)²)/2) = √(7/3); yield 2 of 4 runs.
  EXPECT_NE(table.find(fmt::format("{:>13.6g} {:>13.6g}", 7.0 / 3, std::sqrt(7.0 / 3))),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("50.0 %"), std::string::npos) << table;
  // A measurement without a value in a completed run: how many and why (it was only a smaller
  // count, or "0 ... nan" when it failed in every run).
  EXPECT_NE(table.find("\n  b failed in 1 of the 3 runs that completed: never\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("a failed"), std::string::npos) << table;
  std::string no_error;
  const auto runs = app::sweep_runs({}, 4, no_error);
  ASSERT_TRUE(runs);
  EXPECT_EQ(app::meas_csv({}, *runs, records, true),
            "run,trial,status,a,b\n1,1,ok,1,\n2,2,ok,2,\n3,3,ok,4,\n4,4,failed,,\n");
  // Drawn values: a column each, in order of first appearance, empty where a run has none.
  records[0].drawn = {{"rl", 101.5}, {"cf", 1e-6}};
  records[1].drawn = {{"rl", 98.25}, {"cf", 2e-6}};
  records[2].drawn = {{"rl", 99}, {"cf", 3e-6}};
  records[3].drawn = {{"rl", -3}};  // failed before drawing cf
  EXPECT_EQ(app::meas_csv({}, *runs, records, true),
            "run,trial,rl,cf,status,a,b\n1,1,101.5,1e-06,ok,1,\n2,2,98.25,2e-06,ok,2,\n"
            "3,3,99,3e-06,ok,4,\n4,4,-3,,failed,,\n");
  EXPECT_FALSE(app::parse_spec("a 2 1", error));
  EXPECT_NE(error.find("--spec 'a 2 1'"), std::string::npos) << error;
}

// A dimension whose runs (same trial, same other values) all have the same points is named;
// one where some pair differs is not; failed runs and single values are left out.
TEST(SweepTables, ADimensionThatChangesNothingIsNamed) {
  std::vector<app::SweepDimension> dims(2);
  dims[0].label = "a";
  dims[0].values = {1, 2};
  dims[1].label = "b";
  dims[1].values = {10, 20, 30};
  std::string error;
  const auto runs = app::sweep_runs(dims, 1, error);
  ASSERT_TRUE(runs) << error;
  std::vector<app::RunRecord> records(runs->size());
  for (std::size_t k = 0; k < records.size(); ++k) {
    records[k].ran = true;
    records[k].rows_hash = static_cast<std::uint64_t>((*runs)[k].values[0]);  // only a matters
  }
  auto warnings = app::no_effect_warnings(dims, *runs, records);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].substr(0, warnings[0].find(':', 10)),
            ".step b: the runs that differ only in b have the same waveforms, bit for bit (runs "
            "1 and 2");
  EXPECT_NE(warnings[0].find("b=10 and b=20"), std::string::npos) << warnings[0];
  records[5].rows_hash = 99;  // a=2, b=30 differs from a=2, b=10: b matters there
  EXPECT_TRUE(app::no_effect_warnings(dims, *runs, records).empty());
  records[5].code = 1;  // a failed run is no evidence either way
  EXPECT_EQ(app::no_effect_warnings(dims, *runs, records).size(), 1u);
  dims[1].values = {10};
  const auto one = app::sweep_runs(dims, 1, error);
  ASSERT_TRUE(one) << error;
  EXPECT_TRUE(app::no_effect_warnings(dims, *one, {records[0], records[3]}).empty());
}

}  // namespace
}  // namespace nsspice::testing
