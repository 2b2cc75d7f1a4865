#include "app/run_command.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "app/csv_writer.hpp"
#include "app/plot_gnuplot.hpp"
#include "app/progress.hpp"
#include "app/report.hpp"
#include "circuit/assemble.hpp"
#include "circuit/elaborate.hpp"
#include "circuit/names.hpp"
#include "circuit/transient.hpp"
#include "netlist/parse.hpp"

namespace nsspice::app {
namespace {

constexpr int kBadInput = 1;
constexpr int kSimulationFailed = 2;
constexpr int kOutputFailed = 3;

void error(const std::string& message) { fmt::print(stderr, "nsspice: error: {}\n", message); }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Splits "v(a),i(d1)" at commas outside parentheses.
std::vector<std::string> split_signals(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      if (!cur.empty()) out.push_back(lower(cur));
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(lower(cur));
  return out;
}

// Indices of the plotted signals; empty optional with a message on an unknown name.
std::optional<std::vector<size_t>> plot_selection(const RunOptions& o,
                                                  const circuit::SignalTable& t, int node_count) {
  std::vector<size_t> idx;
  if (o.signals.empty()) {
    for (int k = 0; k < node_count; ++k) idx.push_back(static_cast<size_t>(k));
    return idx;
  }
  for (const auto& name : split_signals(o.signals)) {
    auto it = std::find(t.names.begin(), t.names.end(), name);
    if (it == t.names.end()) {
      error(fmt::format("unknown signal '{}' in --signals{}", name,
                        circuit::did_you_mean(name, t.names)));
      return std::nullopt;
    }
    idx.push_back(static_cast<size_t>(it - t.names.begin()));
  }
  return idx;
}

}  // namespace

int run_command(const RunOptions& o) {
  const auto wall_start = std::chrono::steady_clock::now();
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist tree = netlist::parse_file(o.netlist, sources, diags);
  // Elaborate even after syntax errors (the bad cards were skipped) so that every problem of
  // the netlist is reported in one run.
  const circuit::Circuit circuit = circuit::elaborate(tree, diags);
  if (!diags.all().empty()) std::cerr << diags.format(sources);
  if (diags.has_errors()) {
    fmt::print(stderr, "{} error(s); nothing simulated\n", diags.error_count());
    return kBadInput;
  }
  if (!circuit.tran) {
    error(fmt::format("'{}' has no .tran card: nothing to simulate (add e.g. '.tran 1u 1m')",
                      o.netlist));
    return kBadInput;
  }
  const circuit::Assembled assembled = circuit::assemble(circuit);
  const circuit::SignalTable signals = circuit::make_signals(circuit, assembled);
  const auto selection = plot_selection(o, signals, assembled.node_count);
  if (!selection) return kBadInput;
  if (!o.plot.empty()) {
    const std::string ext = std::filesystem::path(o.plot).extension().string();
    if (ext != ".png" && ext != ".svg" && ext != ".pdf") {
      error(fmt::format("--plot '{}': the file must end in .png, .svg or .pdf", o.plot));
      return kBadInput;
    }
  }
  const std::string output =
      o.output.empty() ? std::filesystem::path(o.netlist).stem().string() + ".csv" : o.output;
  CsvWriter csv;
  if (!csv.open(output, signals.names)) {
    error(fmt::format("cannot write '{}': {}", output, std::strerror(errno)));
    return kOutputFailed;
  }
  PlotRequest plot{circuit.title.empty() ? o.netlist : circuit.title, o.plot, {}, {}};
  for (size_t k : *selection) plot.series.push_back({signals.names[k], {}});
  Progress progress(circuit.tran->tstop, o.progress && !o.quiet);
  std::vector<double> values;
  long rows = 0;
  const auto result = circuit::run_transient(
      circuit, assembled, {.theta = o.theta, .h = o.step},
      [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda) {
        signals.evaluate(x, lambda, values);
        csv.row(t, values);
        ++rows;
        if (!o.plot.empty()) {
          plot.time.push_back(t);
          for (size_t s = 0; s < selection->size(); ++s)
            plot.series[s].values.push_back(values[(*selection)[s]]);
        }
        progress.update(t);
        return true;
      });
  progress.finish();
  const bool written = csv.close();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!result.ok) {
    error(fmt::format("simulation stopped: {}", result.error));
    fmt::print(stderr, "nsspice: note: '{}' holds the {} valid rows computed up to t = {:.9g} s\n",
               output, rows, result.t_end);
    if (!o.quiet) fmt::print("{}", format_report(result, wall, output, rows));
    return kSimulationFailed;
  }
  if (!written) {
    error(fmt::format("writing '{}' failed: {}", output, std::strerror(errno)));
    return kOutputFailed;
  }
  if (!o.plot.empty()) {
    if (const std::string why = write_plot(plot); !why.empty()) {
      error(fmt::format("plot '{}': {}", o.plot, why));
      return kOutputFailed;
    }
  }
  if (!o.quiet) {
    fmt::print("{}", format_report(result, wall, output, rows));
    if (!o.plot.empty()) fmt::print("  {:<18} {}\n", "plot", o.plot);
  }
  return 0;
}

}  // namespace nsspice::app
