// The dialect corpus (tests/netlist/corpus/dialects/*): netlists written in the style ngspice,
// LTspice, KiCad and xschem users have, each with its expected outcome on comment lines:
//
//   * expect: run                  `nsspice run` exits 0 ...
//   * expect: exit N               ... or with status N
//   * expect: elaborates           parse + flatten + elaborate without errors (not run)
//   * expect-signals: a,b,...      the output file's columns, in order
//   * expect-max: SIG VALUE TOL    max of SIG over the run within TOL of VALUE
//   * expect-min: SIG VALUE TOL    min likewise
//   * expect-final: SIG VALUE TOL  SIG at the last row within TOL of VALUE
//   * expect-tran: TSTEP TSTOP     the elaborated .tran (SPICE numbers)
//   * expect-output: TEXT          TEXT appears in the diagnostics (file:line:col: ...)
//   * expect-no-output             no diagnostics at all
//   * expect-file: NAME            the output file is NAME (from a .control wrdata/write)
//   * ngspice-max: SIG TOL         ngspice -b on the same file: its max of SIG within TOL of ours
//                                  (skipped without ngspice); ngspice-min: its min likewise
//   * ngspice-init: LINE           a line of ngspice's .spiceinit for that run (set ngbehavior=ps)
//
// Every file of the directory must carry an "* expect:" line.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "app/cli/simulation.hpp"
#include "app/io/waveforms.hpp"
#include "app_test_helpers.hpp"
#include "netlist/units.hpp"

namespace nsspice::testing {
namespace {

fs::path dialects_dir() {
  return fs::path(NSSPICE_EXAMPLES_DIR) / ".." / "tests" / "netlist" / "corpus" / "dialects";
}

std::vector<std::string> corpus_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dialects_dir()))
    if (e.is_regular_file() && e.path().extension() != ".inc" && e.path().extension() != ".lib" &&
        e.path().extension() != ".txt")
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The values of the "* KEY: value" lines, in order.
std::vector<std::string> lines_of(const std::string& text, const std::string& key) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  const std::string prefix = "* " + key + ":";
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(prefix, 0) == 0) {
      std::string v = line.substr(prefix.size());
      v.erase(0, v.find_first_not_of(' '));
      out.push_back(v);
    }
  }
  return out;
}

double number(const std::string& s) {
  const auto v = netlist::parse_spice_number(s);
  EXPECT_TRUE(v) << s;
  return v.value_or(NAN);
}

double extreme(const app::Waveforms& w, const std::string& signal, bool max) {
  const auto k = w.index(signal);
  EXPECT_TRUE(k) << signal;
  if (!k || w.columns[*k].empty()) return NAN;
  const auto& c = w.columns[*k];
  return max ? *std::max_element(c.begin(), c.end()) : *std::min_element(c.begin(), c.end());
}

