// The error-controlled θ-scheme (.options stepping=adaptive; docs/theory.md §11) against
// converged references: the fixed-step scheme at a step far below the adaptive one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "helpers.hpp"

namespace nsspice::testing {
namespace {

// Linear interpolation of `r`'s signal at time t (r's points are 0.1 µs apart or closer).
double at_time(const Waveforms& r, const std::vector<double>& v, double t) {
  const auto it = std::lower_bound(r.t.begin(), r.t.end(), t);
  if (it == r.t.begin()) return v.front();
  if (it == r.t.end()) return v.back();
  const size_t k = static_cast<size_t>(it - r.t.begin());
  const double a = (t - r.t[k - 1]) / (r.t[k] - r.t[k - 1]);
  return (1 - a) * v[k - 1] + a * v[k];
}

circuit::TransientOptions adaptive() {
  circuit::TransientOptions o;
  o.adaptive = true;
  return o;
}

const char* kRectifier =
    "half-wave\nV1 in 0 SIN(0 10 50)\nD1 in out DI\nC1 out 0 10u\nR1 out 0 1k\n.model DI D\n"
    ".options reltol={reltol}\n.tran 1m 60m\n.end\n";

std::string with_reltol(double reltol) {
  std::string s = kRectifier;
  s.replace(s.find("{reltol}"), 8, std::to_string(reltol));
  return s;
}

// The global error of v(out) at every accepted point stays below 10·RELTOL of the signal's
// scale (10 V), and falls with RELTOL: 100 times smaller RELTOL, at least 10 times smaller error.
TEST(Adaptive, RectifierErrorFallsWithReltol) {
  circuit::TransientOptions fine;
  fine.h = 0.1e-6;
  const Waveforms ref = simulate(with_reltol(1e-3), fine);
  ASSERT_TRUE(ref.result.ok) << ref.result.error;
  const auto v_ref = ref.series("v(out)");
  double errors[2] = {0, 0};
  const double reltols[2] = {1e-3, 1e-5};
  for (int k = 0; k < 2; ++k) {
    const Waveforms a = simulate(with_reltol(reltols[k]), adaptive());
    ASSERT_TRUE(a.result.ok) << a.result.error;
    EXPECT_LT(a.result.stats.steps, 600000 / 100) << "far fewer steps than the reference";
    const auto v = a.series("v(out)");
    for (size_t i = 0; i < a.t.size(); ++i)
      errors[k] = std::max(errors[k], std::abs(v[i] - at_time(ref, v_ref, a.t[i])));
    EXPECT_LT(errors[k], 10 * reltols[k] * 10.0) << "RELTOL " << reltols[k];
  }
  EXPECT_LT(errors[1], errors[0] / 10) << errors[0] << " " << errors[1];
}

// A four-stage Cockcroft–Walton multiplier driven at 100 MHz with TSTEP a half period: the
// fixed step at TSTEP is far off, the adaptive run within 0.5 % of the converged output.
TEST(Adaptive, MultiplierAt100MHzMatchesTheConvergedReference) {
  std::string text =
      "cw\nV1 in 0 SIN(0 1 100meg)\nC1 in n1 10p\nD1 0 n1 DI\nC2 0 n2 10p\nD2 n1 n2 DI\n"
      "C3 n1 n3 10p\nD3 n2 n3 DI\nC4 n2 n4 10p\nD4 n3 n4 DI\nC5 n3 n5 10p\nD5 n4 n5 DI\n"
      "C6 n4 n6 10p\nD6 n5 n6 DI\nC7 n5 n7 10p\nD7 n6 n7 DI\nC8 n6 n8 10p\nD8 n7 n8 DI\n"
      "RL n8 0 100k\n.model DI D\n.tran 5n 3u\n.end\n";
  circuit::TransientOptions fine;
  fine.h = 0.05e-9;
  const Waveforms ref = simulate(text, fine);
  ASSERT_TRUE(ref.result.ok) << ref.result.error;
  const double v_ref = ref.series("v(n8)").back();
  const Waveforms a = simulate(text, adaptive());
  ASSERT_TRUE(a.result.ok) << a.result.error;
  EXPECT_NEAR(a.series("v(n8)").back(), v_ref, 5e-3 * v_ref);
  EXPECT_GT(a.result.stats.located_events, 100);
  const Waveforms coarse = simulate_fixed(text);  // h = TSTEP = 5 ns
  ASSERT_TRUE(coarse.result.ok) << coarse.result.error;
  EXPECT_GT(std::abs(coarse.series("v(n8)").back() - v_ref), 0.05 * v_ref)
      << "the case discriminates: the fixed step at TSTEP is wrong";
}

}  // namespace
}  // namespace nsspice::testing
