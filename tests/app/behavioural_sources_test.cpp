// Behavioural sources against closed forms at every output point: affine B/E/G sources and
// POLY(1) exactly (1e-12), and the piecewise-linear functions (limit, min, max, abs, uramp, u,
// comparisons, if / ?:, && ||, table, pwl) exactly through their complementarity pairs; a
// function of time as the source's waveform; .param names, and B sources inside subcircuits.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "app/io/waveforms.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

class BehaviouralSources : public AppTest {
 protected:
  // Runs `netlist` (written to the test directory) into a CSV and reads it back.
  app::Waveforms run_csv(const std::string& name, const std::string& netlist) {
    write(name, netlist);
    const CliRun r = nsspice("run " + name + " -o out.csv -q");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::string error;
    auto w = app::read_waveforms((dir_ / "out.csv").string(), error);
    EXPECT_TRUE(w) << error;
    return w.value_or(app::Waveforms{});
  }
  static std::vector<double> col(const app::Waveforms& w, const char* name) {
    const auto k = w.index(name);
    EXPECT_TRUE(k) << name;
    return k ? w.columns[*k] : std::vector<double>(w.points(), NAN);
  }
};

TEST_F(BehaviouralSources, PiecewiseLinearFunctionsAreExact) {
  const app::Waveforms w = run_csv(
      "b.cir",
      "b\nV1 in 0 SIN(0 5 1k)\nR0 in 0 1k\nB1 lim 0 V=limit(v(in), -1, 2)\nR1 lim 0 1k\n"
      "E2 mx 0 VALUE={max(v(in), 1) - min(v(in), -2)}\nR2 mx 0 1k\n"
      "B3 ab 0 V=abs(v(in)) + uramp(v(in)-3)\nR3 ab 0 1k\nB4 st 0 V=2*u(v(in)-1)\nR4 st 0 1k\n"
      "G5 0 gi VALUE={1m*max(0, v(in))}\nR5 gi 0 1k\n"
      "E6 p 0 POLY(1) in 0 0.5 2\nR6 p 0 1k\nB7 af 0 V=3*(v(in) - v(p)/2) + 1\nR7 af 0 1k\n"
      "B8 tm 0 V=v(in) + 0.5*sin(2*pi*250*time)\nR8 tm 0 1k\n.tran 1u 2m\n.end\n");
  const auto in = col(w, "v(in)"), lim = col(w, "v(lim)"), mx = col(w, "v(mx)"),
             ab = col(w, "v(ab)"), st = col(w, "v(st)"), gi = col(w, "v(gi)"), p = col(w, "v(p)"),
             af = col(w, "v(af)"), tm = col(w, "v(tm)");
  ASSERT_GT(w.points(), 2000u);
  size_t steps_checked = 0;
  for (size_t i = 0; i < w.points(); ++i) {
    const double v = in[i];
    EXPECT_NEAR(lim[i], std::clamp(v, -1.0, 2.0), 1e-12) << "t = " << w.time[i];
    EXPECT_NEAR(mx[i], std::max(v, 1.0) - std::min(v, -2.0), 1e-12);
    EXPECT_NEAR(ab[i], std::abs(v) + std::max(0.0, v - 3), 1e-12);
    EXPECT_NEAR(gi[i], std::max(0.0, v), 1e-12);  // 1 mA/V into 1 kΩ
    EXPECT_NEAR(p[i], 0.5 + 2 * v, 1e-12);
    EXPECT_NEAR(af[i], 3 * (v - p[i] / 2) + 1, 1e-12);
    EXPECT_NEAR(tm[i], v + 0.5 * std::sin(2 * std::numbers::pi * 250 * w.time[i]), 1e-12);
    if (std::abs(v - 1) > 1e-9) {  // at u = 0 the relay may take any value in [0, 2]
      EXPECT_EQ(st[i], v > 1 ? 2.0 : 0.0) << "t = " << w.time[i];
      ++steps_checked;
    }
  }
  EXPECT_GT(steps_checked, 2000u);
}

// limit(x, a, b) clamps x between a and b in either order (LTspice, PSpice, as .param's limit);
// sgn(x) is 2·u(x) − 1 (it was an unknown function):
// with the bounds written high first it returned −x inside them and swapped the clamps. Bounds
// that are unknowns (v(hi) and v(lo) cross each other here) take the median of the three.
TEST_F(BehaviouralSources, LimitTakesItsBoundsInEitherOrder) {
  const app::Waveforms w = run_csv(
      "lim.cir",
      "lim\nV1 in 0 SIN(0 5 1k)\nR0 in 0 1k\nB1 down 0 V=limit(v(in), 2, -1)\nR1 down 0 1k\n"
      "V2 a 0 SIN(0 3 300)\nR2 a 0 1k\nB3 med 0 V=limit(v(in), v(a), 1)\nR3 med 0 1k\n"
      ".param p={limit(0.5, 1, -1)}\nB4 par 0 V={p}\nR4 par 0 1k\n"
      "B5 sg 0 V=3*sgn(v(in))\nR5 sg 0 1k\n.tran 1u 4m\n.end\n");
  const auto in = col(w, "v(in)"), down = col(w, "v(down)"), a = col(w, "v(a)"),
             med = col(w, "v(med)"), par = col(w, "v(par)"), sg = col(w, "v(sg)");
  ASSERT_GT(w.points(), 4000u);
  for (size_t i = 0; i < w.points(); ++i) {
    EXPECT_NEAR(down[i], std::clamp(in[i], -1.0, 2.0), 1e-12) << "t = " << w.time[i];
    const double lo = std::min(a[i], 1.0), hi = std::max(a[i], 1.0);
    EXPECT_NEAR(med[i], std::clamp(in[i], lo, hi), 1e-12) << "t = " << w.time[i];
    EXPECT_NEAR(par[i], 0.5, 1e-15);
    if (std::abs(in[i]) > 1e-9) {  // sgn: the relay from −1 to 1 (at 0 anywhere between)
      EXPECT_EQ(sg[i], in[i] > 0 ? 3.0 : -3.0) << "t = " << w.time[i];
    }
  }
}

