#pragma once
// Nonlinear SPICE capacitances turned into a convex PWL charge (circuit.hpp, PwlCharge) over
// stated bias ranges: chords of the charge Q(v) between knots, so that the PWL charge moves
// exactly the charge the nonlinear one moves between any two knots; below the kink as many
// knots as a charge tolerance needs, above it one slope (docs/devices.md, "Capacitances"). The
// charges' math is stated in circuit/src/junction_charge.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "circuit/circuit.hpp"

namespace nsspice::circuit {

// SPICE's depletion charge of a junction (CJO VJ M FC), Q(0) = 0.
struct DepletionCharge {
  double cjo = 0, vj = 1, m = 0.5, fc = 0.5;
  double charge(double v) const;       // Q(v) [C]
  double capacitance(double v) const;  // dQ/dv [F]
};

// ngspice's VDMOS gate-drain capacitance (CGDMAX CGDMIN A), Q(0) = 0, as a function of v_gd.
struct VdmosGateDrainCharge {
  double cgdmax = 0, cgdmin = 0, a = 1;
  double charge(double v) const;
  double capacitance(double v) const;
};

// (Q(hi) − Q(lo))/(hi − lo) for hi > lo; Q'(lo) when they coincide.
template <class Charge>
double charge_equivalent(const Charge& q, double lo, double hi) {
  return hi > lo ? (q.charge(hi) - q.charge(lo)) / (hi - lo) : q.capacitance(lo);
}

// The convex PWL charge of q over [lo, hi] with a knot at `kink` (lo < kink): it interpolates q
// at its knots, so it moves exactly the charge q moves between any two of them. Below the kink,
// knots are placed from the kink down, each segment as long as its chord stays within
//
//   |chord(v) − Q(v)| ≤ tol·max(|Q(v) − Q(kink)|, C(kink)·1 V)
//
// (a relative error of the charge moved from the kink, floored at the charge of 1 V at the
// kink's capacitance); the lowest segment is the chord over [lo, its upper knot], continued
// below lo. Q is convex (C rises with v) for the charges here, so every slope step is > 0.
// Above the kink one slope, the chord over [kink, hi]; it is dropped (the knots placed from hi
// down instead, none at the kink) when its excess charge (C_hi − C_below)·(hi − kink) is below
// kMinExcess of the reverse charge Q(kink) − Q(lo): its knot would cost a pair and a mode change
// at every crossing for less than that. With hi ≤ kink: the segments up to the kink, no knot
// there. tol = ∞: the two-slope charge (one chord each side).
inline constexpr double kMinExcess = 0.01;

namespace detail {
// max over [a, b] of the chord's charge error, relative as above (65 samples).
template <class Charge>
double chord_error(const Charge& q, double a, double b, double kink, double floor) {
  const double qa = q.charge(a), qb = q.charge(b), qk = q.charge(kink);
  double worst = 0;
  for (int i = 1; i < 64; ++i) {
    const double v = a + (b - a) * i / 64.0;
    const double chord = qa + (qb - qa) * (v - a) / (b - a);
    worst = std::max(worst,
                     std::abs(chord - q.charge(v)) / std::max(std::abs(q.charge(v) - qk), floor));
  }
  return worst;
}
}  // namespace detail

template <class Charge>
PwlCharge pwl_charge(const Charge& q, double lo, double kink, double hi, double tol) {
  const double floor = q.capacitance(kink) * 1.0;
  // Breakpoints from lo up to `top`, ascending: knots placed down from top within tol.
  const auto place = [&](double top) {
    std::vector<double> at = {top};
    constexpr int kMaxKnots = 32;
    while (std::isfinite(tol) && static_cast<int>(at.size()) < kMaxKnots &&
           detail::chord_error(q, lo, at.back(), kink, floor) > tol) {
      const double b = at.back();
      double ok = 1e-6 * (b - lo), bad = b - lo;  // segment widths, bisected in log
      for (int i = 0; i < 40 && bad > 1.001 * ok; ++i) {
        const double w = std::sqrt(ok * bad);
        (detail::chord_error(q, b - w, b, kink, floor) <= tol ? ok : bad) = w;
      }
      at.push_back(b - ok);
    }
    at.push_back(lo);
    return std::vector<double>(at.rbegin(), at.rend());
  };
  std::vector<double> p = place(kink);
  if (hi > kink) {
    const double below = charge_equivalent(q, p[p.size() - 2], kink);
    const double c_fwd = charge_equivalent(q, kink, hi);
    if ((c_fwd - below) * (hi - kink) >= kMinExcess * (q.charge(kink) - q.charge(lo)))
      p.push_back(hi);
    else
      p = place(hi);  // no knot at the kink: the segments placed from hi down
  }
  PwlCharge out;
  double previous = 0;
  for (std::size_t i = 0; i + 1 < p.size(); ++i) {
    const double slope = charge_equivalent(q, p[i], p[i + 1]);
    if (i == 0)
      out.c_lo = slope;
    else if (slope > previous)
      out.knots.push_back({p[i], slope - previous});
    previous = slope;
  }
  return out;
}

// The two-slope PWL charge of q over [lo, kink] and [kink, hi] (pwl_charge with tol = ∞).
template <class Charge>
PwlCharge two_slope(const Charge& q, double lo, double kink, double hi) {
  return pwl_charge(q, lo, kink, hi, std::numeric_limits<double>::infinity());
}

}  // namespace nsspice::circuit
