// Issue 20: the three-phase modular multilevel converter of bench/mmc.py (examples/mmc_m10.cir:
// M = 10 half-bridge submodules per arm, 120 ideal switches, 120 ideal diodes, phase-shifted
// carrier PWM), run for one full 50 Hz period with the fixed-step θ-scheme, against its design:
//  * levels: the upper arm's voltage v(p) − v(xu10) and the lower arm's v(xl0) − v(n) equal
//    n·Vdc/M and (M − n)·Vdc/M, n = the design count of inserted submodules (the reference
//    1/2 − (m/2) sin(ωt + φ) against the carriers tri(f_c t + (k + 0.3)/M), in closed form), within
//    n·kBand·Vdc/M (each inserted capacitor within the band). Points within 1e-7 s of a carrier
//    crossing are skipped (the two sides of a cut step share its time). All M + 1 levels occur.
//  * arm currents: i_upper − i_lower = i_load (KCL at the phase node), to 1e-9 of the load peak.
//  * balance: every submodule capacitor within ±15 % of Vdc/M = 100 V. An MMC arm's energy swings
//    at the fundamental; with C = 8 mF the swing is about ±7 % here (bench/mmc.py measures it),
//    and the open-loop modulation keeps the capacitors of an arm together: the band is that swing
//    with a margin (without the IC= precharge the capacitors start at 0 V, 100 % off).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>
#include <string>

#include "helpers.hpp"

namespace nsspice::testing {
namespace {

constexpr int kM = 10;
constexpr double kVdc = 1000, kF0 = 50, kFc = 1000, kMi = 0.9, kBand = 0.15;

double tri(double s) {
  s -= std::floor(s);
  return s < 0.5 ? 2 * s : 2 - 2 * s;
}

int n_inserted(double t, double phase_deg) {
  const double pi = std::numbers::pi;
  const double ref = 0.5 - kMi / 2 * std::sin(2 * pi * kF0 * t + phase_deg * pi / 180);
  int n = 0;
  for (int k = 0; k < kM; ++k) n += ref > tri(kFc * t + (k + 0.3) / kM);
  return n;
}

TEST(Mmc, LevelsArmCurrentsAndCapacitorBalanceOverOnePeriod) {
  std::string text = read_example("mmc_m10.cir");
  const std::string tran = ".tran 1e-05 0.001 UIC";
  const auto pos = text.find(tran);
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, tran.size(), ".tran 1e-05 0.02 UIC");
  const Waveforms r = simulate_fixed(text);
  ASSERT_TRUE(r.result.ok) << r.result.error;
  ASSERT_GT(r.t.back(), 0.02 * (1 - 1e-12));
  const double vc = kVdc / kM;
  const auto vp = r.series("v(p)"), vn = r.series("v(n)");
  double cap_dev = 0, kcl = 0, i_peak = 0;
  for (const char* x : {"a", "b", "c"})
    for (double i : r.series(std::string("i(ll") + x + ")")) i_peak = std::max(i_peak, std::abs(i));
  ASSERT_GT(i_peak, 30.0);  // the design load current: 42 A peak
  for (const auto& [x, phase] : {std::pair{"a", 0.0}, {"b", -120.0}, {"c", 120.0}}) {
    const std::string s(x);
    for (const char* arm : {"u", "l"})
      for (int k = 1; k <= kM; ++k) {
        const auto c = r.series("v(" + s + arm + "c" + std::to_string(k) + ")");
        const auto b = (std::string(arm) == "l" && k == kM)
                           ? vn
                           : r.series("v(" + s + arm + std::to_string(k) + ")");
        for (size_t p = 1; p < r.t.size(); ++p)  // row 0: node voltages before the UIC start
          cap_dev = std::max(cap_dev, std::abs(c[p] - b[p] - vc) / vc);
      }
    const auto top = r.series("v(" + s + "u" + std::to_string(kM) + ")");
    const auto bottom = r.series("v(" + s + "l0)");
    const auto iu = r.series("i(larm" + s + "u)"), il = r.series("i(larm" + s + "l)");
    const auto iload = r.series("i(ll" + s + ")");
    std::set<int> levels;
    long checked = 0;
    for (size_t p = 1; p < r.t.size(); ++p) {
      kcl = std::max(kcl, std::abs(iu[p] - il[p] - iload[p]) / i_peak);
      const double t = r.t[p];
      const int n = n_inserted(t, phase);
      if (n_inserted(t - 1e-7, phase) != n || n_inserted(t + 1e-7, phase) != n) continue;
      const double v_upper = vp[p] - top[p], v_lower = bottom[p] - vn[p];
      ASSERT_LE(std::abs(v_upper - n * vc), n * kBand * vc + 1e-9) << s << " t = " << t;
      ASSERT_LE(std::abs(v_lower - (kM - n) * vc), (kM - n) * kBand * vc + 1e-9)
          << s << " t = " << t;
      levels.insert(n);
      ++checked;
    }
    EXPECT_EQ(levels.size(), static_cast<size_t>(kM + 1)) << s;
    EXPECT_GT(checked, 1000) << s;
  }
  EXPECT_LE(cap_dev, kBand);
  EXPECT_GT(cap_dev, 0.01);  // the capacitors do swing: the check sees the waveform
  EXPECT_LE(kcl, 1e-9);
}

}  // namespace
}  // namespace nsspice::testing
