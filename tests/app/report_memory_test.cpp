// The run report's memory and factorization lines (app/cli/report.cpp; issue 20 asks for the
// solver's memory statistics in it): the factor caches' peak against their budget, the shared
// mode structures, the count and the largest of the dense matrices of the LCP solves, and the
// modes answered by low-rank updates.
#include <gtest/gtest.h>

#include <string>

#include "app/cli/report.hpp"

namespace nsspice::app {
namespace {

std::string report_line(const std::string& report, const std::string& key) {
  const auto at = report.find(key);
  if (at == std::string::npos) return {};
  return report.substr(at, report.find('\n', at) - at);
}

TEST(RunReport, MemoryLineHasTheSolverStatistics) {
  circuit::TransientResult r;
  auto& s = r.stats;
  s.factor_peak_bytes = 3.5 * 1048576;
  s.factor_budget_bytes = 256.0 * 1048576;
  s.step_solvers = 4;
  s.max_live_solvers = 2;
  s.odd_step_solvers = 1;
  s.structure_bytes = 1.5 * 1048576;
  s.dense_allocations = 7;
  s.max_dense_order = 512;
  s.low_rank_modes = 3;
  s.low_rank_solves = 5;
  s.rounding_steps = 4;
  const std::string report = format_report(r, 1.0, 0.5, "out.csv", 10);
  const std::string memory = report_line(report, "memory");
  EXPECT_NE(memory.find("factor caches at most 3.5 MB (budget 256 MB) over 4 step sizes (1 off "
                        "the ladder; 2 at once)"),
            std::string::npos)
      << memory;
  EXPECT_NE(memory.find("mode structures 1.5 MB"), std::string::npos) << memory;
  EXPECT_NE(memory.find("dense matrices of the LCP solves 7 built, largest 512x512 (2 MB)"),
            std::string::npos)
      << memory;
  EXPECT_NE(report_line(report, "rounding")
                .find("4 step error estimates above tolerance were "
                      "within the rounding noise"),
            std::string::npos)
      << report;
  const std::string factorizations = report_line(report, "factorizations");
  EXPECT_NE(factorizations.find("3 modes by low-rank updates (5 solves)"), std::string::npos)
      << factorizations;
}

TEST(RunReport, NoDenseMatrixAndNoLowRankSaySo) {
  circuit::TransientResult r;
  const std::string report = format_report(r, 1.0, 0.5, "out.csv", 10);
  EXPECT_NE(report_line(report, "memory").find("dense matrices of the LCP solves none"),
            std::string::npos)
      << report;
  EXPECT_EQ(report_line(report, "factorizations").find("low-rank"), std::string::npos) << report;
  EXPECT_EQ(report_line(report, "rounding"), "") << "no line when the rounding floor never acted";
}

TEST(RunReport, SwitchingLineCountsTheKinksAmongTheInstants) {
  circuit::TransientResult r;
  r.stats.located_events = 12;
  r.stats.location_solves = 30;
  EXPECT_EQ(report_line(format_report(r, 1.0, 0.5, "out.csv", 10), "switching"),
            "switching          12 instants located inside steps (30 extra solves)");
  r.stats.located_kinks = 9;
  EXPECT_EQ(report_line(format_report(r, 1.0, 0.5, "out.csv", 10), "switching"),
            "switching          12 instants located inside steps (30 extra solves); 9 of them "
            "segment changes of PWL models");
}

}  // namespace
}  // namespace nsspice::app
