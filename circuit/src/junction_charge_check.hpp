#pragma once
// After a run, the junction charge of every converted SPICE diode with CJO (docs/devices.md,
// "Capacitances"): along the run's voltages, the PWL charge q stamped against SPICE's depletion
// charge Q. Per accepted point n, with u = min(v_ak, 0) (the reverse side; forward, the junction
// conducts and its PWL current carries it) and the charge error E(u) = q(u) − Q(u):
//
//   moved += |Q(u_n) − Q(u_{n−1})|,   missed += |E(u_n) − E(u_{n−1})|,   lowest = min u
//   conducted += ∫ |i| dt     (i the current of each junction branch, Σ λ; each voltage source's
//                              and inductor's; the diode's own: its forward and breakdown ones)
//
//   worst = max |E(u_n) − E(0)| / max(|Q(u_n) − Q(0)|, C(0)·1 V)
//
// `worst` is the charge error in the measure of the fit (junction_charge.hpp, pwl_charge), over
// the voltages met; `missed` the charge the PWL one moved differently from SPICE's (0 for an exact
// charge, a constant offset being no current). Over the run's span T, `missed` carries the
// average current e = missed/T, against c, the largest average current |i| of the circuit's
// converted junctions (the diode's own or another's: a MOSFET's body diode that never conducts
// beside a buck's freewheeling diode is measured against the latter), voltage sources and
// inductors. The same error weighed by the voltage it is met at is a power,
//
//   p = (1/T) Σ ½|u_n + u_{n−1}|·|E(u_n) − E(u_{n−1})|   against   s = (1/T) ∫ Σ |v_V·i_V| dt
//
// (s: what the voltage sources deliver, each |v·i| at its terminals): a junction that rings far
// beyond the fit's range with an inductor's turn-off energy (a forward converter's drain at
// 171 V against the sources' 60 V) misplaces little charge on average (e = 0.4 % of c) but at high
// voltage, and the ring's peak is where the energy it holds sets it (p = 13 % of s there; a
// rectifier's or a buck's junctions: below 0.1 %). When worst > kChargeTolerance, e > ABSTOL (an
// error current SPICE would call none) and either e > kChargeImpact·c or p > kChargeImpact·s, a
// warning says so with the numbers, and a
// JunctionChargeMiss gives the voltages met: the caller may refit the diode's charge in segments
// over [lowest, 0] within kRefitChargeTolerance < kChargeTolerance (app refit_ranges,
// Elaborator::refit_charge), which the check then passes.
//
// A VDMOS's gate-drain charge CGD (ngspice's C(v_gd) from CGDMAX CGDMIN A, pwl_transistors.cpp,
// fitted over the sources' swing [−V, V]) is watched the same way with u = min(v_gd, 0), v_gd
// between the internal gate and drain nodes (v_dg for a PCHAN card, as stamped): a drain that an
// inductor's turn-off rings far above the supply leaves [−V, 0], where the one chord continued
// stores far more charge than SPICE's near CGDMIN (a 12 V supply, 10 µH turned off at 2.4 A: the
// drain peaks at 336 V instead of ngspice's 621 V with the chord over −22…0 V). Its
// JunctionChargeMiss (kind "MOSFET") refits it in segments over [lowest, 0]
// (Elaborator::refit_cgd).
//
// A flyback's RCD snubber diode (two-slope charge fitted over the sources' −17…0 V, 151 pF) swings
// down to −147 V and rings with the leakage inductance: e = 12.2 mA against c = 256 mA (an
// inductor's). No rectifier, clamp or converter diode of the examples comes near (at most
// 3.1e-4 of c; docs/devices.md).
#include <Eigen/Core>
#include <string>
#include <variant>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "circuit/junction_charge.hpp"
#include "circuit/transient.hpp"

namespace nsspice::circuit::detail {

inline constexpr double kChargeTolerance = 0.05;
inline constexpr double kChargeImpact = 0.02;
// The charge tolerance of a refit (Elaborator::refit_charge) without .options pwlqtol.
inline constexpr double kRefitChargeTolerance = 0.02;

class JunctionChargeCheck {
 public:
  JunctionChargeCheck(const Circuit& circuit, const Assembled& assembled);
  bool empty() const { return watches_.empty(); }
  // One accepted point's unknowns and pair values.
  void add(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda);
  // The warnings and the misses.
  void warn(std::vector<std::string>& warnings, std::vector<JunctionChargeMiss>& misses) const;

 private:
  struct Watch {
    std::string device, model;
    std::string kind;  // "diode" (its junction, a to k) or "MOSFET" (a VDMOS's CGD, g to d)
    int a = 0, k = 0;  // the junction's nodes (0 is ground)
    std::variant<DepletionCharge, VdmosGateDrainCharge> spice;  // at .temp
    PwlCharge pwl;                                              // as stamped
    std::vector<size_t> own;  // its junction branches (forward, breakdown) in branches_
    double u = 0, error = 0;  // the last point's u and E(u)
    double moved = 0, missed = 0, lowest = 0, qs = 0, worst = 0;
    double misplaced = 0;  // Σ ½|u_n + u_{n−1}|·|ΔE|: the missed charge weighed by its voltage
    double e0 = 0, floor = 0;  // E(0), C(0)·1 V
    bool seen = false;
  };
  std::vector<Watch> watches_;
  struct Branch {            // a current of the circuit: its time integral of |i|
    std::vector<int> pairs;  // a converted junction branch's pairs (i = Σ λ), or
    int unknown = -1;        // a voltage source's or an inductor's branch current
    double i = 0, conducted = 0;
    int p = 0, n = 0;                 // a voltage source's nodes (its power |v·i|), else 0, 0
    double power = 0, delivered = 0;  // the last point's |v·i|, and its time integral
    bool source = false;
  };
  std::vector<Branch> branches_, currents_;
  double t0_ = 0, t_ = 0;  // the first and the last point's time
  bool started_ = false;
  double abstol_ = 1e-12;  // ABSTOL: an error current below it is none
};

}  // namespace nsspice::circuit::detail
