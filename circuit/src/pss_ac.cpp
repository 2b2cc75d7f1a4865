// Small-signal response about the periodic steady state (circuit/pss_ac.hpp): per frequency,
//
//   Γ = δx_D(T) from δx_D(0) = 0 with δu = e^{jωt},   c = (e^{jωT} I − Φ')⁻¹ Γ,
//   then one more period from c: the harmonic average Z̄ (pss_linearize.hpp),
//
// checked by the periodicity of the second pass, ‖δx_D(T) − e^{jωT} c‖∞ / ‖c‖∞.
#include "circuit/pss_ac.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <cmath>
#include <numbers>

#include "circuit/src/pss_event_map.hpp"

namespace nsspice::circuit {
namespace {

Eigen::VectorXcd part(const Eigen::VectorXcd& z, const std::vector<Eigen::Index>& d) {
  Eigen::VectorXcd out(static_cast<Eigen::Index>(d.size()));
  for (size_t k = 0; k < d.size(); ++k) out[static_cast<Eigen::Index>(k)] = z[d[k]];
  return out;
}

}  // namespace

std::string SwitchingAcOptions::validate(const Assembled& a) const {
  if (source < 0 || source >= static_cast<int>(a.sources.size()))
    return "the perturbed source is not an independent source of the circuit";
  if (frequencies.empty()) return "no frequencies";
  for (double f : frequencies)
    if (!(f >= 0) || !std::isfinite(f))
      return fmt::format("frequencies must be >= 0 Hz, got {:g}", f);
  return {};
}

int source_index(const Circuit& circuit, const Assembled& a, const std::string& name) {
  for (size_t k = 0; k < a.source_device.size(); ++k) {
    const int d = a.source_device[k];
    if (d >= 0 && device_name(circuit.devices[static_cast<size_t>(d)]) == name)
      return static_cast<int>(k);
  }
  return -1;
}

SwitchingAcResult switching_ac(const Circuit& circuit, const Assembled& a, const PssResult& pss,
                               const PssOptions& pss_options, const SwitchingAcOptions& o,
                               const SwitchingAcObserver& observer) {
  SwitchingAcResult r;
  if (std::string why = o.validate(a); !why.empty()) {
    r.fail(solvers::Status::kInvalidInput, std::move(why));
    return r;
  }
  // (A PssResult starts solved: an orbit is one with a state.)
  if (!pss.ok() || pss.x0.size() != a.mlcs.n || pss_options.map != PssMap::kEvent) {
    r.fail(solvers::Status::kInvalidInput,
           "the small-signal analysis needs a periodic steady state of the event map");
    return r;
  }
  PssOptions orbit_options = pss_options;  // the orbit's own map (its selection step)
  if (pss.select_step > 0) orbit_options.select_step = pss.select_step;
  detail::EventMap map(a, detail::event_map_options(circuit, orbit_options), false);
  detail::PssState start{pss.x0, pss.lambda0, pss.mode0}, end;
  if (const solvers::Summary run = map.run(start, end); !run.solved()) {
    r.fail(run.status, "the orbit's period: " + run.message, run.time, run.devices);
    return r;
  }
  const auto lin = map.linearize();
  const auto undefined = [&] {
    r.fail(solvers::Status::kNumericalFailure,
           "the orbit's period has no linearization: " + lin->error());
    return r;
  };
  r.state_events = lin->state_events();
  r.time_events = lin->time_events();
  Eigen::MatrixXd phi;
  if (!lin->monodromy(phi)) return undefined();
  const auto nd = phi.rows();
  const double period = pss_options.period;
  const int n = a.mlcs.n, m = a.mlcs.m;
  for (double f : o.frequencies) {
    const double omega = 2 * std::numbers::pi * f;
    const std::complex<double> shift = std::polar(1.0, omega * period);
    Eigen::VectorXcd z_end, average;
    if (!lin->forced(o.source, omega, Eigen::VectorXcd::Zero(nd), z_end, nullptr))
      return undefined();
    const Eigen::VectorXcd gamma = part(z_end, lin->differential());
    const Eigen::MatrixXcd k =
        shift * Eigen::MatrixXcd::Identity(nd, nd) - phi.cast<std::complex<double>>();
    const Eigen::VectorXcd c = k.partialPivLu().solve(gamma);
    if (!c.allFinite()) {
      r.fail(solvers::Status::kNumericalFailure,
             fmt::format("at f = {:g} Hz e^(jwT) is a Floquet multiplier of the orbit: the "
                         "periodic response is not defined",
                         f));
      return r;
    }
    if (!lin->forced(o.source, omega, c, z_end, &average)) return undefined();
    const Eigen::VectorXcd back = part(z_end, lin->differential());
    const double scale = std::max(c.cwiseAbs().maxCoeff(), 1e-300);
    r.max_residual = std::max(r.max_residual, (back - shift * c).cwiseAbs().maxCoeff() / scale);
    observer(f, average.head(n), average.tail(m));
    ++r.points;
  }
  return r;
}

}  // namespace nsspice::circuit
