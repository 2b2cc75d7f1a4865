// run_gnuplot, gnuplot_errors (gnuplot_runner.hpp).
#include "app/plot/gnuplot_runner.hpp"

#include <fmt/format.h>
#include <gnuplot-iostream.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

// A temporary file for gnuplot's output, removed when it goes out of scope.
struct CaptureFile {
  std::filesystem::path path;
  CaptureFile() {
    std::error_code ec;
    auto dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = ".";
    path = dir / fmt::format("nsspice-gnuplot-{}-{}.log", ::getpid(),
                             reinterpret_cast<std::uintptr_t>(this));
  }
  ~CaptureFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  std::string read() const {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

}  // namespace

std::string gnuplot_errors(const std::string& output) {
  std::string errors;
  std::istringstream in(output);
  // gnuplot prints the offending command, a caret line, then "line N: message" (or "warning:").
  for (std::string l; std::getline(in, l);) {
    const auto first = l.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    const std::string msg = lower(l.substr(first));
    if (msg.find("warning:") != std::string::npos) continue;
    if (msg.rfind("line ", 0) == 0 || msg.find("error") != std::string::npos ||
        msg.find("cannot") != std::string::npos || msg.find("can't") != std::string::npos) {
      const auto colon = l.find(':', first);
      std::string text = msg.rfind("line ", 0) == 0 && colon != std::string::npos
                             ? l.substr(colon + 1)
                             : l.substr(first);
      text.erase(0, std::min(text.size(), text.find_first_not_of(" \t")));
      errors += (errors.empty() ? "" : "; ") + text;
    }
  }
  return errors;
}

std::string run_gnuplot(const std::string& script, bool persist) {
  CaptureFile capture;
  {
    // "|| true": gnuplot's exit status is read from its output, and gnuplot-iostream then has
    // no "pclose returned error" to print.
    Gnuplot gp(fmt::format("gnuplot{} >'{}' 2>&1 || true", persist ? " -persist" : "",
                           gnuplot_quoted(capture.path.string())));
    gp << script;
  }
  return gnuplot_errors(capture.read());
}

std::string gnuplot_quoted(const std::string& path) {
  std::string out;
  for (char c : path) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out;
}

}  // namespace nsspice::app
