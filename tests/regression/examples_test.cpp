// Every netlist in examples/ runs to completion with complementarity at every step, and the
// clipper example clips where its piecewise-linear diodes say it must.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checks.hpp"
#include "helpers.hpp"

namespace nsspice::testing {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Examples, EveryExampleRuns) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(NSSPICE_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".cir") continue;
    SCOPED_TRACE(entry.path().filename().string());
    // The fixed-step θ-scheme: complementarity to 1e-9 at every point.
    const Waveforms r = simulate_fixed(read(entry.path()));
    EXPECT_TRUE(r.result.ok()) << r.result.summary.message;
    EXPECT_GT(r.t.size(), 10u);
    expect_complementarity(r);
    // Error-controlled steps (the default): at a pair's edge (λ = w = 0) the steps can be very
    // short, and the mode iteration then accepts multipliers negative to its rounding tolerance,
    // which scales with E/(θh): 1e-5 of the run's largest multiplier.
    circuit::TransientOptions adaptive;
    adaptive.adaptive = true;
    const Waveforms a = simulate(read(entry.path()), adaptive);
    EXPECT_TRUE(a.result.ok()) << a.result.summary.message;
    expect_complementarity(a, 1e-5);
    const std::string text = read(entry.path());
    EXPECT_NE(text.find("What it shows"), std::string::npos) << "each example says what it shows";
    ++count;
  }
  EXPECT_GE(count, 4);
}

TEST(Examples, ClipperHoldsAtForwardVoltagePlusOnResistanceDrop) {
  const Waveforms r = simulate_fixed(read(std::string(NSSPICE_EXAMPLES_DIR) + "/clipper_vf.cir"));
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  const auto v = r.series("v(out)");
  // At the input peak 5 V: i = (5 − 0.7)/(1000 + 10), v = 0.7 + 10 i = 0.742574 V.
  const double expected = 0.7 + 10 * (5 - 0.7) / 1010;
  EXPECT_NEAR(*std::max_element(v.begin(), v.end()), expected, 1e-6);
  EXPECT_NEAR(*std::min_element(v.begin(), v.end()), -expected, 1e-6);
  // PULSE corners (0.25 ms, +10 µs, +0.2 ms, +10 µs, then every 1 ms) are time points.
  for (double corner : {0.25e-3, 0.26e-3, 0.46e-3, 0.47e-3, 1.25e-3, 2.47e-3}) {
    const bool found =
        std::any_of(r.t.begin(), r.t.end(), [&](double t) { return std::abs(t - corner) < 1e-15; });
    EXPECT_TRUE(found) << "no time point at the PULSE corner " << corner;
  }
}

}  // namespace
}  // namespace nsspice::testing
