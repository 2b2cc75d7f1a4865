// The command line as a user meets it: bad input gives its own clear message, a non-zero exit
// code and no output file; a good run writes the CSV with the documented header.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

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
  const CliRun r = fails("title\nV1 a 0 1\nR1 a 0 abc\n.tran 1u 1m\n.end\n");
  EXPECT_NE(
      r.output.find("bad.cir:3:8: error: expected a number, got 'abc'\nR1 a 0 abc\n       ^~~"),
      std::string::npos)
      << r.output;
}

TEST_F(Cli, UnknownElementLetter) {
  const CliRun r = fails("title\nV1 a 0 1\nQ1 a b c QMOD\nR1 a 0 1k\n.tran 1u 1m\n.end\n");
  EXPECT_NE(r.output.find("bad.cir:3:1: error: unsupported element type 'Q' (element 'Q1'): "
                          "bipolar transistors are not supported"),
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
  EXPECT_NE(r.output.find("error: 'bad.cir' has no .tran card: nothing to simulate"),
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
  int rows = 0;
  std::string line;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 201);  // t = 0 and 200 steps
  EXPECT_NE(r.output.find("run report"), std::string::npos);
  EXPECT_NE(r.output.find("steps"), std::string::npos);
  ASSERT_TRUE(fs::exists(dir_ / "rect.png"));
  std::ifstream png(dir_ / "rect.png", std::ios::binary);
  char magic[4] = {};
  png.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

TEST_F(Cli, AFailedRunNamesTheDeviceAndKeepsTheValidRows) {
  // At t = 1 ms the source forward-biases an ideal diode directly: no current can satisfy it.
  write("f.cir",
        "fail\nV1 a 0 PULSE(-1 1 1m 1u 1u 1 2)\nD1 a 0 DI\nR1 a 0 1k\n.model DI D\n.tran 10u "
        "2m\n.end\n");
  const CliRun r = run("run f.cir -o f.csv");
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

TEST_F(Cli, UnknownPlotSignal) {
  write("rect.cir", "r\nV1 in 0 1\nR1 in 0 1k\n.tran 1u 10u\n.end\n");
  const CliRun r = run("run rect.cir -o rect.csv --plot p.png --signals 'v(ni)'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("unknown signal 'v(ni)' in --signals (did you mean 'v(in)'?)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "rect.csv"));
}

}  // namespace
}  // namespace nsspice::testing
