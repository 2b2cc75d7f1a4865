#pragma once
// After a run, two checks of every converted SPICE junction branch (docs/devices.md):
//  * range: did its current go above the range [imin, imax] its PWL fit holds in? A warning
//    with the peak and the .options pwlimax that would cover it; or did it work below imin,
//    the PWL and SPICE currents at its largest voltage apart by more than PWLTOL in drop? A
//    warning with both currents and the .options pwlimin that would cover them;
//  * small signal: over the second half of the run (after a start-up), did its current stay
//    inside one PWL segment whose incremental resistance differs from the SPICE curve's at the
//    run's average current by more than kSmallSignalTolerance? A warning with both
//    resistances: small-signal gains through that junction are off by about as much;
//  * split (transient runs): a bipolar transistor's junction and its leakage branch (B-E with
//    ISE, B-C with ISC) share the junction's base current by their PWL fits, each within PWLTOL
//    of SPICE's voltage; a voltage error δ moves a branch's current by a factor e^(δ/(N·Vt)), so
//    the split, and with it the collector current, can be off by far more than either fit's
//    voltage. At each point, with i_m the PWL junction current (I_F/α_F, whose base share is
//    i_m/(1 + BF); I_R/α_R and BR for B-C), i_l the leakage's, i_b = i_m/(1 + BF) + i_l the base
//    current and x SPICE's junction current for it (v_m(x) = v_l(i_b − x/(1 + BF)), bisected),
//    e = i_m/x − 1; over the run the
//    current-weighted mean ē = ∫ e·i_m dt / ∫ i_m dt. |ē| > kSplitTolerance: a warning with ē
//    and a PWLTOL that would bring it within 2 % (the error is about proportional to PWLTOL).
//    An NPN with ISE = 65 pA, NE = 1.5 switching 1 mH/10 Ω from 48 V, 9 mA of base current:
//    the inductor's average current 11 % below ngspice's at PWLTOL 10 mV without a word (0.4 %
//    at 1 mV).
//  * pair (DC sweeps): two bipolar transistors of one polarity whose emitters meet at one node
//    (other than ground; after RE), a differential pair, share the emitter current by their
//    B-E fits, and the circuit sets the difference of their junction voltages: an error δ1 − δ2
//    moves the share by a factor e^((δ1 − δ2)/(NF·Vt)) (a pair at −34 mV: 18 % of the smaller
//    collector current at PWLTOL 10 mV, without a word). At each point, with i1, i2 the PWL
//    junction currents and Δv = v_PWL1(i1) − v_PWL2(i2) the junction voltage difference the
//    circuit holds, SPICE's share x of T = i1 + i2 solves v1(x/A1) − v2((T − x)/A2) = Δv
//    (increasing in x, bisected); e_k = i_k/x_k − 1 for each transistor carrying at least
//    kPairShareFloor of T (below, it is off and its error is not a share of anything).
//    (In a feedback loop, which sets the currents, the error is the pair's offset voltage
//    instead: Δv − (v1(i1) − v2(i2)); the warning gives both readings.)
//    max |e| > kSplitTolerance over the sweep: a warning with the worst point, both currents
//    and the PWLTOL = NF·Vt·ln(1.02)/2 that bounds it by 2 % (|δ1 − δ2| ≤ 2·PWLTOL: the share
//    moves by at most e^(2·PWLTOL/(NF·Vt)); the error is not proportional to PWLTOL, since the
//    knots move with it: 17 % at 10 mV, 31 % at 5 mV, 1.9 % at 0.3 mV on the test's pair).
//  * saturation (DC sweeps): a bipolar transistor with both junctions forward and its C-E held
//    by voltage sources (collector and emitter, outside RC and RE, joined by a path of voltage
//    sources and inductors: the circuit sets v_ce, the base drive sets i_b; a mirror's output at
//    v_ce = 0). Its collector current I_C = α_F·i_DE − i_DC − i_C,leak is then the difference
//    of two nearly equal transport currents, and the fits' errors δ_BE, δ_BC (each within
//    PWLTOL) move it by a large factor (a 2N3904 mirror at v_ce = 0: −0.465 mA against
//    ngspice's −0.179 mA, without a word). The PWL transistor's junction currents are SPICE's
//    at v_be − δ_BE, v_bc − δ_BC and its transport is exact, so its I_C is SPICE's at the same
//    base current and v_ce − Δ, Δ = δ_BE − δ_BC, |Δ| ≤ 2·PWLTOL. At each point, with
//    v_ce = v_PWL,BE(i_DE) − v_PWL,BC(i_DC) (the internal C-E voltage the circuit holds) and
//    i_b the PWL base current, SPICE's I_C*(i_b, v_ce) (v_be solved from i_b, bisected) against
//    the PWL's: e = (I_C − I_C*)/max(|I_C*|, i_b) (the base drive is the current scale of a
//    saturated transistor; I_C* passes through 0). max |e| > kSplitTolerance: a warning with the
//    worst point, both currents and the PWLTOL = Δ*/2, Δ* the smallest over the sweep's
//    saturated points of the Δ with |I_C*(i_b, v_ce ± Δ) − I_C*(i_b, v_ce)| = 2 % of the scale.
//    A saturated switch whose collector resistor sets I_C is not checked: there the fits' error
//    is V_CE(sat)'s, within 2·PWLTOL (docs/devices.md).
#include <Eigen/Core>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "circuit/src/pwl_junctions.hpp"
#include "circuit/transient.hpp"

