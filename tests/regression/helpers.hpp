#pragma once
// Test helpers: simulate a netlist given as text and keep every point in memory.
#include <Eigen/Core>
#include <initializer_list>
#include <string>
#include <vector>

#include "circuit/transient.hpp"

namespace nsspice::testing {

struct Waveforms {
  std::vector<std::string> names;
  std::vector<double> t;
  std::vector<std::vector<double>> rows;  // per point: the signal values
  std::vector<Eigen::VectorXd> x, lambda, w;
  circuit::TransientResult result;
  circuit::Circuit circuit;
  circuit::Assembled assembled;
  std::string diagnostics;

  int column(const std::string& name) const;
  std::vector<double> series(const std::string& name) const;
  double at(const std::string& name, size_t point) const;
};

// The diagnostics of parsing and elaborating `text` as "t.cir" (a netlist that has errors: the
// test fails otherwise).
std::string elaboration_errors(const std::string& text);

// The text of examples/<name>.
std::string read_example(const std::string& name);

// Parses, elaborates and simulates; failures of parsing end up in `diagnostics`. The points are
// the integrator's own (accepted steps), plus the dense output every TSTEP when `dense`.
Waveforms simulate(const std::string& netlist_text, const circuit::TransientOptions& options = {},
                   bool dense = false);
// The same with the fixed-step θ-scheme at h = the .tran TSTEP (the scheme's own properties:
// order, equality with Siconos, exactness on piecewise-linear phases).
Waveforms simulate_fixed(const std::string& netlist_text, circuit::TransientOptions options = {});

// Two runs on the same time points whose `signals` agree within rel·(1 + |b|) at every point (a
// netlist against the same circuit written another way); `what` names the case in a failure.
void expect_same_series(const Waveforms& a, const Waveforms& b,
                        std::initializer_list<const char*> signals, double rel,
                        const std::string& what = "");

}  // namespace nsspice::testing
