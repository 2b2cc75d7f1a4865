#pragma once
// A .dc over a top-level .param (`.dc RLOAD 1k 10k 1k`, nested with a source or another
// parameter): a parameter can change any element value and even the circuit's structure, so for
// every point the parsed netlist is flattened again with the parameter's value
// (FlattenOptions::params), elaborated and assembled, swept sources get their value as
// their DC waveform, and the operating point is solved (circuit::operating_point). Slower than
// a source sweep (which changes the right-hand side only), exact the same way.
#include <Eigen/Core>
#include <functional>
#include <span>

#include "app/cli/simulation.hpp"
#include "circuit/analysis.hpp"
#include "circuit/transient.hpp"

namespace nsspice::app {

// observer(sweep values, x, λ, the point's signal table). Stops with !ok at the first point
// that does not elaborate, changes the circuit's signals, or has no operating point.
using ParamDcObserver =
    std::function<void(std::span<const double> sweep, const Eigen::VectorXd& x,
                       const Eigen::VectorXd& lambda, const circuit::SignalTable& signals)>;
circuit::AnalysisResult param_dc_sweep(const LoadedNetlist& loaded,
                                       const std::vector<std::string>& signal_names,
                                       const ParamDcObserver& observer);

}  // namespace nsspice::app
