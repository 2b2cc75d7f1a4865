// The files `compare --against` reads: LTspice raw files (written here in LTspice's layout, and
// typed byte by byte), ngspice raw files (typed by hand, binary and ASCII), tables with a time
// column, and the mapping of their signal names to nsspice's.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <regex>

#include "app/compare/peer_file.hpp"
#include "app/io/csv_reader.hpp"
#include "app/io/ltspice_raw.hpp"
#include "app/io/raw_reader.hpp"
#include "app/io/waveforms.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

// ---- an LTspice raw-file writer, from the format's description (app/io/ltspice_raw.hpp) ----

struct LtFile {
  bool utf16 = true;               // LTspice XVII and later; false: LTspice IV's 8-bit header
  bool double_values = false;      // Flags: double (every value a float64)
  bool fast_access = false;        // Flags: fastaccess (variable after variable)
  bool ascii = false;              // "Values:" instead of "Binary:"
  bool negate_some_times = false;  // compressed waveforms: some times written negative
  int runs = 1;                    // a stepped run: the points repeated per run
  std::string command = "Linear Technology Corporation LTspice XVII";
};

std::string utf16le(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    out += '\0';
  }
  return out;
}

template <class T>
void put(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof v);
  out.append(bytes, sizeof v);
}

// names/types as LTspice writes them ("V(out)" voltage, "I(L1)" device_current, ...).
std::string ltspice_raw(const std::vector<std::string>& names,
                        const std::vector<std::string>& types, const std::vector<double>& t,
                        const std::vector<std::vector<double>>& columns, const LtFile& f) {
  const size_t n = t.size() * static_cast<size_t>(f.runs);
  std::string flags = "real forward";
  if (f.double_values) flags += " double";
  if (f.fast_access) flags += " fastaccess";
  if (f.runs > 1) flags += " stepped";
  std::string header = "Title: * C:\\sims\\test.asc\nDate: Thu Nov 26 04:00:00 2025\n";
  header += "Plotname: Transient Analysis\nFlags: " + flags + "\n";
  header += fmt::format("No. Variables: {}\nNo. Points: {:>11}\n", names.size() + 1, n);
  header += "Offset:   0.0000000000000000e+000\nCommand: " + f.command + "\nVariables:\n";
  header += "\t0\ttime\ttime\n";
  for (size_t k = 0; k < names.size(); ++k)
    header += fmt::format("\t{}\t{}\t{}\n", k + 1, names[k], types[k]);
  auto time_at = [&](size_t i) {
    const double v = t[i % t.size()];
    return f.negate_some_times && i % 3 == 1 ? -v : v;
  };
  auto value_at = [&](size_t k, size_t i) { return columns[k][i % t.size()]; };
  std::string data;
  if (f.ascii) {
    for (size_t i = 0; i < n; ++i) {
      data += fmt::format("{}\t{:.17g}\n", i, time_at(i));
      for (size_t k = 0; k < names.size(); ++k) data += fmt::format("\t{:.17g}\n", value_at(k, i));
    }
    header += "Values:\n";
    return f.utf16 ? utf16le(header + data) : header + data;
  }
  header += "Binary:\n";
  auto value = [&](size_t k, size_t i) {
    if (f.double_values)
      put(data, value_at(k, i));
    else
      put(data, static_cast<float>(value_at(k, i)));
  };
  if (f.fast_access) {
    for (size_t i = 0; i < n; ++i) put(data, time_at(i));
    for (size_t k = 0; k < names.size(); ++k)
      for (size_t i = 0; i < n; ++i) value(k, i);
  } else {
    for (size_t i = 0; i < n; ++i) {
      put(data, time_at(i));
      for (size_t k = 0; k < names.size(); ++k) value(k, i);
    }
  }
  return (f.utf16 ? utf16le(header) : header) + data;
}

