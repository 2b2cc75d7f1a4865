// SPICE junction temperature dependence (ngspice DIOtemp / VDMOStemp, TLEV = TLEVC = 0). With
// T the device temperature, TNOM the measurement temperature (K), Vt(T) = k·T/q and
// T_ref = 300.15 K:
//
//   IS(T)  = IS·exp((T/TNOM − 1)·EG/(N·Vt(T)) + (XTI/N)·ln(T/TNOM))
//
//   E_g(T) = 1.16 − 7.02e-4·T²/(T + 1108)                       (silicon band gap, eV)
//   φ(T)   = −2·Vt(T)·(1.5·ln(T/T_ref) + q·(−E_g(T)/(2kT) + 1.1150877/(2k·T_ref)))
//   VJ_ref = (VJ − φ(TNOM))/(TNOM/T_ref),   VJ(T) = φ(T) + (T/T_ref)·VJ_ref
//   CJO(T) = CJO·(1 + M·(4e-4·(T − T_ref) − γ(T))) / (1 + M·(4e-4·(TNOM − T_ref) − γ(TNOM))),
//            γ(T) = (VJ(T) − VJ_ref)/VJ_ref
//
// (the constants are ngspice's; at T = TNOM every value is the model's own).
#include "circuit/spice_temperature.hpp"

#include <cmath>

#include "circuit/pwl_diode.hpp"

namespace nsspice::circuit {
namespace {

constexpr double kBoltzmann = 1.38064852e-23;  // J/K, ngspice's CONSTboltz
constexpr double kCharge = 1.6021766208e-19;   // C, ngspice's CHARGE

// φ(T): the temperature shift of the junction potential (ngspice's pbfact).
double potential_shift(double kelvin) {
  const double eg = 1.16 - 7.02e-4 * kelvin * kelvin / (kelvin + 1108);
  const double arg =
      -eg / (2 * kBoltzmann * kelvin) + 1.1150877 / (2 * kBoltzmann * kNominalKelvin);
  return -2 * thermal_voltage(kelvin) * (1.5 * std::log(kelvin / kNominalKelvin) + kCharge * arg);
}

}  // namespace

double thermal_voltage(double kelvin) { return kBoltzmannOverCharge * kelvin; }

double saturation_current_at(double is, double n, double eg, double xti, double kelvin,
                             double tnom_kelvin) {
  const double ratio = kelvin / tnom_kelvin;
  return is *
         std::exp((ratio - 1) * eg / (n * thermal_voltage(kelvin)) + xti / n * std::log(ratio));
}

Depletion depletion_at(const Depletion& at_tnom, double m, double kelvin, double tnom_kelvin) {
  const double vj_ref =
      (at_tnom.vj - potential_shift(tnom_kelvin)) / (tnom_kelvin / kNominalKelvin);
  const double gamma_old = (at_tnom.vj - vj_ref) / vj_ref;
  Depletion out;
  out.vj = potential_shift(kelvin) + kelvin / kNominalKelvin * vj_ref;
  const double gamma_new = (out.vj - vj_ref) / vj_ref;
  out.cjo = at_tnom.cjo / (1 + m * (4e-4 * (tnom_kelvin - kNominalKelvin) - gamma_old)) *
            (1 + m * (4e-4 * (kelvin - kNominalKelvin) - gamma_new));
  return out;
}

}  // namespace nsspice::circuit
