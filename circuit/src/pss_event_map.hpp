#pragma once
// The event-driven period map (pss_map.hpp): solvers::EventDriven over [0, T] with fixed Radau
// IIA steps h = T/N (no error control, so that Φ is a smooth function of x0 wherever the mode
// sequence does not change) and every switching instant located to evtimetol; a fresh
// integrator per period, so that Φ depends on x0 alone. Every emitted point is recorded with
// the mode in force: the orbit that PeriodLinearization (pss_linearize.hpp) linearizes for the
// exact Jacobian and for the small-signal analysis (pss_ac.hpp).
#include <memory>
#include <string>
#include <vector>

#include "circuit/src/pss_linearize.hpp"
#include "circuit/src/pss_map.hpp"
#include "solvers/time/event_driven.hpp"

namespace nsspice::circuit::detail {

class EventMap final : public PeriodMap {
 public:
  // coarsen: the selection step δ automatic (PssOptions::select_step = 0): the fine δ of
  // `options`, or 1e-5·T from the first period without an observer whose selections at the fine
  // δ end in an accumulation of events and at 1e-5·T do not.
  EventMap(const Assembled& assembled, const solvers::EventOptions& options, bool finite_difference,
           bool coarsen = false);
  solvers::Summary run(const PssState& from, PssState& to, const PssObserver* observer = nullptr,
                       double t_offset = 0) override;
  solvers::Summary jacobian(const PssState& from, const PssState& to, Eigen::MatrixXd& j) override;
  std::string mode_sequence() const override;

  // The last period's points, and whether part of it was an accumulation of events handed to
  // the θ-scheme (then it has no linearization).
  const std::vector<OrbitPoint>& orbit() const { return orbit_; }
  bool accumulation() const { return accumulation_; }
  // The linearization of the period last run; its error() says why it is not defined (an
  // accumulation of events, a grazing instant, ...).
  std::unique_ptr<PeriodLinearization> linearize() const;
  long fallbacks() const override { return fallbacks_; }
  double select_step() const override { return options_.select_step; }
  bool coarsened() const { return coarsened_; }
  std::string fallback_reason() const override { return fallback_reason_; }

 private:
  solvers::Summary run_once(const PssState& from, PssState& to, const PssObserver* observer,
                            double t_offset);

  const Assembled& a_;
  // The circuit's MLCS with the breakpoints within rounding of T moved to T (a PULSE whose
  // corners add up to T in floating point lands a hair before it; the integrator would then
  // take a last step of 1e-21 s).
  solvers::Mlcs mlcs_;
  solvers::EventOptions options_;
  bool finite_difference_;
  bool coarsen_, coarsened_ = false;
  std::vector<OrbitPoint> orbit_;
  Eigen::VectorXd start_;  // x0 of the recorded period
  bool accumulation_ = false;
  long fallbacks_ = 0;
  std::string fallback_reason_;
};

// The map's options for `options` (steps: options.steps_per_period, else 200).
solvers::EventOptions event_map_options(const Circuit& circuit, const PssOptions& options);

}  // namespace nsspice::circuit::detail