class DialectCorpus : public AppTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(DialectCorpus, OutcomeAsExpected) {
  const fs::path file = fs::absolute(dialects_dir() / GetParam());
  const std::string text = read_file(file);
  const auto expect = lines_of(text, "expect");
  ASSERT_EQ(expect.size(), 1u) << "one '* expect:' line in " << GetParam();
  const auto outputs = lines_of(text, "expect-output");
  if (expect[0] == "elaborates") {
    ::testing::internal::CaptureStderr();
    const auto loaded = app::load_netlist(file.string(), false);
    const std::string diagnostics = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(loaded) << diagnostics;
    for (const auto& o : outputs) EXPECT_NE(diagnostics.find(o), std::string::npos) << o;
    if (!lines_of(text, "expect-no-output").empty()) {
      EXPECT_EQ(diagnostics, "");
    }
    for (const auto& t : lines_of(text, "expect-tran")) {
      ASSERT_TRUE(loaded->circuit.tran);
      std::istringstream in(t);
      std::string tstep, tstop;
      in >> tstep >> tstop;
      EXPECT_EQ(loaded->circuit.tran->tstep, number(tstep));
      EXPECT_DOUBLE_EQ(loaded->circuit.tran->tstop, number(tstop));
    }
    return;
  }
  const int want_exit = expect[0] == "run" ? 0 : std::stoi(expect[0].substr(5));
  const auto files = lines_of(text, "expect-file");
  const std::string out_name = files.empty() ? "out.csv" : files[0];
  const CliRun r = nsspice("run '" + file.string() + "' -q" +
                           (files.empty() ? std::string(" -o out.csv") : std::string()));
  EXPECT_EQ(r.exit_code, want_exit) << r.output;
  for (const auto& o : outputs)
    EXPECT_NE(r.output.find(o), std::string::npos) << o << "\n" << r.output;
  if (!lines_of(text, "expect-no-output").empty()) {
    EXPECT_EQ(r.output, "");
  }
  if (want_exit != 0) {
    EXPECT_FALSE(fs::exists(dir_ / out_name));
    return;
  }
  std::string error;
  const auto w = app::read_waveforms((dir_ / out_name).string(), error);
  ASSERT_TRUE(w) << error << "\n" << r.output;
  for (const auto& s : lines_of(text, "expect-signals")) {
    std::vector<std::string> names;
    std::string cur;
    int depth = 0;
    for (char c : s + ",") {
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      if (c == ',' && depth == 0) {
        names.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    EXPECT_EQ(w->names, names);
  }
  for (const char* kind : {"expect-max", "expect-min"}) {
    for (const auto& m : lines_of(text, kind)) {
      std::istringstream in(m);
      std::string sig, value, tol;
      in >> sig >> value >> tol;
      EXPECT_NEAR(extreme(*w, sig, kind == std::string("expect-max")), number(value), number(tol))
          << kind << " " << m;
    }
  }
  for (const auto& m : lines_of(text, "expect-final")) {  // the value at the last row
    std::istringstream in(m);
    std::string sig, value, tol;
    in >> sig >> value >> tol;
    const auto k = w->index(sig);
    ASSERT_TRUE(k && !w->columns[*k].empty()) << sig;
    EXPECT_NEAR(w->columns[*k].back(), number(value), number(tol)) << "expect-final " << m;
  }
  // ngspice -b on the same file (with the "* ngspice-init:" lines as its .spiceinit, e.g. the
  // PSpice compatibility mode for vendor macromodels): its max / min of SIG within TOL of ours.
  if (const auto init = lines_of(text, "ngspice-init"); !init.empty()) {
    std::ofstream out(dir_ / ".spiceinit");
    for (const auto& line : init) out << line << "\n";
  }
  for (const char* kind : {"ngspice-max", "ngspice-min"}) {
    for (const auto& m : lines_of(text, kind)) {
      if (!have_ngspice()) GTEST_SKIP() << "ngspice is not on PATH";
      std::istringstream in(m);
      std::string sig, tol;
      in >> sig >> tol;
      if (!fs::exists(dir_ / "ng.raw")) {
        const CliRun ng =
            run_shell("cd '" + dir_.string() + "' && timeout 120 ngspice -b -r ng.raw '" +
                      file.string() + "'");
        ASSERT_TRUE(fs::exists(dir_ / "ng.raw")) << ng.output;
      }
      const auto ref = app::read_waveforms((dir_ / "ng.raw").string(), error);
      ASSERT_TRUE(ref) << error;
      const bool max = kind == std::string("ngspice-max");
      EXPECT_NEAR(extreme(*w, sig, max), extreme(*ref, sig, max), number(tol)) << kind << " " << m;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, DialectCorpus, ::testing::ValuesIn(corpus_files()),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.find('.'));
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(DialectCorpusSize, AtLeastFortyNetlists) { EXPECT_GE(corpus_files().size(), 40u); }

}  // namespace
}  // namespace nsspice::testing