// LTspice's table() holds its end values, ngspice's pwl() extends its end segments.
double table(double x, bool clamp) {
  const double xs[] = {-2, 0, 1, 3}, ys[] = {-1, 0, 2, 2.5};
  if (clamp && x <= xs[0]) return ys[0];
  if (clamp && x >= xs[3]) return ys[3];
  int k = 0;
  while (k < 2 && x > xs[k + 1]) ++k;
  return ys[k] + (ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k]) * (x - xs[k]);
}

TEST_F(BehaviouralSources, ConditionsTablesParametersAndSubcircuitsAreExact) {
  const app::Waveforms w =
      run_csv("c.cir",
              "c\n.param gain=3 lev={gain/2} hi=2\n"
              ".subckt clip a b params: top=1\nB1 b 0 V=min(v(a), top) + 1k*i(vs)\nVs a m 0\n"
              "R1 m 0 1k\nR2 b 0 1k\n.ends\n"
              "V1 in 0 SIN(0 5 1k)\nR0 in 0 1k\n"
              "B1 g 0 V={gain*v(in)}\nR1 g 0 1k\n"
              "X1 in c1 clip top={hi}\nX2 in c2 clip\n"
              "B2 i1 0 V=if(v(in) > lev, 2, -1)\nR2 i1 0 1k\n"
              "B3 i2 0 V=v(in) <= -1 ? v(in) + 1 : v(in)\nR3 i2 0 1k\n"
              "B4 an 0 V=(v(in) > 1 && v(in) < 3) + 2*(v(in) < -3 || v(in) > 4) + !(v(in) > 0)\n"
              "R4 an 0 1k\n"
              "B5 tb 0 V=table(v(in), -2, -1, 0, 0, 1, 2, 3, 2.5)\nR5 tb 0 1k\n"
              "B6 pw 0 V=pwl(v(in), -2, -1, 0, 0, 1, 2, 3, 2.5)\nR6 pw 0 1k\n"
              ".tran 1u 2m\n.end\n");
  const auto in = col(w, "v(in)"), g = col(w, "v(g)"), c1 = col(w, "v(c1)"), c2 = col(w, "v(c2)"),
             i1 = col(w, "v(i1)"), i2 = col(w, "v(i2)"), an = col(w, "v(an)"), tb = col(w, "v(tb)"),
             pw = col(w, "v(pw)");
  ASSERT_GT(w.points(), 2000u);
  // Away from a relay's threshold (where its output may take any value between its levels).
  auto away = [](double v, std::initializer_list<double> edges) {
    for (double e : edges)
      if (std::abs(v - e) < 1e-9) return false;
    return true;
  };
  size_t relays_checked = 0;
  for (size_t i = 0; i < w.points(); ++i) {
    const double v = in[i];
    EXPECT_NEAR(g[i], 3 * v, 1e-12) << "t = " << w.time[i];
    EXPECT_NEAR(c1[i], std::min(v, 2.0) + v, 1e-12);  // 1k·i(vs) = v(a): i(x) of the instance
    EXPECT_NEAR(c2[i], std::min(v, 1.0) + v, 1e-12);
    EXPECT_NEAR(tb[i], table(v, true), 1e-12);
    EXPECT_NEAR(pw[i], table(v, false), 1e-12);
    if (!away(v, {-4, -3, -1, 0, 1, 1.5, 3, 4})) continue;
    ++relays_checked;
    EXPECT_NEAR(i1[i], v > 1.5 ? 2.0 : -1.0, 1e-12) << "t = " << w.time[i];
    EXPECT_NEAR(i2[i], v <= -1 ? v + 1 : v, 1e-12);
    EXPECT_NEAR(an[i], (v > 1 && v < 3) + 2.0 * (v < -3 || v > 4) + (v > 0 ? 0 : 1), 1e-12)
        << "t = " << w.time[i];
  }
  EXPECT_GT(relays_checked, 1900u);
}

TEST_F(BehaviouralSources, WhatIsNotPiecewiseLinearIsAnErrorAtItsPlace) {
  write("e.cir",
        "e\n.param k=2\nV1 in 0 SIN(0 5 1k)\nR0 in 0 1k\n"
        "B1 a 0 V=if(v(in) > 1, v(in), 0)\nR1 a 0 1k\n"
        "B2 b 0 V=v(in) == 1\nR2 b 0 1k\n"
        "B3 c 0 V=table(v(in), 0, 0, 0, 1)\nR3 c 0 1k\n"
        "B4 d 0 V=kk*v(in)\nR4 d 0 1k\n.tran 1u 1m\n.end\n");
  const CliRun r = nsspice("run e.cir -o e.csv -q");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  for (const char* m :
       {"e.cir:5:10: error: 'b1': 'if(v(in) > 1, v(in), 0)': the two branches differ by an "
        "expression of unknowns",
        "e.cir:7:10: error: 'b2': 'v(in) == 1': equality of unknowns",
        "e.cir:9:10: error: 'b3': the x values of 'table' must increase",
        "e.cir:11:10: error: 'b4': unknown name 'kk' in the expression: not a parameter visible "
        "here"})
    EXPECT_NE(r.output.find(m), std::string::npos) << m << "\n" << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "e.csv"));
}

}  // namespace
}  // namespace nsspice::testing
