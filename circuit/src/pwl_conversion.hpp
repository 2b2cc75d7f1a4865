#pragma once
// Internal: what the SPICE → PWL conversions share (pwl_models.cpp for diodes and MOS level 1,
// pwl_transistors.cpp for VDMOS and bipolar transistors): the circuit's scales, the model
// temperature, and the report's wording.
#include <set>
#include <string>

#include "circuit/circuit.hpp"
#include "circuit/src/elaborator.hpp"

namespace nsspice::circuit::detail {

// Scales of the circuit from its sources and resistors (but the transistors' own series
// resistors, `internal`).
Scales circuit_scales(const Circuit& c, const std::set<std::string>& internal);

// Σ_sources max|V(t)| (1 V without a source): a bound on a junction's or a gate's swing, the
// reverse swing a junction charge is fitted over (below it the lowest chord continues).
double voltage_swing(const Scales& s);
// The largest diode current the circuit's sources can drive (docs/devices.md, "Current range").
double estimated_imax(const Scales& s, double rs);
// A bipolar transistor's: its junction currents flow through the circuit's resistors (a
// coupling or bypass capacitor does not sit across a junction with nothing else), so R_min is
// kept with capacitors and inductors too; RE is the series resistance; a source current may be
// a base current, amplified by up to 1 + BF.
double estimated_bjt_imax(const Scales& s, double re, double bf);
// How imax was chosen, for the report: "imax from .options pwlimax" or "imax estimated as
// 2·(ΣV 24 V/(R_min 0 Ω + RS 34 mΩ) + ΣI 0 A) (R_min 0: ...); .options pwlimax sets it".
// keep_r_min: R_min kept with capacitors (estimated_bjt_imax); gain: the factor of ΣI.
// `refit`: the model's refit (fit_range), said instead.
std::string imax_reason(const PwlSettings& pwl, const Scales& s, double rs, const char* rs_name,
                        bool keep_r_min = false, double gain = 1, const PwlRefit* refit = nullptr);

// The current range of model `model`'s fit: its refit's (PwlSettings::refit) when it has one,
// else [PWLIMIN, PWLIMAX] with `estimated` for an unset PWLIMAX and imax·1e-6 for an unset
// PWLIMIN.
struct FitRange {
  double imin = 0, imax = 0;
  const PwlRefit* refit = nullptr;
};
FitRange fit_range(const PwlSettings& pwl, const std::string& model, double estimated);

// A model's temperatures [K]: the circuit's (.temp) and its TNOM (the model's, else .options).
struct ModelTemperature {
  double kelvin = 300.15, tnom_kelvin = 300.15;
  double delta() const { return kelvin - tnom_kelvin; }
  double vt() const;  // k·T/q
};
ModelTemperature model_temperature(const PwlSettings& pwl, double model_tnom_celsius);

// The depletion charge (CJO VJ M FC at T) as the convex PWL charge stamped (junction_charge.hpp,
// pwl_charge): a knot at 0, knots below it over the reverse swing [lo, 0] within the charge
// tolerance `tol` (.options pwlqtol; 0: none, one chord over [lo, 0]), one slope over the
// forward side [0, hi] (hi: where the junction's PWL starts to conduct), with its report
// ("CJO 15 pF, VJ ..., as a PWL charge: 5.2 pF over −40…−7.1 V, …, 24 pF over 0…0.41 V (charge
// within 5 %)").
struct JunctionCharge {
  PwlCharge q;
  std::string summary;
};
JunctionCharge junction_charge(const char* label, double cjo, double vj, double m, double fc,
                               const ModelTemperature& t, double lo, double hi, double tol);
// "… as a PWL charge: C_0 over lo…v_1, C_1 over v_1…v_2, …" (or "as a linear C_lo over …").
std::string charge_summary(const PwlCharge& q, double lo, double hi);

// 1 µA, 30 A, 9.8 mV: values with SI prefixes.
std::string si(double x, const char* unit);
// "6 segments over 1 µA–30 A, max error 7 mV (drop 0.55–1.2 V)".
std::string branch_summary(const PwlFit& f, const ExpBranch& b);
// "at 100 °C (TNOM 27 °C): IS 7.03 nA → 2.1 µA" or "" at TNOM.
std::string temperature_summary(const ModelTemperature& t, double is, double is_t);

}  // namespace nsspice::circuit::detail
