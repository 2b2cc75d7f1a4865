// The command line as a user meets it: bad input gives its own clear message, a non-zero exit
// code and no output file; a good run writes the CSV with the documented header.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace nsspice::testing {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code;
  std::string output;  // stdout + stderr
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("nsspice_cli_" + std::to_string(::getpid()) + "_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  CliRun run(const std::string& args) {
    const std::string cmd =
        "cd '" + dir_.string() + "' && '" + NSSPICE_BINARY + "' " + args + " 2>&1";
    CliRun r{0, {}};
    FILE* pipe = popen(cmd.c_str(), "r");
    std::array<char, 4096> buf{};
    while (size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }
  // Runs a bad netlist; checks the failure and that no CSV was written.
  CliRun fails(const std::string& netlist_text) {
    write("bad.cir", netlist_text);
    CliRun r = run("run bad.cir -o out.csv");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "out.csv")) << "no output file on bad input";
    return r;
  }
  fs::path dir_;
};

TEST_F(Cli, HelpAndVersion) {
  CliRun r = run("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("run"), std::string::npos);
  r = run("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("nsspice 0."), std::string::npos) << r.output;
}

TEST_F(Cli, MissingFile) {
  const CliRun r = run("run nowhere.cir -o out.csv");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("cannot open netlist 'nowhere.cir'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out.csv"));
}

TEST_F(Cli, SyntaxErrorPointsAtTheToken) {
  const CliRun r = fails("title\nV1 a 0 1\nC1 a 0 abc\nR1 a 0 1k\n.tran 1u 1m\n.end\n");
  EXPECT_NE(
      r.output.find("bad.cir:3:8: error: expected a number, got 'abc'\nC1 a 0 abc\n       ^~~"),
      std::string::npos)
      << r.output;
  // On a resistor a word is a model name (ngspice's "R1 a b rmod"): no such model.
  const CliRun m = fails("title\nV1 a 0 1\nR1 a 0 abc\n.tran 1u 1m\n.end\n");
  EXPECT_NE(m.output.find("bad.cir:3:8: error: 'abc' of resistor 'r1' is neither a number nor a "
                          "model name\nR1 a 0 abc\n       ^~~"),
            std::string::npos)
      << m.output;
}

TEST_F(Cli, UnknownElementLetter) {
  const CliRun r = fails("title\nV1 a 0 1\nJ1 a b c JMOD\nR1 a 0 1k\n.tran 1u 1m\n.end\n");
  EXPECT_NE(r.output.find("bad.cir:3:1: error: unsupported element type 'J' (element 'J1'): "
                          "JFETs are not supported"),
            std::string::npos)
      << r.output;
}

TEST_F(Cli, UnknownModelSuggestsTheNearestOne) {
  const CliRun r =
      fails("title\nV1 a 0 1\nD1 a b DIDEAL\nR1 b 0 1k\n.model DIDEEL D\n.tran 1u 1m\n.end\n");
  EXPECT_NE(
      r.output.find(
          "bad.cir:3:8: error: unknown model 'DIDEAL' for diode 'd1' (did you mean 'dideel'?)"),
      std::string::npos)
      << r.output;
}

TEST_F(Cli, MissingTran) {
  const CliRun r = fails("title\nV1 a 0 1\nR1 a 0 1k\n.end\n");
  EXPECT_NE(r.output.find("error: 'bad.cir' has no analysis card (.tran, .op, .dc, .ac or .pss): "
                          "nothing to simulate"),
            std::string::npos)
      << r.output;
}

TEST_F(Cli, NegativeResistance) {
  const CliRun r = fails("title\nV1 a 0 1\nR1 a 0 -5\n.tran 1u 1m\n.end\n");
  EXPECT_NE(
      r.output.find("bad.cir:3:8: error: resistor 'r1' must have a positive value in ohms, got -5"),
      std::string::npos)
      << r.output;
}

TEST_F(Cli, AllErrorsOfAFileInOneRun) {
  const CliRun r = fails("title\nR1 a 0 -5\nR2 a 0 abc\nD1 a 0 NOPE\n.tran 1u 1m\n.end\n");
  EXPECT_NE(r.output.find(":2:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(":3:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(":4:"), std::string::npos) << r.output;
}

TEST_F(Cli, RunWritesTheDocumentedCsv) {
  write("rect.cir",
        "rectifier\nV1 in 0 SIN(0 10 50)\nD1 in out DI\nC1 out 0 10u\nR1 out 0 1k\n.model DI "
        "D\n.tran 100u 20m\n.end\n");
  const CliRun r = run("run rect.cir -o rect.csv --plot rect.png --signals 'v(out),i(d1)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(dir_ / "rect.csv");
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "time,v(in),v(out),i(v1),i(d1)");
  // TSTEP = 100 µs is the print interval: every multiple of it is a row (dense output), besides
  // the points the error control chose, so no gap exceeds TSTEP.
  std::vector<double> times;
  std::string line;
  while (std::getline(in, line)) times.push_back(std::stod(line.substr(0, line.find(','))));
  ASSERT_GE(times.size(), 201u);
  EXPECT_DOUBLE_EQ(times.front(), 0.0);
  EXPECT_NEAR(times.back(), 20e-3, 1e-15);
  int on_grid = 0;
  for (size_t k = 1; k < times.size(); ++k) {
    EXPECT_GT(times[k], times[k - 1]);
    EXPECT_LE(times[k] - times[k - 1], 100e-6 * (1 + 1e-9));
    const double n = times[k] / 100e-6;
    if (std::abs(n - std::round(n)) < 1e-6) ++on_grid;
  }
  EXPECT_EQ(on_grid, 200);
  EXPECT_NE(r.output.find("run report"), std::string::npos);
  EXPECT_NE(r.output.find("steps"), std::string::npos);
  ASSERT_TRUE(fs::exists(dir_ / "rect.png"));
  std::ifstream png(dir_ / "rect.png", std::ios::binary);
  char magic[4] = {};
  png.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

// LTspice's `.tran TSTOP` and `.tran 0 TSTOP 0 TMAX` run as written: the print interval is a
// 1000th of the run, TMAX caps the error-controlled step, and the report says so. A circuit
// without a state is solved at the print times (or TMAX) themselves.
TEST_F(Cli, LtspiceTranFormsRun) {
  write("lt1.cir", "lt\nV1 a 0 SINE(0 1 100)\nR1 a 0 1k\nC1 a b 1u\nR2 b 0 1k\n.tran 30m\n.end\n");
  const CliRun r1 = run("run lt1.cir -o lt1.csv");
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  EXPECT_NE(r1.output.find("step choice        error control"), std::string::npos) << r1.output;
  std::ifstream csv(dir_ / "lt1.csv");
  std::string line;
  std::getline(csv, line);  // header
  std::vector<double> times;
  while (std::getline(csv, line)) times.push_back(std::stod(line.substr(0, line.find(','))));
  EXPECT_GE(times.size(), 1001u);  // every 30 µs, and the accepted points
  for (size_t k = 1; k < times.size(); ++k) EXPECT_LE(times[k] - times[k - 1], 30e-6 * 1.0001);
  write("lt2.cir",
        "lt\nV1 a 0 SINE(0 1 100)\nR1 a 0 1k\nC1 a b 1u\nR2 b 0 1k\n.tran 0 30m 0 1u\n.end\n");
  const CliRun r2 = run("run lt2.cir -o lt2.csv");
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_NE(r2.output.find("h <= 1e-06 s (TMAX)"), std::string::npos) << r2.output;
  write("lt3.cir", "lt\nV1 a 0 SINE(0 1 100)\nR1 a 0 1k\n.tran 30m\n.end\n");
  const CliRun r3 = run("run lt3.cir -o lt3.csv");
  ASSERT_EQ(r3.exit_code, 0) << r3.output;
  EXPECT_NE(r3.output.find("fixed h = 3e-05 s (no capacitor or inductor: every print time solved "
                           "exactly)"),
            std::string::npos)
      << r3.output;
  EXPECT_NE(r3.output.find("(1001 rows)"), std::string::npos) << r3.output;
}

TEST_F(Cli, AFailedRunNamesTheDeviceAndKeepsTheValidRows) {
  // At t = 1 ms the source forward-biases an ideal diode directly: no current can satisfy it.
  write("f.cir",
        "fail\nV1 a 0 PULSE(-1 1 1m 1u 1u 1 2)\nD1 a 0 DI\nR1 a 0 1k\n.model DI D\n.tran 10u "
        "2m\n.end\n");
  const CliRun r = run("run f.cir -o f.csv --step 10u");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("simulation stopped: at t = 0.001001 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(devices: d1)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'f.csv' holds the 101 valid rows computed up to t = 0.001 s"),
            std::string::npos)
      << r.output;
  std::ifstream in(dir_ / "f.csv");
  std::string line, last;
  int rows = -1;
  while (std::getline(in, line)) {
    last = line;
    ++rows;
  }
  EXPECT_EQ(rows, 101);
  EXPECT_EQ(last, "0.001,-1,0.001,0");
}

// With error control a step whose mode iteration fails is cut to a quarter until the floor step;
// the error then says how far it was cut, so that a "singular" verdict is not read as one try's.
// Here an ideal switch closes a loop of two voltage sources (the elaborator warns beforehand).
TEST_F(Cli, AStepThatFailsAtEverySizeSaysHowFarItWasCut) {
  write("loop.cir",
        "loop\nV1 a 0 1\nV2 b 0 2\nVC c 0 PULSE(0 1 1m 1u 1u 1 2)\nS1 a b c 0 SWI\n"
        ".model SWI SW(VT=0.5 RON=0 ROFF=1meg)\nR1 a 0 1k\nC1 b 0 1u\n.tran 10u 2m\n.end\n");
  const CliRun r = run("run loop.cir -o loop.csv");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the circuit equations are singular in every mode tried"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("(the step from t was tried 13 times, h from 5e-07 s down to the floor "
                          "3.2e-14 s)"),
            std::string::npos)
      << r.output;
}

TEST_F(Cli, UnknownPlotSignal) {
  write("rect.cir", "r\nV1 in 0 1\nR1 in 0 1k\n.tran 1u 10u\n.end\n");
  const CliRun r = run("run rect.cir -o rect.csv --plot p.png --signals 'v(ni)'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("unknown signal 'v(ni)' in --signals (did you mean 'v(in)'?)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "rect.csv"));
}

