// Every netlist in examples/ must also run in ngspice unchanged: `ngspice -b FILE` exits with
// status 0 and prints no line containing "error" (any case). Skipped when ngspice is not on
// PATH. ngspice's own warnings (e.g. "unrecognized parameter (vf) - ignored" for the ideal
// diode parameters of nsspice) are allowed; docs/netlist.md lists what ngspice makes of them.
// The one exception: an example that uses a device ngspice has no counterpart for (the ideal
// comparator, `E ... COMPMODEL`) says so on a line "* nsspice-only: <why>" and is not run here;
// `nsspice compare` translates it to a behavioural source instead. An example on which ngspice
// itself gives up numerically says so on a line "* ngspice-fails: <message>": ngspice must
// then parse it (no "Error on line") and stop with exactly that message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "netlist/src/lines.hpp"

namespace nsspice::netlist {
namespace {

bool ngspice_available() { return std::system("command -v ngspice >/dev/null 2>&1") == 0; }

// Runs the command in `dir`; returns its exit status and fills `output` (stdout + stderr).
int run(const std::string& command, std::string& output) {
  std::FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(NetlistNgspice, ExamplesRunInNgspice) {
  if (!ngspice_available()) GTEST_SKIP() << "ngspice is not on PATH";
  const auto tmp = std::filesystem::temp_directory_path() /
                   ("nsspice_ngspice_examples_" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(NSSPICE_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".cir") continue;
    std::string text;
    if (std::FILE* f = std::fopen(entry.path().c_str(), "r")) {
      std::array<char, 4096> line{};
      while (std::fgets(line.data(), line.size(), f) != nullptr) text += line.data();
      std::fclose(f);
    }
    if (text.find("\n* nsspice-only:") != std::string::npos) continue;
    ++count;
    if (const auto at = text.find("\n* ngspice-fails: "); at != std::string::npos) {
      const auto from = at + std::string("\n* ngspice-fails: ").size();
      const std::string expected = text.substr(from, text.find('\n', from) - from);
      std::string output;
      run("cd '" + tmp.string() + "' && timeout 120 ngspice -b '" +
              std::filesystem::absolute(entry.path()).string() + "'",
          output);
      EXPECT_EQ(output.find("Error on line"), std::string::npos) << entry.path() << "\n" << output;
      EXPECT_NE(output.find(expected), std::string::npos) << entry.path() << "\n" << output;
      continue;
    }
    std::string output;
    const int status = run("cd '" + tmp.string() + "' && timeout 120 ngspice -b '" +
                               std::filesystem::absolute(entry.path()).string() + "'",
                           output);
    EXPECT_EQ(status, 0) << entry.path() << "\n" << output;
    EXPECT_EQ(detail::ascii_lower(output).find("error"), std::string::npos) << entry.path() << "\n"
                                                                            << output;
  }
  EXPECT_GT(count, 0);
  std::filesystem::remove_all(tmp);
}

}  // namespace
}  // namespace nsspice::netlist
