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

double pulse_value(const Pulse& p, double t) {
  if (t <= p.td) return p.v1;
  double tau = t - p.td;
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
    const double base = p.td + (std::isfinite(per) ? k * per : 0.0);
    for (double c : corners) {
      if (std::isfinite(per) && c >= per) continue;
      if (base + c > t) return base + c;
    }
    if (!std::isfinite(per)) break;
  }
  return kInf;
}

double pwl_value(const Pwl& p, double t) {
  if (p.t.empty()) return 0.0;
  if (t <= p.t.front()) return p.v.front();
  if (t >= p.t.back()) return p.v.back();
  const auto it = std::upper_bound(p.t.begin(), p.t.end(), t);
  const size_t i = static_cast<size_t>(it - p.t.begin());
  const double t0 = p.t[i - 1], t1 = p.t[i];
  return p.v[i - 1] + (p.v[i] - p.v[i - 1]) * (t - t0) / (t1 - t0);
}

double pwl_breakpoint(const Pwl& p, double t) {
  const auto it = std::upper_bound(p.t.begin(), p.t.end(), t);
  return it == p.t.end() ? kInf : *it;
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
                 [t](const Pwl& p) { return pwl_value(p, t); }},
      wave);
}

double waveform_next_breakpoint(const Waveform& wave, double t) {
  return std::visit(Overloaded{[](const Dc&) { return kInf; },
                               [t](const Sin& s) { return s.td > t ? s.td : kInf; },
                               [t](const Pulse& p) { return pulse_breakpoint(p, t); },
                               [t](const Pwl& p) { return pwl_breakpoint(p, t); }},
                    wave);
}

}  // namespace nsspice::circuit
