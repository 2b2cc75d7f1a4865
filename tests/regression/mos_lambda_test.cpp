// LAMBDA along a transient run (circuit/src/mos_lambda_check.hpp): the PWL MOS carries
// I_0·F with F constant; the check measures ngspice's 1 + λ·|v_ds| against F over the run,
// weighted by the channel's charge. On a channel held in saturation at a constant I_0 while
// its drain ramps 5 → 15 V, the sums have closed forms: the charge-weighted factor is
// 1 + λ·10 V, and a constant F leaves the error λ·mean|v_ds − v_F|/F, v_F = (F − 1)/λ.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cmath>

#include "circuit/assemble.hpp"
#include "circuit/elaborate.hpp"
#include "helpers.hpp"
#include "netlist/diagnostics.hpp"
#include "netlist/flatten.hpp"
#include "netlist/parse.hpp"
#include "netlist/source.hpp"

namespace nsspice::testing {
namespace {

// λ = 0.02 /V; v_gs = 3 V, VTO = 1 V: overdrive 2 V ≤ v_ds (saturation whatever the drain source).
std::string deck(const std::string& drain) {
  return "saturated NMOS\nVD d 0 " + drain +
         "\nVG g 0 3\nM1 d g 0 0 NM W=10u L=1u\n"
         ".model NM NMOS(LEVEL=1 VTO=1 KP=100u LAMBDA=0.02)\n.tran 10u 1m\n.end\n";
}
const char* kRamp = "PWL(0 5 1m 15)";  // the drain ramped 5 → 15 V

struct RampRun {
  circuit::Circuit circuit;
  circuit::TransientResult result;
};

RampRun run_deck(const std::string& drain,
                 const std::map<std::string, circuit::PwlRefit>& refit = {}) {
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist parsed = netlist::parse_string(deck(drain), "t.cir", sources, diags);
  const netlist::Netlist flat = netlist::flatten(parsed, sources, diags);
  RampRun r;
  r.circuit = circuit::elaborate(flat, diags, circuit::ModelCards::kUsed, refit);
  EXPECT_FALSE(diags.has_errors()) << diags.format(sources);
  const circuit::Assembled a = circuit::assemble(r.circuit);
  r.result = circuit::run_transient(r.circuit, a, {}, {});
  return r;
}

const circuit::Mosfet& mosfet(const circuit::Circuit& c) {
  for (const auto& d : c.devices)
    if (const auto* m = std::get_if<circuit::Mosfet>(&d)) return *m;
  throw std::runtime_error("no MOSFET");
}

TEST(MosLambda, TheRunMeasuresTheChargeWeightedFactorAndAsksForIt) {
  const RampRun first = run_deck(kRamp);
  ASSERT_TRUE(first.result.ok()) << first.result.summary.message;
  // F from the initial point: 1 + λ·5 V.
  EXPECT_DOUBLE_EQ(mosfet(first.circuit).model.lambda_factor, 1.1);
  ASSERT_EQ(first.result.lambda_misses.size(), 1u);
  const auto& miss = first.result.lambda_misses[0];
  EXPECT_EQ(miss.device, "m1");
  EXPECT_EQ(miss.model, "nm");
  // 1 + λ·mean v_ds = 1 + 0.02·10; the trapezoid of a linear f at constant I_0 is exact.
  EXPECT_NEAR(miss.factor, 1.2, 1e-9);
  // error = λ·mean(v_ds − 5 V)/F = 0.02·5/1.1.
  const std::string all = fmt::format("{}", fmt::join(first.result.warnings, "\n"));
  EXPECT_NE(all.find("m1 (model 'nm'): LAMBDA 0.02 /V is the constant factor F = 1.1 (1 + λ·|v_ds| "
                     "at the initial point)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("1 + λ·|v_ds| was 1.1–1.3 (|v_ds| 5–15 V), 1.2 on the charge-weighted "
                     "average: ngspice's current, I_0·(1 + λ·|v_ds|), differs from the PWL one "
                     "by 9.1 % on average"),
            std::string::npos)
      << all;
}

TEST(MosLambda, ARefitTakesTheFactorAndStatesWhatIsLeft) {
  std::map<std::string, circuit::PwlRefit> refit;
  refit["nm"].lambda["m1"] = 1.2;
  const RampRun again = run_deck(kRamp, refit);
  ASSERT_TRUE(again.result.ok()) << again.result.summary.message;
  EXPECT_DOUBLE_EQ(mosfet(again.circuit).model.lambda_factor, 1.2);
  const std::string notes = fmt::format("{}", fmt::join(again.circuit.bias_notes, "\n"));
  EXPECT_NE(notes.find("m1 LAMBDA 0.02 /V: K × 1.2 = 1 + λ·10 V, the charge-weighted"),
            std::string::npos)
      << notes;
  // F is the run's own average now: no miss; what is left is the spread,
  // λ·mean|v_ds − 10 V|/F = 0.02·2.5/1.2, above the 1 % tolerance: a warning.
  EXPECT_TRUE(again.result.lambda_misses.empty());
  const std::string all = fmt::format("{}", fmt::join(again.result.warnings, "\n"));
  EXPECT_NE(all.find("differs from the PWL one by 4.2 % on average (charge-weighted); no "
                     "constant factor does better"),
            std::string::npos)
      << all;
}

TEST(MosLambda, AChannelThatKeepsItsVoltagePasses) {
  // The drain held at 8 V: f = F all along, error 0.
  const RampRun held = run_deck("8");
  const circuit::TransientResult& r = held.result;
  ASSERT_TRUE(r.ok()) << r.summary.message;
  EXPECT_TRUE(r.lambda_misses.empty());
  for (const auto& w : r.warnings) EXPECT_EQ(w.find("LAMBDA"), std::string::npos) << w;
}

}  // namespace
}  // namespace nsspice::testing
