#pragma once
// Independent source waveforms with SPICE argument order and ngspice's defaults:
//
//   DC v
//   SIN(vo va freq td theta phase):  t < td: vo + va sin(φ);
//                                    t ≥ td: vo + va e^{−θ(t−td)} sin(2π f (t−td) + φ), φ in
//                                    degrees
//   PULSE(v1 v2 td tr tf pw per):    v1 until td, linear rise in tr to v2, v2 for pw, linear
//                                    fall in tf, repeating with period per
//   PWL(t1 v1 t2 v2 ...):            linear between points, constant before the first and after
//                                    the last
//
// Defaults (ngspice): freq = 1/TSTOP; tr = tf = TSTEP when absent or 0; pw = per = TSTOP.
// Breakpoints (corners of PULSE and PWL, the start td of SIN) are where the waveform or its
// derivative jumps; the time stepper lands on every one of them.
#include <variant>
#include <vector>

namespace nsspice::circuit {

struct Dc {
  double value = 0;
};
struct Sin {
  double vo = 0, va = 0, freq = 0, td = 0, theta = 0, phase_deg = 0;
};
struct Pulse {
  double v1 = 0, v2 = 0, td = 0, tr = 0, tf = 0, pw = 0, per = 0;
};
struct Pwl {
  std::vector<double> t, v;  // strictly increasing t
};
using Waveform = std::variant<Dc, Sin, Pulse, Pwl>;

double waveform_value(const Waveform& wave, double t);
// Smallest breakpoint strictly greater than t (+inf if none).
double waveform_next_breakpoint(const Waveform& wave, double t);

}  // namespace nsspice::circuit
