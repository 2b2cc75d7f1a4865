#pragma once
// The linearization of the event map's period about a recorded orbit (docs/theory.md §14).
//
// The orbit is the list of points the event-driven integrator emitted over [0, T]: times,
// z = (x, λ) and the mode σ in force. Between mode changes σ is fixed and a perturbation δz of
// the orbit obeys the mode's linear DAE (event_driven.hpp, §2.1 of docs/event-driven.md)
//
//   M δz' = J_σ δz + F δu(t),   M = diag(E, 0),   J_σ = [−G, B; −K_σ],   F = (S e_s, 0),
//
// δu the perturbation of source s (none for the Jacobian), integrated by Radau IIA steps of at
// most h_max, cut at the source breakpoints (only M δz0 = (E δx0, 0) enters a step: the
// algebraic part of δz is recomputed by it). At a mode change at t_e, pre-event state z⁻ in σ⁻,
// post-event z⁺ in σ⁺:
//
//   state event (a guard g = γᵀz + g0 of σ⁻, of a pair or switch that changes, is zero at z⁻):
//       δt = −γᵀ δz⁻ / γᵀ ż⁻                              (the switching instant moves)
//   time event (a source breakpoint; a switch driven by sources alone has ∇g·δz = 0): δt = 0;
//   δq_in = E δx⁻ + (q̇⁻ − q̇⁺) δt,   q̇± = −G x± + B λ± + b(t±)              (saltation)
//   δz⁺ = P_σ⁺(δq_in): the two backward-Euler steps of δ with which the integrator selects the
//   mode (the identity on consistent states, the jump rule E x⁺ = E x⁻ + B ∫λ otherwise):
//       [G + E/δ, −B; K_σ⁺] δz_{k+1} = (E δx_k / δ + S e_s δu(t_e + (k+1)δ), 0),  δx_0: E δx_0 =
//       δq_in.
//
// ż⁻ is the orbit's derivative at the end of the segment: it solves the same DAE with the forcing
// differentiated, M ż' = J_σ ż + (S ṡ(t), 0), from M ż(t_a) = (−G x_a + B λ_a + b(t_a), 0) at
// the segment's start. The changes of one instant (a comparator, then the switch it drives, 2δ
// later) are one event: its δt is that of the first guard, its P that of the final mode. At t = 0
// the start selection: δz(0⁺) = P_σ0(E δx(0⁻)).
//
// Results: the monodromy Φ' = ∂x_D(T)/∂x_D(0⁻) (column by column), and for δu = e^{jωt} (two
// real passes, cos and sin) δz(T) and the harmonic average
//   Z̄ = (1/T) ∫₀ᵀ δz(t) e^{−jωt} dt  −  Σ_events (z⁺ − z⁻) δt e^{−jωt_e} / T,
// the integral from each step's collocation polynomial (6-point Gauss–Legendre on the cubic
// times the exponential), the sum because a signal that jumps at t_e keeps its pre-event value
// for δt (a Dirac of weight −(z⁺ − z⁻) δt in δz).
#include <Eigen/Core>
#include <complex>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"

namespace nsspice::circuit::detail {

struct OrbitPoint {
  double t = 0;
  Eigen::VectorXd z;       // (x, λ)
  std::vector<char> mode;  // the mode in force from t on
  // The point ends a mode selection: the modes of its two backward-Euler steps (else empty).
  std::vector<std::vector<char>> selection;
};

class PeriodLinearization {
 public:
  // `orbit`: the emitted points of one period [0, T] (the δ-steps of the mode selections
  // included); h_max: the largest Radau step; delta: the integrator's selection step δ;
  // `undefined`: why the period has no linearization, known beforehand ("": none known).
  PeriodLinearization(const Assembled& assembled, const std::vector<OrbitPoint>& orbit,
                      double period, double h_max, double delta, const std::string& undefined);
  ~PeriodLinearization();
  PeriodLinearization(const PeriodLinearization&) = delete;
  PeriodLinearization& operator=(const PeriodLinearization&) = delete;

  // "" when the linearization is defined, else why not (a grazing switching instant, an
  // orbit that is not a sequence of selections and smooth phases, a singular mode).
  const std::string& error() const { return error_; }

  // Φ' = ∂x_D(T)/∂x_D(0⁻) (n_D × n_D). False with error() set when a step fails.
  bool monodromy(Eigen::MatrixXd& phi);
  // δu(t) = e^{jωt} added to source component `source` (an index of Assembled::sources) and
  // δx_D(0⁻) = c: δz(T) into z_end and, with `average`, Z̄ (both of size n + m).
  bool forced(int source, double omega, const Eigen::VectorXcd& c, Eigen::VectorXcd& z_end,
              Eigen::VectorXcd* average);

  const std::vector<Eigen::Index>& differential() const { return d_; }
  int state_events() const;  // events whose instant depends on the state
  int time_events() const;   // mode changes at fixed instants (the start selection included)
  // One line per event: its time, and for a state event the pair whose guard set it and the
  // guard's rate γᵀż⁻.
  std::string describe() const;

 private:
  struct Segment;
  struct Event;
  struct Modes;
  enum class Wave { kNone, kCos, kSin };
  struct Drive {
    int source = -1;
    double omega = 0;
  };
  struct Average;

  const Assembled& a_;
  double period_, h_max_, delta_;
  int n_, m_;
  std::vector<Eigen::Index> d_;
  std::vector<Segment> segments_;
  std::vector<double> pair_scale_;  // per pair: max |w_j|, |λ_j| over the period
  std::vector<Event> events_;       // events_[k] ends segments_[k]; events_[0]: the start selection
  std::unique_ptr<Modes> modes_;
  std::string error_;

  // pss_orbit.cpp: the orbit's structure.
  bool parse(const std::vector<OrbitPoint>& orbit);
  void measure_pairs(const std::vector<OrbitPoint>& orbit);
  void add_event(const OrbitPoint& pre, const OrbitPoint& post, const std::vector<char>& changed,
                 const std::vector<std::vector<char>>& steps, bool start);
  bool add_segment(const OrbitPoint& first, const OrbitPoint& last);
  bool rates();
  void identify(Event& e, const OrbitPoint& pre, const std::vector<char>& changed) const;
  bool orbit_derivative(Segment& s, const OrbitPoint& start);
  Eigen::VectorXd differential_rate(const Eigen::VectorXd& qdot) const;
  // pss_linearize.cpp: the propagation.
  bool propagate(std::vector<Eigen::VectorXd>& z, const std::vector<Wave>& wave, const Drive& drive,
                 Average* average);
  bool step_segment(const Segment& s, std::vector<Eigen::VectorXd>& z,
                    const std::vector<Wave>& wave, const Drive& drive, Average* average);
  void cross(const Event& e, std::vector<Eigen::VectorXd>& z, const std::vector<Wave>& wave,
             const Drive& drive, Average* average);
  Eigen::VectorXd drive_vector(const Drive& drive) const;
};

}  // namespace nsspice::circuit::detail