class LtspiceRaw : public AppTest {
 protected:
  // 200 points of an awkward time axis and three signals (one voltage, two currents).
  void SetUp() override {
    AppTest::SetUp();
    for (int i = 0; i < 200; ++i) {
      t_.push_back(i * 1e-6 / 7.0 + (i > 100 ? 1e-9 * i : 0));
      cols_[0].push_back(5 * std::sin(0.1 * i) + 1.0 / 3);
      cols_[1].push_back(-1e-3 * i);
      cols_[2].push_back(i % 9 == 0 ? -0.0 : 1e-12 * std::exp(0.05 * i));
    }
  }
  app::Waveforms read(const std::string& bytes, const std::string& name = "lt.raw") {
    write_bytes(name, bytes);
    std::string error;
    auto w = app::read_waveforms((dir_ / name).string(), error);
    EXPECT_TRUE(w) << error;
    return w ? *w : app::Waveforms{};
  }
  void write_bytes(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  // Times exact (float64 in every layout), values as stored (float32 unless double).
  void expect_same(const app::Waveforms& w, bool doubles) {
    ASSERT_EQ(w.names, (std::vector<std::string>{"v(out)", "i(l1)", "ix(u1:1)"}));
    ASSERT_EQ(w.points(), t_.size());
    for (size_t i = 0; i < t_.size(); ++i) {
      EXPECT_EQ(w.time[i], t_[i]) << i;
      for (size_t k = 0; k < 3; ++k) {
        const double want = doubles ? cols_[k][i] : static_cast<float>(cols_[k][i]);
        EXPECT_EQ(w.columns[k][i], want) << k << " at " << i;
      }
    }
  }
  std::string file(const LtFile& f) { return ltspice_raw(names_, types_, t_, cols_, f); }

  std::vector<std::string> names_ = {"V(out)", "I(L1)", "Ix(U1:1)"};
  std::vector<std::string> types_ = {"voltage", "device_current", "subckt_current"};
  std::vector<double> t_;
  std::vector<std::vector<double>> cols_ = std::vector<std::vector<double>>(3);
};

TEST_F(LtspiceRaw, Float32ValuesWithFloat64TimeRoundTrip) {
  const std::string bytes = file({});
  ASSERT_TRUE(app::is_utf16le(bytes));
  // 8 bytes of time and 4 per value: the layout the reader must pick.
  const std::string marker = utf16le("Binary:\n");
  EXPECT_EQ(bytes.size() - bytes.find(marker) - marker.size(), t_.size() * (8 + 3 * 4));
  expect_same(read(bytes), false);
}

TEST_F(LtspiceRaw, DoubleFlagFastAccessAndAsciiVariants) {
  {
    SCOPED_TRACE("double");
    expect_same(read(file({.double_values = true})), true);
  }
  {
    SCOPED_TRACE("fastaccess");
    expect_same(read(file({.fast_access = true})), false);
  }
  {
    SCOPED_TRACE("fastaccess double");
    expect_same(read(file({.double_values = true, .fast_access = true})), true);
  }
  {
    SCOPED_TRACE("ascii, UTF-16");
    expect_same(read(file({.ascii = true})), true);
  }
  {
    SCOPED_TRACE("LTspice IV: 8-bit header, float32 values");
    expect_same(read(file({.utf16 = false, .command = "Linear Technology Corporation LTspice IV"})),
                false);
  }
}

TEST_F(LtspiceRaw, CompressedFilesNegativeTimesAreTheirMagnitude) {
  const app::Waveforms w = read(file({.negate_some_times = true}));
  expect_same(w, false);
  EXPECT_TRUE(std::is_sorted(w.time.begin(), w.time.end()));
}

TEST_F(LtspiceRaw, SteppedRunsGiveTheFirstRunAndSaySo) {
  const app::Waveforms w = read(file({.runs = 3}));
  expect_same(w, false);
  EXPECT_NE(w.note.find("stepped run of 3 runs"), std::string::npos) << w.note;
}

TEST_F(LtspiceRaw, ACrashedRunGivesItsWholePoints) {
  std::string bytes = file({});
  bytes.resize(bytes.size() - 30);  // the last point and a half missing
  const app::Waveforms w = read(bytes);
  EXPECT_EQ(w.points(), t_.size() - 2);
  EXPECT_EQ(w.time.back(), t_[t_.size() - 3]);
}

// A header that promises more than the file holds (a crashed run, or a hostile file): the
// whole points there are, or none for a variable-after-variable file; never a read past the end.
TEST_F(LtspiceRaw, AHeaderPromisingHugeCountsReadsWhatIsThere) {
  for (const char* flags : {"real forward", "real forward fastaccess"}) {
    SCOPED_TRACE(flags);
    std::string header = std::string("Title: x\nDate: x\nPlotname: Transient Analysis\nFlags: ") +
                         flags +
                         "\nNo. Variables: 2\nNo. Points: 9223372036854775807\nCommand: "
                         "LTspice\nVariables:\n\t0\ttime\ttime\n\t1\tV(a)\tvoltage\nBinary:\n";
    std::string bytes = utf16le(header);
    for (int i = 0; i < 3; ++i) {
      put(bytes, i * 1e-3);
      put(bytes, static_cast<float>(i));
    }
    const app::Waveforms w = read(bytes, "huge.raw");
    EXPECT_EQ(w.points(), std::string(flags).find("fastaccess") != std::string::npos ? 0u : 3u);
  }
}

// Typed byte by byte, not written by the writer above: two variables, three points; the second
// time written negative as compression does; float32 1.5 = 00 00 C0 3F, -2 = 00 00 00 C0,
// 0.25 = 00 00 80 3E; float64 1e-3 = FC A9 F1 D2 4D 62 50 3F, 2e-3 = FC A9 F1 D2 4D 62 60 3F.
TEST_F(LtspiceRaw, AHandMadeFile) {
  const std::string header =
      "Title: * hand.asc\nDate: x\nPlotname: Transient Analysis\nFlags: real forward\n"
      "No. Variables: 2\nNo. Points: 3\nOffset: 0\nCommand: Linear Technology Corporation "
      "LTspice XVII\nVariables:\n\t0\ttime\ttime\n\t1\tV(a)\tvoltage\nBinary:\n";
  std::string bytes = "\xFF\xFE" + utf16le(header);  // with a byte-order mark
  const unsigned char data[] = {
      0,    0,    0,    0,    0,    0,    0,    0,     // t = 0
      0x00, 0x00, 0xC0, 0x3F,                          // 1.5f
      0xFC, 0xA9, 0xF1, 0xD2, 0x4D, 0x62, 0x50, 0xBF,  // t = -1e-3 (compressed)
      0x00, 0x00, 0x00, 0xC0,                          // -2.0f
      0xFC, 0xA9, 0xF1, 0xD2, 0x4D, 0x62, 0x60, 0x3F,  // t = 2e-3
      0x00, 0x00, 0x80, 0x3E,                          // 0.25f
  };
  bytes.append(reinterpret_cast<const char*>(data), sizeof data);
  const app::Waveforms w = read(bytes, "hand.raw");
  EXPECT_EQ(w.title, "* hand.asc");
  ASSERT_EQ(w.names, std::vector<std::string>{"v(a)"});
  EXPECT_EQ(w.time, (std::vector<double>{0, 1e-3, 2e-3}));
  EXPECT_EQ(w.columns[0], (std::vector<double>{1.5, -2, 0.25}));
}

// ngspice's binary layout typed by hand: every value a float64, point after point; a name
// "out" of type voltage and a branch "v1#branch".
TEST(NgspiceRaw, AHandMadeBinaryFile) {
  std::string bytes =
      "Title: hand\nDate: x\nPlotname: Transient Analysis\nFlags: real\nNo. Variables: 3\n"
      "No. Points: 2\nVariables:\n\t0\ttime\ttime\n\t1\tout\tvoltage\n\t2\tv1#branch\tcurrent\n"
      "Binary:\n";
  for (double v : {0.0, 1.0, -1e-3, 1e-6, 2.0, -2e-3}) put(bytes, v);
  std::string error;
  const auto w = app::parse_raw(bytes, error);
  ASSERT_TRUE(w) << error;
  EXPECT_EQ(w->names, (std::vector<std::string>{"v(out)", "i(v1)"}));
  EXPECT_EQ(w->time, (std::vector<double>{0, 1e-6}));
  EXPECT_EQ(w->columns[1], (std::vector<double>{-1e-3, -2e-3}));
  EXPECT_TRUE(w->note.empty());
}

class Tables : public AppTest {};

TEST_F(Tables, TabSemicolonAndATimeColumnAnywhere) {
  write("lt.txt", "time\tV(out)\tI(R1)\n0.000000000000000e+000\t1.5\t-2e-3\n1e-6\t2.5\t3e-3\n");
  write("semi.csv", "V(a);Time;I(L1)\n1;0;2\n3;1e-3;4\n");
  write("spaced.csv", "time, v(a) ,i(d1)\n0, 1, 2\n1e-3 , 3 ,4\n");
  std::string error;
  const auto lt = app::read_csv((dir_ / "lt.txt").string(), error);
  ASSERT_TRUE(lt) << error;
  EXPECT_EQ(lt->names, (std::vector<std::string>{"v(out)", "i(r1)"}));
  EXPECT_EQ(lt->time, (std::vector<double>{0, 1e-6}));
  EXPECT_EQ(lt->columns[1], (std::vector<double>{-2e-3, 3e-3}));
  const auto semi = app::read_csv((dir_ / "semi.csv").string(), error);
  ASSERT_TRUE(semi) << error;
  EXPECT_EQ(semi->names, (std::vector<std::string>{"v(a)", "i(l1)"}));
  EXPECT_EQ(semi->time, (std::vector<double>{0, 1e-3}));
  EXPECT_EQ(semi->columns[0], (std::vector<double>{1, 3}));
  EXPECT_EQ(semi->columns[1], (std::vector<double>{2, 4}));
  const auto spaced = app::read_csv((dir_ / "spaced.csv").string(), error);
  ASSERT_TRUE(spaced) << error;
  EXPECT_EQ(spaced->names, (std::vector<std::string>{"v(a)", "i(d1)"}));
  EXPECT_EQ(spaced->columns[1], (std::vector<double>{2, 4}));
  write("bad.csv", "time,v(a)\n0,1\n1e-3,x\n");
  EXPECT_FALSE(app::read_csv((dir_ / "bad.csv").string(), error));
  EXPECT_NE(error.find("bad.csv':3: expected 2 numbers"), std::string::npos) << error;
}

TEST(PeerNames, MappedToNsspicesSpelling) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"V(out)", "v(out)"},
      {"v( OUT )", "v(out)"},
      {"I(L1)", "i(l1)"},
      {"v1#branch", "i(v1)"},
      {"V1#branch", "i(v1)"},
      {"@d1[id]", "i(d1)"},
      {"@R1[i]", "i(r1)"},
      {"i(v.x1.vs)", "i(x1.vs)"},
      {"v.x1.vs#branch", "i(x1.vs)"},
      {"V(x1:n3)", "v(x1.n3)"},
      {"I(X1:R1)", "i(x1.r1)"},
      {"I(R1:X1)", "i(x1.r1)"},
      {"V(x2:x1:n3)", "v(x2.x1.n3)"},
      {"Ix(U1:1)", "ix(u1:1)"},
      {"V(a,b)", "v(a,b)"},
      {"x1.n3", "x1.n3"},
  };
  for (const auto& [file, nsspice] : cases) EXPECT_EQ(app::map_peer_name(file), nsspice) << file;
}

