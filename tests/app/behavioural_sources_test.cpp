// Behavioural sources against closed forms at every output point: affine B/E/G sources and
// POLY(1) exactly (1e-12), and the piecewise-linear functions (limit, min, max, abs, uramp, u)
// exactly through their complementarity pairs; a function of time as the source's waveform.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "app/io/waveforms.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

class BehaviouralSources : public AppTest {};

TEST_F(BehaviouralSources, PiecewiseLinearFunctionsAreExact) {
  write("b.cir",
        "b\nV1 in 0 SIN(0 5 1k)\nR0 in 0 1k\nB1 lim 0 V=limit(v(in), -1, 2)\nR1 lim 0 1k\n"
        "E2 mx 0 VALUE={max(v(in), 1) - min(v(in), -2)}\nR2 mx 0 1k\n"
        "B3 ab 0 V=abs(v(in)) + uramp(v(in)-3)\nR3 ab 0 1k\nB4 st 0 V=2*u(v(in)-1)\nR4 st 0 1k\n"
        "G5 0 gi VALUE={1m*max(0, v(in))}\nR5 gi 0 1k\n"
        "E6 p 0 POLY(1) in 0 0.5 2\nR6 p 0 1k\nB7 af 0 V=3*(v(in) - v(p)/2) + 1\nR7 af 0 1k\n"
        "B8 tm 0 V=v(in) + 0.5*sin(2*pi*250*time)\nR8 tm 0 1k\n.tran 1u 2m\n.end\n");
  const CliRun r = nsspice("run b.cir -o b.csv -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string error;
  const auto w = app::read_waveforms((dir_ / "b.csv").string(), error);
  ASSERT_TRUE(w) << error;
  auto col = [&](const char* name) {
    const auto k = w->index(name);
    EXPECT_TRUE(k) << name;
    return k ? w->columns[*k] : std::vector<double>(w->points(), NAN);
  };
  const auto in = col("v(in)"), lim = col("v(lim)"), mx = col("v(mx)"), ab = col("v(ab)"),
             st = col("v(st)"), gi = col("v(gi)"), p = col("v(p)"), af = col("v(af)"),
             tm = col("v(tm)");
  ASSERT_GT(w->points(), 2000u);
  size_t steps_checked = 0;
  for (size_t i = 0; i < w->points(); ++i) {
    const double v = in[i];
    EXPECT_NEAR(lim[i], std::clamp(v, -1.0, 2.0), 1e-12) << "t = " << w->time[i];
    EXPECT_NEAR(mx[i], std::max(v, 1.0) - std::min(v, -2.0), 1e-12);
    EXPECT_NEAR(ab[i], std::abs(v) + std::max(0.0, v - 3), 1e-12);
    EXPECT_NEAR(gi[i], std::max(0.0, v), 1e-12);  // 1 mA/V into 1 kΩ
    EXPECT_NEAR(p[i], 0.5 + 2 * v, 1e-12);
    EXPECT_NEAR(af[i], 3 * (v - p[i] / 2) + 1, 1e-12);
    EXPECT_NEAR(tm[i], v + 0.5 * std::sin(2 * std::numbers::pi * 250 * w->time[i]), 1e-12);
    if (std::abs(v - 1) > 1e-9) {  // at u = 0 the relay may take any value in [0, 2]
      EXPECT_EQ(st[i], v > 1 ? 2.0 : 0.0) << "t = " << w->time[i];
      ++steps_checked;
    }
  }
  EXPECT_GT(steps_checked, 2000u);
}

}  // namespace
}  // namespace nsspice::testing
