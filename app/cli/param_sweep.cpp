#include "app/cli/param_sweep.hpp"

#include <fmt/format.h>

#include "circuit/elaborate.hpp"
#include "netlist/flatten.hpp"

namespace nsspice::app {
namespace {

// The circuit at one point: the parameters' values in the flattening, the sources' as DC.
std::optional<circuit::Circuit> circuit_at(const LoadedNetlist& loaded,
                                           std::span<const double> values, std::string& error) {
  const auto& sweeps = loaded.circuit.dc;
  netlist::FlattenOptions options;
  for (size_t k = 0; k < sweeps.size(); ++k)
    if (sweeps[k].parameter) options.params[sweeps[k].source] = values[k];
  netlist::SourceManager sources = loaded.sources;
  netlist::Diagnostics diags;
  const netlist::Netlist flat = netlist::flatten(*loaded.parsed, sources, diags, options);
  circuit::Circuit c = circuit::elaborate(flat, diags);
  if (diags.has_errors()) {
    const std::string text = diags.format(sources);
    error = text.substr(0, text.find('\n'));
    return std::nullopt;
  }
  for (size_t k = 0; k < sweeps.size(); ++k) {
    if (sweeps[k].parameter) continue;
    for (auto& d : c.devices) {
      if (circuit::device_name(d) != sweeps[k].source) continue;
      if (auto* v = std::get_if<circuit::VoltageSource>(&d)) v->wave = circuit::Dc{values[k]};
      if (auto* i = std::get_if<circuit::CurrentSource>(&d)) i->wave = circuit::Dc{values[k]};
    }
  }
  return c;
}

std::string point_text(const std::vector<circuit::DcSweepSpec>& sweeps,
                       std::span<const double> values) {
  std::string at;
  for (size_t k = 0; k < sweeps.size(); ++k)
    at += fmt::format("{}{} = {:g}", k ? ", " : "", sweeps[k].source, values[k]);
  return at;
}

}  // namespace

circuit::AnalysisResult param_dc_sweep(const LoadedNetlist& loaded,
                                       const std::vector<std::string>& signal_names,
                                       const ParamDcObserver& observer) {
  circuit::AnalysisResult r;
  const auto& sweeps = loaded.circuit.dc;
  const long outer = sweeps.size() > 1 ? sweeps[1].points : 1;
  std::vector<double> values(sweeps.size());
  for (long j = 0; j < outer; ++j) {
    for (long i = 0; i < sweeps[0].points; ++i) {
      values[0] = circuit::dc_value(sweeps[0], i);
      if (values.size() > 1) values[1] = circuit::dc_value(sweeps[1], j);
      std::string error;
      auto status = solvers::Status::kInvalidInput;  // the netlist at this value is rejected
      const auto c = circuit_at(loaded, values, error);
      circuit::StaticSolution op;
      if (c) {
        const circuit::Assembled a = circuit::assemble(*c);
        const circuit::SignalTable signals = circuit::make_signals(*c, a);
        if (signals.names != signal_names) {
          error = "the circuit's signals change with the parameter";
        } else if (const auto res = circuit::operating_point(*c, a, op); !res.ok()) {
          error = res.summary.message;
          status = res.summary.status;
        } else {
          observer(values, op.x, op.lambda, signals);
          ++r.points;
          continue;
        }
      }
      r.fail(status, fmt::format("at {}: {}", point_text(sweeps, values), error));
      return r;
    }
  }
  return r;
}

}  // namespace nsspice::app
