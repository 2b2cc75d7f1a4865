#pragma once
// Shared by the app tests: a scratch directory per test, the nsspice binary run through a
// shell, small file helpers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace nsspice::testing {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code;
  std::string output;  // stdout + stderr
};

inline CliRun run_shell(const std::string& cmd) {
  CliRun r{0, {}};
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf{};
  while (size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline bool have_ngspice() { return run_shell("command -v ngspice").exit_code == 0; }

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The lines of `text` (a CSV file, a run's output), without their '\n'.
inline std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class AppTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // Parameterized names hold '/' ("Files/DialectCorpus..."): one directory, not a nest whose
    // parent would be left behind.
    std::string name = std::string("nsspice_app_") + std::to_string(::getpid()) + "_" +
                       info->test_suite_name() + "_" + info->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = fs::temp_directory_path() / name;
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  CliRun nsspice(const std::string& args) {
    return run_shell("cd '" + dir_.string() + "' && '" + NSSPICE_BINARY + "' " + args);
  }
  fs::path dir_;
};

// "name = value" lines of ngspice's .meas output or nsspice's measurement report.
inline std::map<std::string, double> measures(const std::string& text) {
  std::map<std::string, double> out;
  static const std::regex line(R"(^\s*([a-z0-9]+)\s*=\s*([-+0-9.eE]+))");
  std::istringstream in(text);
  for (std::string s; std::getline(in, s);) {
    std::smatch m;
    if (std::regex_search(s, m, line)) out[m[1]] = std::stod(m[2]);
  }
  return out;
}

}  // namespace nsspice::testing
