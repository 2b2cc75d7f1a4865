// The start of a run on an unstable equilibrium (unstable_start.hpp).
#include "circuit/src/unstable_start.hpp"

#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "solvers/time/equilibrium_stability.hpp"

namespace nsspice::circuit::detail {

void leave_unstable_equilibrium(const Circuit& circuit, const Assembled& assembled, double span,
                                InitialPoint& init, std::vector<std::string>& warnings) {
  if (!(span > 0)) return;
  const solvers::EquilibriumStability s =
      solvers::equilibrium_stability(assembled.mlcs, init.mode, 1.0 / span);
  if (!s.growing) return;
  const solvers::GrowingMode& g = *s.growing;
  // The state node (one E touches: a capacitor's) whose voltage moves most along the mode; the
  // kick is the real solution whose oscillation there peaks at t = 0 with amplitude VNTOL (the
  // eigenvector turned so that that component is real and positive). A node without
  // capacitance, such as the inside of a behavioural source's limiter, may move far more along
  // the eigenvector while the circuit's state hardly moves: it does not set the size.
  const solvers::SparseMatrix& e = assembled.mlcs.E;
  const auto is_state = [&](Eigen::Index k) {
    for (solvers::SparseMatrix::InnerIterator it(e, k); it; ++it)
      if (it.value() != 0.0) return true;
    return false;
  };
  int node = -1;
  for (int pass = 0; pass < 2 && node < 0; ++pass)  // state nodes, else any node
    for (size_t k = 0; k < assembled.unknown_names.size(); ++k) {
      const auto i = static_cast<Eigen::Index>(k);
      if (assembled.unknown_names[k].starts_with("v(") && (pass == 1 || is_state(i)) &&
          (node < 0 || std::abs(g.x[i]) > std::abs(g.x[node])))
        node = static_cast<int>(k);
    }
  const std::complex<double> at = node >= 0 ? g.x[node] : g.x[0];
  const double along = std::abs(at);
  const double vntol = circuit.stepping.vntol;
  const double growth = g.mu.real(), omega = std::abs(g.mu.imag());
  const std::string mu = omega > 0 ? fmt::format("{:.3g} ± {:.3g}j /s", growth, omega)
                                   : fmt::format("{:.3g} /s", growth);
  const std::string swing =
      omega > 0 ? fmt::format(", oscillating at {:.3g} Hz", omega / (2 * std::numbers::pi)) : "";
  const std::string where =
      node >= 0 ? fmt::format(" ({} moves most)", assembled.unknown_names[node]) : "";
  if (!circuit.stepping.kick_unstable) {
    warnings.push_back(fmt::format(
        "the initial point (the DC operating point) is an unstable equilibrium: about it the "
        "circuit grows as e^(μt), μ = {} (e-folding time {:.3g} s{}){}; .options unstableop=keep "
        "keeps the run on it, where a real circuit (and SPICE's rounding) would leave it",
        mu, 1 / growth, swing, where));
    return;
  }
  if (!(along > 0)) return;
  const std::complex<double> turn = std::conj(at) / along * (vntol / along);
  const Eigen::VectorXd dx = (g.x * turn).real(), dl = (g.lambda * turn).real();
  init.x += dx;
  init.lambda += dl;
  init.q += assembled.mlcs.E * dx;
  warnings.push_back(fmt::format(
      "the initial point (the DC operating point) is an unstable equilibrium: about it the "
      "circuit grows as e^(μt), μ = {} (e-folding time {:.3g} s{}); an exact solver stays on "
      "it, a real circuit (and SPICE's rounding) leaves it at once: the run starts VNTOL = {:g} "
      "V off it along that mode{} (.options unstableop=keep keeps it)",
      mu, 1 / growth, swing, vntol, where));
}

}  // namespace nsspice::circuit::detail
