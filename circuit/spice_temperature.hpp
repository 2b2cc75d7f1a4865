#pragma once
// SPICE's temperature dependence of junction parameters, as ngspice computes it (DIOtemp,
// VDMOStemp, BJTtemp with TLEV = TLEVC = 0), for the PWL conversions (docs/devices.md,
// "Temperature"). The math is stated in circuit/src/spice_temperature.cpp.
namespace nsspice::circuit {

inline constexpr double kCelsiusToKelvin = 273.15;

// k·T/q [V] at T [K].
double thermal_voltage(double kelvin);

// IS(T) = IS·exp((T/TNOM − 1)·EG/(N·Vt(T)) + (XTI/N)·ln(T/TNOM))   (T, TNOM in K).
double saturation_current_at(double is, double n, double eg, double xti, double kelvin,
                             double tnom_kelvin);

// The depletion parameters at T: junction potential VJ(T) and zero-bias capacitance CJO(T).
struct Depletion {
  double cjo = 0, vj = 1;
};
Depletion depletion_at(const Depletion& at_tnom, double m, double kelvin, double tnom_kelvin);

}  // namespace nsspice::circuit