// ---- hostile input (issue 16): exit 1, the message, no output file ----

TEST_F(Cli, NetlistOrIncludeThatIsADeviceIsRefused) {
  CliRun r = run("run /dev/zero -o out.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: cannot open netlist '/dev/zero': not a regular file (a "
                          "character device)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out.csv"));
  write("inc.cir", "t\n.include /dev/zero\nR1 a 0 1\n.tran 1u 1m\n");
  r = run("run inc.cir -o out.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("inc.cir:2:10: error: cannot open include file '/dev/zero': not a "
                          "regular file (a character device)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out.csv"));
}

TEST_F(Cli, ExpansionBombIsRefusedBeforeExpanding) {
  std::string text = "bomb\n.subckt l0 a b\nR1 a b 1\n.ends\n";
  for (int l = 1; l <= 8; ++l) {
    text += fmt::format(".subckt l{} a b\n", l);
    for (int k = 0; k < 10; ++k) text += fmt::format("X{} a b l{}\n", k, l - 1);
    text += ".ends\n";
  }
  text += "X0 in 0 l8\nV1 in 0 1\n.tran 1u 1m\n";
  const CliRun r = fails(text);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("bad.cir:101:1: error: the flattened netlist would have more than "
                          "10000000 elements; nothing was expanded"),
            std::string::npos)
      << r.output;
}