namespace nsspice::circuit::detail {

inline constexpr double kSmallSignalTolerance = 0.05;
inline constexpr double kSplitTolerance = 0.05;
inline constexpr double kSplitPrecision = 1e-6;  // relative step at which the solve for x stops
// The pair check counts a transistor's share error where SPICE's share is at least this.
inline constexpr double kPairShareFloor = 0.1;
// The below-range check skips branches whose peak is under this share of the largest peak of
// all branches (a clamp barely touching its threshold beside a rectifier's amperes).
inline constexpr double kBelowRangeShare = 1e-3;
// ... and those whose SPICE current stays under this share of imin (a body diode held at 0 V:
// 1e-19 A against a 1e-14 A range bottom; both models conduct nothing there).
inline constexpr double kBelowRangeFloor = 1e-2;

class PwlRangeCheck {
 public:
  // The small-signal check watches the points at t ≥ settled (the second half of the run).
  PwlRangeCheck(const Circuit& circuit, const Assembled& assembled, double settled);
  bool empty() const { return watches_.empty(); }
  // One accepted point's unknowns and pair values.
  void add(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda);
  // A DC sweep's point, as the pair warning names it ("vid = -0.034"), before its add().
  void label(std::string where) { where_ = std::move(where); }
  // The warnings; with `misses`, the ranges left (PwlRangeMiss) too.
  void warn(std::vector<std::string>& warnings, std::vector<PwlRangeMiss>* misses = nullptr) const;

 private:
  struct Watch {
    JunctionBranch junction;
    PwlCurve curve;                                       // as stamped (area applied)
    double peak = 0;                                      // over the run
    double lo = 0, hi = 0;                                // over t ≥ settled
    double t_last = 0, i_last = 0, charge = 0, span = 0;  // the time average: charge/span
    bool seen = false;
    double i_now = 0;  // the current at the last point
    // A diode's branch voltage v(plus) − v(minus) (nodes; 0 is ground) and its largest value.
    bool has_voltage = false;
    int plus = 0, minus = 0;
    double v_peak = -1e300;
  };

 public:
  // A branch's largest voltage v̂ and its PWL and SPICE currents there (below-range check).
  struct Worst {
    double v = 0, i_pwl = 0, i_spice = 0;
  };

 private:
  Worst worst_point(const Watch& w) const;
  void add_pairs(const Circuit& circuit);      // the emitter-coupled pairs (pair check)
  void add_saturated(const Circuit& circuit);  // the transistors with C-E held (saturation check)
  std::vector<Watch> watches_;
  // A junction and its leakage branch (split check): indices into watches_, the run's
  // ∫ e·i_m dt and ∫ i_m dt (trapezoids over the points), the last point's products.
  struct Split {
    size_t main = 0, leak = 0;
    double k = 1;  // 1 + BF (B-E) or 1 + BR (B-C): the junction current's base share is i/k
    double weighted = 0, weight = 0;
    double t_last = 0, p_last = 0, w_last = 0;
    bool seen = false;
  };
  std::vector<Split> splits_;
  // An emitter-coupled pair (pair check): its B-E watches, the node and the worst point.
  struct Pair {
    size_t first = 0, second = 0;
    std::string node;
    double worst = 0, i_pwl = 0, i_spice = 0;  // the largest |e|, its transistor's currents
    double offset = 0;  // there: Δv − (v1(i1) − v2(i2)), the fits' error in the difference
    size_t at = 0;      // the transistor (first or second) it was
    std::string where;
  };
  std::vector<Pair> pairs_;
  // A transistor whose C-E the sources hold (saturation check): its watches (leakages: npos
  // when none), transport gains, and the worst point.
  struct Saturated {
    size_t be = 0, bc = 0, be_leak = static_cast<size_t>(-1), bc_leak = static_cast<size_t>(-1);
    double alpha_f = 1, alpha_r = 1;
    double worst = 0, i_pwl = 0, i_spice = 0, i_b = 0, v_ce = 0;  // the largest |e| and there
    double pwltol = 1e300;    // Δ*/2, the smallest over the saturated points
    std::string node, where;  // the collector's outer node; the worst point
  };
  std::vector<Saturated> saturated_;
  void check_saturated(Saturated& q, double t);  // one point of the saturation check
  std::string where_;
  double settled_ = 0;
  double tol_ = 0.01;  // PWLTOL [V]
  const PwlSettings* pwl_ = nullptr;
};

}  // namespace nsspice::circuit::detail
