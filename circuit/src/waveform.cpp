#include "circuit/waveform.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace nsspice::circuit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;  // (clang 14 needs the guide)

double pulse_value(const Pulse& p, double t) {
  if (t <= p.td) return p.v1;
  double tau = t - p.td;
  if (p.np > 0 && p.per > 0 && tau >= p.np * p.per) return p.v1;  // after the last pulse
  if (p.per > 0) tau = std::fmod(tau, p.per);
  if (tau < p.tr) return p.v1 + (p.v2 - p.v1) * tau / p.tr;
  if (tau <= p.tr + p.pw) return p.v2;
  if (tau < p.tr + p.pw + p.tf) return p.v2 + (p.v1 - p.v2) * (tau - p.tr - p.pw) / p.tf;
  return p.v1;
}

double pulse_breakpoint(const Pulse& p, double t) {
  if (t < p.td) return p.td;
  const double corners[] = {0.0, p.tr, p.tr + p.pw, p.tr + p.pw + p.tf};
  const double per = p.per > 0 ? p.per : kInf;
  double k = std::isfinite(per) ? std::floor((t - p.td) / per) : 0.0;
  for (int period = 0; period < 2; ++period, k += 1.0) {
    if (p.np > 0 && std::isfinite(per) && k >= p.np) {  // the last pulse's period has ended
      const double end = p.td + p.np * per;
      return end > t ? end : kInf;
    }
    const double base = p.td + (std::isfinite(per) ? k * per : 0.0);
    for (double c : corners) {
      if (std::isfinite(per) && c >= per) continue;
      if (base + c > t) return base + c;
    }
    if (!std::isfinite(per)) break;
  }
  return kInf;
}

// Local time of a PWL with delay and repetition: t − td, folded into [r, t_last) when repeating
// (for repeat_count plays of [r, t_last] at most; after them it runs on past t_last).
double pwl_local(const Pwl& p, double t) {
  double u = t - p.td;
  if (p.repeat >= 0 && !p.t.empty() && u > p.t.back() && p.t.back() > p.repeat) {
    const double per = p.t.back() - p.repeat;
    if (p.repeat_count > 0 && u >= p.repeat + p.repeat_count * per)
      return u - (p.repeat_count - 1) * per;
    u = p.repeat + std::fmod(u - p.repeat, per);
  }
  return u;
}

double pwl_value(const Pwl& p, double t_global) {
  if (p.t.empty()) return 0.0;
  const double t = pwl_local(p, t_global);
  if (t <= p.t.front()) return p.v.front();
  if (t >= p.t.back()) return p.v.back();
  const auto it = std::upper_bound(p.t.begin(), p.t.end(), t);
  const size_t i = static_cast<size_t>(it - p.t.begin());
  const double t0 = p.t[i - 1], t1 = p.t[i];
  return p.v[i - 1] + (p.v[i] - p.v[i - 1]) * (t - t0) / (t1 - t0);
}

double pwl_breakpoint(const Pwl& p, double t_global) {
  const double u = pwl_local(p, t_global);
  const double shift = t_global - u;  // td, plus whole repetitions
  const auto it = std::upper_bound(p.t.begin(), p.t.end(), u);
  if (it != p.t.end()) return *it + shift;
  if (p.repeat < 0 || p.t.back() <= p.repeat) return kInf;
  const double per = p.t.back() - p.repeat;
  // The plays of a counted repetition are over once the local time runs past t_last.
  if (p.repeat_count > 0 && t_global - p.td >= p.repeat + p.repeat_count * per) return kInf;
  // Next period: the first point after r.
  const auto first = std::upper_bound(p.t.begin(), p.t.end(), p.repeat);
  return shift + p.t.back() + (first == p.t.end() ? 0.0 : *first - p.repeat);
}

double exp_value(const Exp& e, double t) {
  double v = e.v1;
  if (t > e.td1) v += (e.v2 - e.v1) * (1 - std::exp(-(t - e.td1) / e.tau1));
  if (t > e.td2) v += (e.v1 - e.v2) * (1 - std::exp(-(t - e.td2) / e.tau2));
  return v;
}

double sin_value(const Sin& s, double t) {
  const double phase = s.phase_deg * std::numbers::pi / 180.0;
  if (t < s.td) return s.vo + s.va * std::sin(phase);
  const double tau = t - s.td;
  return s.vo +
         s.va * std::exp(-s.theta * tau) * std::sin(2.0 * std::numbers::pi * s.freq * tau + phase);
}

}  // namespace

double waveform_value(const Waveform& wave, double t) {
  return std::visit(
      Overloaded{[](const Dc& d) { return d.value; }, [t](const Sin& s) { return sin_value(s, t); },
                 [t](const Pulse& p) { return pulse_value(p, t); },
                 [t](const Pwl& p) { return pwl_value(p, t); },
                 [t](const Exp& e) { return exp_value(e, t); },
                 [t](const Sffm& f) {
                   const double two_pi = 2 * std::numbers::pi;
                   return f.vo +
                          f.va * std::sin(two_pi * f.fc * t + f.mdi * std::sin(two_pi * f.fs * t));
                 },
                 [t](const TimeFunction& f) { return f.f(t); }},
      wave);
}

double waveform_next_breakpoint(const Waveform& wave, double t) {
  return std::visit(
      Overloaded{[](const Dc&) { return kInf; },
                 [t](const Sin& s) { return s.td > t ? s.td : kInf; },
                 [t](const Pulse& p) { return pulse_breakpoint(p, t); },
                 [t](const Pwl& p) { return pwl_breakpoint(p, t); },
                 [t](const Exp& e) { return e.td1 > t   ? e.td1
                                            : e.td2 > t ? e.td2
                                                        : kInf; },
                 [](const Sffm&) { return kInf; }, [](const TimeFunction&) { return kInf; }},
      wave);
}

double waveform_step_bound(const Waveform& wave) {
  constexpr double kPointsPerPeriod = 20, kPointsPerTau = 4;
  constexpr double kNone = std::numeric_limits<double>::infinity();
  if (const auto* s = std::get_if<Sin>(&wave))
    return s->freq > 0 && s->va != 0 ? 1.0 / (kPointsPerPeriod * s->freq) : kNone;
  if (const auto* f = std::get_if<Sffm>(&wave)) {
    const double fmax = std::abs(f->fc) + std::abs(f->mdi * f->fs);
    return fmax > 0 && f->va != 0 ? 1.0 / (kPointsPerPeriod * fmax) : kNone;
  }
  if (const auto* e = std::get_if<Exp>(&wave)) {
    if (e->v1 == e->v2) return kNone;
    double tau = kNone;
    if (e->tau1 > 0) tau = std::min(tau, e->tau1);
    if (e->tau2 > 0) tau = std::min(tau, e->tau2);
    return tau / kPointsPerTau;
  }
  return kNone;
}

}  // namespace nsspice::circuit