TEST_F(Cli, NulByteInANodeNameIsAnError) {
  const CliRun r = fails(std::string("t\nV1 a\0b 0 1\nR1 a 0 1\n.tran 1u 10u\n", 35));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("bad.cir:2:5: error: control character 0x00 in 'a\\x00b'"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find('\0'), std::string::npos);  // the echoed line shows '?'
}

TEST_F(Cli, ContradictoryCapacitorIcsWarnAndJumpToTheWarnedVoltage) {
  write("caps.cir", "t\nC1 out 0 1u IC=1\nC2 out 0 1u IC=2\nR1 out 0 1k\n.tran 1u 5u UIC\n");
  const CliRun r = run("run caps.cir -o caps.csv -q");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("caps.cir:2:1: warning: contradictory initial conditions (UIC) around "
                          "the loop c1 IC=1 V, c2 IC=2 V"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("c1 1 V -> 1.5 V, c2 2 V -> 1.5 V"), std::string::npos) << r.output;
  std::ifstream in(dir_ / "caps.csv");
  std::string header, row0, row1;
  std::getline(in, header);
  std::getline(in, row0);
  std::getline(in, row1);
  EXPECT_EQ(header, "time,v(out)");
  // After one step of 1 µs the 1 kΩ has drained 1.5 V · (1 − e^(−1µ/2m)) ≈ 0.75 mV.
  const double v1 = std::stod(row1.substr(row1.find(',') + 1));
  EXPECT_NEAR(v1, 1.5, 1e-3) << row1;
}

}  // namespace
}  // namespace nsspice::testing