TEST_F(Tables, PeerFileMapsNamesAndListsTheUnmatched) {
  write("peer.csv", "time,V(OUT),v1#branch,Ix(U1:1),in\n0,1,2,3,4\n1e-3,5,6,7,8\n");
  const std::vector<std::string> ns = {"v(in)", "v(out)", "i(v1)", "i(m1)"};
  std::string error;
  auto plain = app::read_peer_file((dir_ / "peer.csv").string(), ns, {}, error);
  ASSERT_TRUE(plain) << error;
  EXPECT_EQ(plain->data.names, (std::vector<std::string>{"v(out)", "i(v1)", "ix(u1:1)", "v(in)"}));
  EXPECT_EQ(plain->unmatched, std::vector<std::string>{"ix(u1:1)"});
  const auto m = app::parse_map(" Ix(U1:1) = I(M1) ");
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, (std::pair<std::string, std::string>{"ix(u1:1)", "i(m1)"}));
  auto mapped = app::read_peer_file((dir_ / "peer.csv").string(), ns, {*m}, error);
  ASSERT_TRUE(mapped) << error;
  EXPECT_EQ(mapped->data.names[2], "i(m1)");
  EXPECT_TRUE(mapped->unmatched.empty());
  EXPECT_FALSE(app::parse_map("i(m1)"));
  EXPECT_FALSE(app::parse_map("=i(m1)"));
  write("empty.csv", "time,v(a)\n");
  EXPECT_FALSE(app::read_peer_file((dir_ / "empty.csv").string(), ns, {}, error));
  EXPECT_NE(error.find("holds no time points"), std::string::npos) << error;
}

