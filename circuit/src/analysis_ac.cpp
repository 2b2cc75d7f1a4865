// .ac (circuit/analysis.hpp): small-signal phasors about the operating point with every pair's
// mode frozen (solvers/time/small_signal.hpp):
//
//   (G + jωE) X − B Λ = S s_ac,   conducting pair j: C_j X + D_j Λ = 0,   otherwise Λ_j = 0
//   (a switch that is off: C_off_j X + Λ_j = 0),
//
// ω = 2πf, s_ac[k] = mag·e^{jπ·phase/180} for each source with AC mag [phase], 0 for the others.
// A conducting ideal diode is a short (RON a resistor, VF drops out), a blocking one an open
// circuit, exactly as in the .op mode; the result is linear in the excitation.
#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "circuit/analysis.hpp"
#include "solvers/time/small_signal.hpp"

namespace nsspice::circuit {
namespace {

// s_ac; all zero when no source has an AC magnitude.
Eigen::VectorXcd ac_excitation(const Circuit& circuit, const Assembled& a) {
  Eigen::VectorXcd s = Eigen::VectorXcd::Zero(static_cast<Eigen::Index>(a.sources.size()));
  for (size_t k = 0; k < a.source_device.size(); ++k) {
    const int d = a.source_device[k];
    if (d < 0) continue;
    const Device& dev = circuit.devices[static_cast<size_t>(d)];
    double mag = 0, phase = 0;
    if (const auto* v = std::get_if<VoltageSource>(&dev)) mag = v->ac_mag, phase = v->ac_phase_deg;
    if (const auto* i = std::get_if<CurrentSource>(&dev)) mag = i->ac_mag, phase = i->ac_phase_deg;
    s[static_cast<Eigen::Index>(k)] = std::polar(mag, phase * std::numbers::pi / 180.0);
  }
  return s;
}

}  // namespace

std::vector<double> ac_frequencies(const AcSpec& spec) {
  std::vector<double> f;
  const double n = static_cast<double>(spec.points);
  if (spec.variation == AcVariation::kLin) {
    for (long k = 0; k < spec.points; ++k)
      f.push_back(spec.points == 1 ? spec.fstart
                                   : spec.fstart + (spec.fstop - spec.fstart) *
                                                       static_cast<double>(k) / (n - 1));
    return f;
  }
  const double base = spec.variation == AcVariation::kDec ? 10.0 : 2.0;
  const double span = std::log(spec.fstop / spec.fstart) / std::log(base);  // decades / octaves
  const long last = static_cast<long>(std::floor(span * n + 1e-9));
  for (long k = 0; k <= last; ++k)
    f.push_back(spec.fstart * std::pow(base, static_cast<double>(k) / n));
  return f;
}

AnalysisResult ac_sweep(const Circuit& circuit, const Assembled& a, const StaticSolution& op,
                        const AcObserver& observer) {
  AnalysisResult r;
  const Eigen::VectorXcd s_ac = ac_excitation(circuit, a);
  if (s_ac.size() == 0 || s_ac.cwiseAbs().maxCoeff() == 0) {
    r.fail(solvers::Status::kInvalidInput,
           "no source has an AC magnitude: give one, e.g. 'V1 in 0 DC 0 AC 1'");
    return r;
  }
  const solvers::Mlcs& m = a.mlcs;
  const Eigen::VectorXcd u = m.S.cast<std::complex<double>>() * s_ac;
  solvers::SmallSignal system(m, op.mode);
  Eigen::VectorXcd x, lambda;
  for (double f : ac_frequencies(*circuit.ac)) {
    if (!system.solve(2 * std::numbers::pi * f, u, x, lambda)) {
      r.fail(solvers::Status::kNumericalFailure,
             fmt::format("the small-signal system is singular at f = {:g} Hz (a node without a "
                         "path at this frequency, or a loop of voltage sources and inductors)",
                         f));
      return r;
    }
    r.max_residual = std::max(r.max_residual, system.residual());
    observer(f, x, lambda);
    ++r.points;
  }
  return r;
}

}  // namespace nsspice::circuit
