#include "app/cli/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>

#include "circuit/elaborate.hpp"
#include "netlist/flatten.hpp"
#include "netlist/parse.hpp"

namespace nsspice::app {

void print_error(const std::string& message) {
  fmt::print(stderr, "nsspice: error: {}\n", message);
}

void netlist_warning(const LoadedNetlist& loaded, netlist::SourceSpan span, std::string message) {
  netlist::Diagnostics diags;
  diags.warning(span, std::move(message));
  std::cerr << diags.format(loaded.sources);
}

std::optional<std::vector<MeasureSpec>> all_measures(const LoadedNetlist& loaded,
                                                     const std::vector<std::string>& texts) {
  std::vector<MeasureSpec> specs = loaded.measures;
  std::string error;
  for (const auto& text : texts) {
    auto spec = parse_measure(text, error);
    if (!spec) {
      print_error(error);
      return std::nullopt;
    }
    specs.push_back(std::move(*spec));
  }
  return specs;
}

std::unique_ptr<LoadedNetlist> load_netlist(const std::string& path, bool require_tran) {
  auto loaded = std::make_unique<LoadedNetlist>();
  netlist::Diagnostics diags;
  const netlist::Netlist parsed = netlist::parse_file(path, loaded->sources, diags);
  const netlist::Netlist flat = netlist::flatten(parsed, loaded->sources, diags);
  // Elaborate even after syntax errors (the bad cards were skipped) so that every problem of
  // the netlist is reported in one run.
  loaded->circuit = circuit::elaborate(flat, diags);
  if (flat.output_file) loaded->output_file = flat.output_file->text;
  if (std::any_of(loaded->circuit.dc.begin(), loaded->circuit.dc.end(),
                  [](const circuit::DcSweepSpec& s) { return s.parameter; }))
    loaded->parsed = parsed;
  std::vector<std::string> meas_errors;
  for (const auto& card : flat.cards) {
    if (const auto* save = std::get_if<netlist::SaveCard>(&card)) {
      for (const auto& w : save->signals)
        if (std::none_of(loaded->saved.begin(), loaded->saved.end(),
                         [&](const netlist::Word& s) { return s.lower == w.lower; }))
          loaded->saved.push_back(w);
    }
    const auto* meas = std::get_if<netlist::MeasCard>(&card);
    if (meas == nullptr) continue;
    std::vector<std::string> tokens;
    for (const auto& w : meas->tokens) tokens.push_back(w.text);
    std::string error;
    auto spec = parse_measure(tokens, meas->name.lower, error);
    if (spec) {
      loaded->measures.push_back(std::move(*spec));
      loaded->measure_spans.push_back(meas->span);
    } else
      diags.error(meas->span, error);
  }
  if (!diags.all().empty()) std::cerr << diags.format(loaded->sources);
  if (diags.has_errors()) {
    fmt::print(stderr, "{} error(s); nothing simulated\n", diags.error_count());
    return nullptr;
  }
  if (require_tran && !loaded->circuit.tran) {
    print_error(
        fmt::format("'{}' has no .tran card: nothing to simulate (add e.g. '.tran 1u 1m')", path));
    return nullptr;
  }
  return loaded;
}

std::vector<double> source_breakpoints(const circuit::Assembled& assembled, double t_stop) {
  std::vector<double> out;
  for (const auto& wave : assembled.sources) {
    double t = -std::numeric_limits<double>::min();
    for (int guard = 0; guard < 10'000'000; ++guard) {
      t = circuit::waveform_next_breakpoint(wave, t);
      if (!(t <= t_stop)) break;
      out.push_back(t);
    }
  }
  return out;
}

Simulated simulate(const circuit::Circuit& circuit, const circuit::Assembled& assembled,
                   const circuit::SignalTable& signals, const circuit::TransientOptions& options,
                   RowSink& sink, const std::function<void(double)>& progress,
                   std::span<const size_t> only) {
  const auto start = std::chrono::steady_clock::now();
  Simulated out;
  std::vector<double> values;
  out.result = circuit::run_transient(
      circuit, assembled, options,
      [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda) {
        if (only.empty())
          signals.evaluate(x, lambda, values);
        else
          signals.evaluate(x, lambda, only, values);
        sink.row(t, values);
        ++out.rows;
        if (progress) progress(t);
        return true;
      });
  out.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace nsspice::app