// nsspice's run of examples/rectifier.cir, the reference a file is compared with.
class CompareAgainst : public AppTest {
 protected:
  const std::string netlist = std::string(NSSPICE_EXAMPLES_DIR) + "/rectifier.cir";
  std::optional<app::Waveforms> reference(const std::string& file, const std::string& save) {
    EXPECT_EQ(nsspice("run " + netlist + " -o " + file + " --save '" + save + "'").exit_code, 0);
    std::string error;
    auto w = app::read_waveforms((dir_ / file).string(), error);
    EXPECT_TRUE(w) << error;
    return w;
  }
};

// `compare --against`: nsspice's own run written as an LTspice file (float32 values, LTspice's
// names, compressed negative times) agrees with nsspice to float32 precision; a file that ends
// early is a failure (exit 5), said first, with the table over the common interval only.
TEST_F(CompareAgainst, AnLtspiceFileOfTheSameRun) {
  const auto ref = reference("ref.raw", "v(in),v(out),i(d1)");
  ASSERT_EQ(ref->names, (std::vector<std::string>{"v(in)", "v(out)", "i(d1)"}));
  const std::vector<std::string> names = {"V(in)", "V(OUT)", "I(D1)", "Ix(U1:1)"};
  const std::vector<std::string> types = {"voltage", "voltage", "device_current", "subckt_current"};
  std::vector<std::vector<double>> cols = ref->columns;
  cols.push_back(std::vector<double>(ref->points(), 0.0));
  std::ofstream(dir_ / "lt.raw", std::ios::binary)
      << ltspice_raw(names, types, ref->time, cols, {.negate_some_times = true});
  const CliRun r = nsspice("compare " + netlist + " -d out --against lt.raw");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("question   how far is nsspice from a waveform produced elsewhere?"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("no nsspice signal of that name (map them with --map "
                          "'FILE_NAME=NSSPICE_NAME'): ix(u1:1)"),
            std::string::npos)
      << r.output;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(r.output, m, std::regex("verdict: agree within ([0-9.e-]+) % \\([^\n]*\n")))
      << r.output;
  EXPECT_LT(std::stod(m[1]), 1e-4);  // float32: 6e-8 relative
  EXPECT_EQ(m.str().find("slower"), std::string::npos) << "no wall time for a file";
  // The same file cut at a third of the run.
  std::vector<double> t(ref->time.begin(), ref->time.begin() + ref->points() / 3);
  for (auto& c : cols) c.resize(t.size());
  std::ofstream(dir_ / "short.raw", std::ios::binary) << ltspice_raw(names, types, t, cols, {});
  const CliRun s = nsspice("compare " + netlist + " -d short --against short.raw");
  EXPECT_EQ(s.exit_code, 5) << s.output;
  EXPECT_TRUE(std::regex_search(
      s.output, std::regex("compare: [^\n]*\n  FAILED     file did not reach TSTOP = 60 ms")))
      << s.output;
  EXPECT_NE(s.output.find("ONLY: file stopped at"), std::string::npos) << s.output;
  EXPECT_NE(s.output.find("verdict: the file FAILED"), std::string::npos) << s.output;
}

