#pragma once
// Independent source waveforms with SPICE argument order and ngspice's defaults:
//
//   DC v
//   SIN(vo va freq td theta phase):  t < td: vo + va sin(φ);
//                                    t ≥ td: vo + va e^{−θ(t−td)} sin(2π f (t−td) + φ), φ in
//                                    degrees
//   PULSE(v1 v2 td tr tf pw per):    v1 until td, linear rise in tr to v2, v2 for pw, linear
//                                    fall in tf, repeating with period per
//   PWL(t1 v1 t2 v2 ...) [r=R] [td=TD]: linear between points, constant before the first and
//                                    after the last; shifted by TD; with r= the part from time R
//                                    to the last point repeats for ever
//   EXP(v1 v2 td1 tau1 td2 tau2):    v1 until td1, → v2 with tau1, back → v1 from td2 with tau2
//   SFFM(vo va fc mdi fs):           vo + va sin(2π fc t + mdi sin(2π fs t))
//   TimeFunction:                    f(t), a behavioural source's function of `time`
//                                    (circuit/src/behavioural.hpp; continuous: no breakpoints)
//
// Defaults (ngspice): freq = 1/TSTOP; tr = tf = TSTEP when absent or 0; pw = per = TSTOP;
// EXP: tau1 = tau2 = TSTEP, td2 = td1 + TSTEP; SFFM: fc = fs = 1/TSTOP.
// Breakpoints (corners of PULSE and PWL, the start td of SIN) are where the waveform or its
// derivative jumps; the time stepper lands on every one of them.
#include <functional>
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
  double np = 0;  // the number of pulses (ngspice's NP, LTspice's Ncycles); 0: no end
};
struct Pwl {
  std::vector<double> t, v;  // strictly increasing t
  double td = 0;             // delay
  double repeat = -1;        // r=: repeat from this time (≥ 0), −1: no repetition
  double repeat_count = 0;   // how many times [repeat, t.back()] is played, 0: forever
};
struct Exp {
  double v1 = 0, v2 = 0, td1 = 0, tau1 = 0, td2 = 0, tau2 = 0;
};
struct Sffm {
  double vo = 0, va = 0, fc = 0, mdi = 0, fs = 0;
};
struct TimeFunction {
  std::function<double(double)> f;
};
using Waveform = std::variant<Dc, Sin, Pulse, Pwl, Exp, Sffm, TimeFunction>;

double waveform_value(const Waveform& wave, double t);
// Smallest breakpoint strictly greater than t (+inf if none).
double waveform_next_breakpoint(const Waveform& wave, double t);
// The largest step that resolves the waveform's smooth content between breakpoints (+inf for
// piecewise-linear waveforms): 1/(20 f) for SIN (f the highest instantaneous frequency for SFFM),
// τ/4 for EXP.
double waveform_step_bound(const Waveform& wave);

}  // namespace nsspice::circuit
