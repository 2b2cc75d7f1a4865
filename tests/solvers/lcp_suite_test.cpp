// Every solver × every stored problem of tests/data/lcp/. A combination not listed in
// kExpectedFailures must succeed with a verified solution; a listed one must end with exactly
// the listed status (so the table stays true: a fixed failure or a new one fails the test).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "lcp_check.hpp"
#include "lcp_problems.hpp"
#include "solvers/lcp/lcp_dump.hpp"

namespace nsspice::solvers {
namespace {

using testing::all_solver_kinds;

struct ExpectedFailure {
  std::string problem;
  LcpSolverKind solver;
  LcpStatus status;
  std::string reason;
};

const std::vector<ExpectedFailure> kExpectedFailures = {
    {"ab08_circuit_c_infeasible", LcpSolverKind::kLemke, LcpStatus::kInfeasible,
     "M = 0, q = −1: no z gives w ≥ 0; Lemke ends on a ray, a proof since 0 is copositive-plus"},
    {"ab08_circuit_c_infeasible", LcpSolverKind::kMurty, LcpStatus::kNumericalFailure,
     "the first pivot is M_11 = 0: M is not a P-matrix"},
    {"ab08_circuit_c_infeasible", LcpSolverKind::kEnumeration, LcpStatus::kInfeasible,
     "both bases fail (the singular one only by least squares)"},
    {"ab08_circuit_c_infeasible", LcpSolverKind::kPgs, LcpStatus::kInfeasible,
     "zero row of M with q_1 < 0 (a proof)"},
    {"ab08_circuit_c_infeasible", LcpSolverKind::kNewton, LcpStatus::kNoConvergence,
     "infeasible: the Fischer–Burmeister merit decreases towards a positive infimum"},
    {"ab08_circuit_c_infeasible", LcpSolverKind::kAuto, LcpStatus::kInfeasible,
     "the policy stops on Lemke's proof"},
    {"diode_bridge_start", LcpSolverKind::kPgs, LcpStatus::kNoConvergence,
     "M is not symmetric (±1 couplings of the bridge): PGS has no guarantee and stalls"},
    {"diode_bridge_zero_crossing", LcpSolverKind::kPgs, LcpStatus::kNoConvergence,
     "M is not symmetric (±1 couplings of the bridge): PGS has no guarantee and stalls"},
    {"ladder_1000", LcpSolverKind::kEnumeration, LcpStatus::kNumericalFailure,
     "n = 1000 > 20: enumeration refuses"},
    // Dumps of real circuits (scripts/make_lcp_dumps.py): M_σ is a principal pivot transform
    // of a PSD matrix, PSD but in general neither symmetric nor a P-matrix.
    {"circuit_diode_bridge", LcpSolverKind::kMurty, LcpStatus::kNumericalFailure,
     "M_σ is PSD, not a P-matrix: a principal pivot of the bridge is 0 up to rounding"},
    {"circuit_diode_bridge", LcpSolverKind::kPgs, LcpStatus::kNoConvergence,
     "M_σ is not symmetric (±1 couplings of the bridge): PGS has no guarantee and stalls"},
    {"circuit_rlc_zener", LcpSolverKind::kPgs, LcpStatus::kNoConvergence,
     "M_σ is not symmetric and has a zero diagonal entry (the Zener's reverse pair)"},
    {"circuit_buck_closed_loop", LcpSolverKind::kMurty, LcpStatus::kNumericalFailure,
     "zero pivot: the comparator's pairs make M_σ PSD but not a P-matrix"},
    {"circuit_buck_closed_loop", LcpSolverKind::kNewton, LcpStatus::kNoConvergence,
     "M_σ is not a P-matrix: the Fischer–Burmeister merit stalls above zero"},
    {"circuit_cmos_inverter_chain", LcpSolverKind::kEnumeration, LcpStatus::kNumericalFailure,
     "n = 200 > 20: enumeration refuses"},
};

// LCPs of real circuits at steps whose mode changes, written by `nsspice run --dump-mlcp K`
// through scripts/make_lcp_dumps.py (no generator: the files are the reference).
const std::vector<std::string> kCircuitDumps = {"circuit_diode_bridge", "circuit_buck",
                                                "circuit_rlc_zener", "circuit_buck_closed_loop",
                                                "circuit_cmos_inverter_chain"};

const ExpectedFailure* expected_failure(const std::string& problem, LcpSolverKind solver) {
  for (const auto& e : kExpectedFailures) {
    if (e.problem == problem && e.solver == solver) return &e;
  }
  return nullptr;
}

std::string data_path(const std::string& name) {
  return std::string(NSSPICE_TEST_DATA_DIR) + "/lcp/" + name + ".lcp";
}

// Every method on one dump; returns the number of (problem, method) pairs checked.
int check_every_solver(const std::string& name) {
  std::string error;
  const auto dump = read_lcp_dump(data_path(name), &error);
  EXPECT_TRUE(dump) << error;
  if (!dump) return 0;
  int checked = 0;
  LcpResult reference;
  for (const LcpSolverKind kind : all_solver_kinds()) {
    SCOPED_TRACE(name + " / " + std::string(to_string(kind)));
    const LcpResult r = testing::solve_with(kind, dump->M, dump->q);
    ++checked;
    if (const ExpectedFailure* e = expected_failure(name, kind)) {
      EXPECT_EQ(r.status, e->status) << "expected " << to_string(e->status) << ": " << e->reason
                                     << "; got " << to_string(r.status) << " " << r.message;
      EXPECT_FALSE(r.message.empty() && kind != LcpSolverKind::kLemke) << "failure unexplained";
      continue;
    }
    EXPECT_TRUE(testing::is_solution(dump->M, dump->q, r));
    if (kind == LcpSolverKind::kLemke) reference = r;
    // The ladder is a P-matrix problem (unique solution): every method must agree.
    if (name.starts_with("ladder") && kind != LcpSolverKind::kLemke) {
      EXPECT_TRUE(testing::agrees(r.z, reference.z));
    }
  }
  return checked;
}

TEST(LcpSuite, EverySolverOnEveryStoredProblem) {
  int checked = 0;
  for (const auto& [name, generated] : testing::stored_problems())
    checked += check_every_solver(name);
  EXPECT_EQ(checked,
            static_cast<int>(testing::stored_problems().size() * all_solver_kinds().size()));
}

TEST(LcpSuite, EverySolverOnEveryCircuitDump) {
  int checked = 0;
  for (const auto& name : kCircuitDumps) {
    checked += check_every_solver(name);
    const auto dump = read_lcp_dump(data_path(name));
    ASSERT_TRUE(dump) << name;
    EXPECT_NE(dump->value("base_mode"), dump->value("mode")) << name << ": a mode change";
    EXPECT_FALSE(dump->value("netlist").empty());
  }
  EXPECT_EQ(checked, static_cast<int>(kCircuitDumps.size() * all_solver_kinds().size()));
}

TEST(LcpSuite, MurtyExampleCostsExponentiallyManyPivots) {
  const auto dump = read_lcp_dump(data_path("murty_exponential_10"));
  ASSERT_TRUE(dump);
  const LcpResult murty = solve_murty(dump->M, dump->q);
  ASSERT_TRUE(testing::is_solution(dump->M, dump->q, murty));
  EXPECT_EQ(murty.pivots, 1023);
  Eigen::VectorXd z_star = Eigen::VectorXd::Zero(10);
  z_star[9] = 1.0;
  EXPECT_TRUE(testing::agrees(murty.z, z_star));
  EXPECT_LE(solve_lemke(dump->M, dump->q).pivots, 10);  // Lemke's path is short here
}

TEST(LcpSuite, DiodeBridgeDumpsKeepTheirMlcpForm) {
  for (const std::string name : {"diode_bridge_start", "diode_bridge_zero_crossing"}) {
    const auto dump = read_lcp_dump(data_path(name));
    ASSERT_TRUE(dump && dump->mlcp) << name;
    EXPECT_FALSE(dump->lcp_from_blocks);
    const auto lcp = lcp_from_mlcp(*dump->mlcp);
    ASSERT_TRUE(lcp);
    EXPECT_LE((lcp->first - dump->M).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_EQ(dump->value("theta"), "1");
    EXPECT_EQ(dump->value("h"), "1e-06");
  }
}

}  // namespace
}  // namespace nsspice::solvers