TEST_F(CompareAgainst, ATabSeparatedExport) {
  const auto ref = reference("ref.csv", "v(out),i(d1)");
  ASSERT_EQ(ref->names, (std::vector<std::string>{"v(out)", "i(d1)"}));
  std::string tsv = "time\tV(out)\tI(D1)\n";
  for (size_t i = 0; i < ref->points(); ++i)
    tsv += fmt::format("{:.17g}\t{:.17g}\t{:.17g}\n", ref->time[i], ref->columns[0][i],
                       1.01 * ref->columns[1][i]);  // a diode current 1 % larger
  write("export.txt", tsv);
  const CliRun r = nsspice("compare " + netlist + " -d out --against export.txt");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // max|err| and the ripple's difference: 1 % of the peak; the average's: 1 % of the average.
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n  i\\(d1\\) [^\n]+ 1\\.00e-02 ")))
      << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n  i\\(d1\\) [^\n]+ 1 %\n"))) << r.output;
  EXPECT_NE(r.output.find("ripples within 1 % (i(d1))"), std::string::npos) << r.output;
}

// A --grid coarser than half the sources' period samples a few phases of each period: the
// max|err| table misses the edges and the ripple (a buck's v(sw) 12.5 V apart on both runs'
// samples was 42.5 mV apart on --grid 1m) and said nothing. Now a note says so.
TEST_F(CompareAgainst, AGridCoarserThanThePeriodIsNoted) {
  const auto ref = reference("ref.csv", "v(out),i(d1)");
  ASSERT_TRUE(ref);
  std::string csv = "time,v(out),i(d1)\n";
  for (size_t i = 0; i < ref->points(); ++i)
    csv += fmt::format("{:.17g},{:.17g},{:.17g}\n", ref->time[i], ref->columns[0][i],
                       1.01 * ref->columns[1][i]);
  write("peer.csv", csv);
  CliRun r = nsspice("compare " + netlist + " -d out --against peer.csv --grid 15m");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--grid 15 ms is coarser than half the period of v1 (20 ms): the time "
                          "base (5 points) cannot resolve a period"),
            std::string::npos)
      << r.output;
  r = nsspice("compare " + netlist + " -d out2 --against peer.csv --grid 1m");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("cannot resolve a period"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace nsspice::testing
