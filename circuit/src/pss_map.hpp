#pragma once
// The one-period maps Φ: x0 ↦ x(T) that the shooting method (pss_newton.cpp) drives to a fixed
// point, behind one interface (docs/theory.md §13):
//
//   theta: the fixed-step θ-scheme (h = T/N, restart steps at t = 0 as at any breakpoint); its
//          Jacobian is a forward finite difference (one extra period per differential unknown);
//   event: the event-driven integrator (three-stage Radau IIA with fixed steps h = T/N, every
//          switching instant located); its Jacobian is the exact linearization of the period
//          (pss_linearize.hpp: per-mode transition matrices and the saltation of each
//          state-dependent switching instant).
//
// Both depend on x0 through the differential unknowns x_D (the columns of E with an entry)
// only. A period that fails (a step without solution) returns the step's summary: its status (the
// MLCP's), "at t = … s of a period: …", the time within the period and the devices.
#include <Eigen/Core>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "circuit/pss.hpp"
#include "solvers/status.hpp"

namespace nsspice::circuit::detail {

struct PssState {
  Eigen::VectorXd x, lambda;
  std::vector<char> mode;
};

using PssObserver = std::function<void(double, const Eigen::VectorXd&, const Eigen::VectorXd&)>;

class PeriodMap {
 public:
  virtual ~PeriodMap() = default;
  // One period from `from` (at t = 0) to `to` (at t = T). With an observer, every output point
  // (t + t_offset, x, λ), the start included. Solved, else the failed step's summary.
  virtual solvers::Summary run(const PssState& from, PssState& to,
                               const PssObserver* observer = nullptr, double t_offset = 0) = 0;
  // J = ∂Φ_D/∂x_D at `from` (`to` = Φ(from), the last period run from `from`). Solved, else the
  // summary of a period that failed on the way.
  virtual solvers::Summary jacobian(const PssState& from, const PssState& to,
                                    Eigen::MatrixXd& j) = 0;
  // A description of the last period's mode sequence (equal strings: the same sequence).
  virtual std::string mode_sequence() const = 0;
  // Exact Jacobians that fell back to the finite difference (their linearization was not
  // defined), and why the last one did.
  virtual long fallbacks() const { return 0; }
  virtual std::string fallback_reason() const { return {}; }
  // The event map's mode-selection step δ as a fraction of T (0: the θ map).
  virtual double select_step() const { return 0; }
  long count() const { return count_; }
  double h() const { return h_; }
  double theta() const { return theta_; }  // the θ map's θ (0 for the event map)
  bool exact_jacobian() const { return exact_; }

 protected:
  long count_ = 0;
  double h_ = 0, theta_ = 0;
  bool exact_ = false;
};

// The differential unknowns: the columns of E with an entry.
std::vector<Eigen::Index> dynamic_columns(const solvers::SparseMatrix& e);
Eigen::VectorXd part(const Eigen::VectorXd& x, const std::vector<Eigen::Index>& d);
// `s` with x_D moved by α·Δ (a damped Newton step).
PssState displaced(const PssState& s, const std::vector<Eigen::Index>& d,
                   const Eigen::VectorXd& delta, double alpha);

// The summary of a computation that succeeded.
inline solvers::Summary solved() {
  solvers::Summary s;
  s.status = solvers::Status::kSolved;
  return s;
}

// J_{:,k} = (Φ(x0 + δ_k e_k)_D − Φ(x0)_D) / δ_k, δ_k = 1e-7·max(|x_k|, ‖x_D‖∞, 1e-3): one
// period per differential unknown (pss_theta_map.cpp).
solvers::Summary finite_difference_jacobian(PeriodMap& map, const Assembled& assembled,
                                            const PssState& from, const PssState& to,
                                            Eigen::MatrixXd& j);

// Shooting-Newton from `start` (after the warm-up) on `map` (pss_newton.cpp): fills the orbit,
// the iterations, the multipliers, or the failure and its cause.
void shoot(PeriodMap& map, const Assembled& assembled, const PssOptions& options,
           const PssState& start, PssResult& result);

// A period map, or (map null) why its settings are invalid (status kInvalidInput).
struct MadeMap {
  std::unique_ptr<PeriodMap> map;
  solvers::Summary failure;
};

// The map chosen by `options` (steps from options, the .tran step or the map's default).
MadeMap make_period_map(const Circuit& circuit, const Assembled& assembled,
                        const PssOptions& options);
MadeMap make_theta_map(const Circuit& circuit, const Assembled& assembled,
                       const PssOptions& options);
MadeMap make_event_map(const Circuit& circuit, const Assembled& assembled,
                       const PssOptions& options);

// The summary of a failed step of a period: its status, "at t = … s of a period: <message>
// (devices: …)", t and the devices (the pairs', and the singular block's of `mode` at step h).
solvers::Summary step_failure(const Assembled& assembled, solvers::Status status,
                              const std::string& message, double t, const std::vector<int>& pairs,
                              const std::vector<char>& mode, double h);

}  // namespace nsspice::circuit::detail
