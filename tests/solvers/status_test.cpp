// The one status vocabulary (solvers/status.hpp), the always-on invariant check
// (solvers/check.hpp) and LuStatus mapped onto Status.
#include "solvers/status.hpp"

#include <gtest/gtest.h>

#include <string>

#include "solvers/check.hpp"
#include "solvers/linear/klu_lu.hpp"

namespace nsspice::solvers {
namespace {

TEST(Status, NamesOfEveryStatus) {
  EXPECT_EQ(to_string(Status::kSolved), "solved");
  EXPECT_EQ(to_string(Status::kInaccurate), "inaccurate");
  EXPECT_EQ(to_string(Status::kNoConvergence), "no convergence");
  EXPECT_EQ(to_string(Status::kNumericalFailure), "numerical failure");
  EXPECT_EQ(to_string(Status::kInfeasible), "infeasible");
  EXPECT_EQ(to_string(Status::kInvalidInput), "invalid input");
}

TEST(Status, OnlySolvedAndInaccurateHaveAnAnswer) {
  EXPECT_TRUE(has_answer(Status::kSolved));
  EXPECT_TRUE(has_answer(Status::kInaccurate));
  EXPECT_FALSE(has_answer(Status::kNoConvergence));
  EXPECT_FALSE(has_answer(Status::kNumericalFailure));
  EXPECT_FALSE(has_answer(Status::kInfeasible));
  EXPECT_FALSE(has_answer(Status::kInvalidInput));
}

TEST(Summary, DescribesStatusTimeDevicesAndMessage) {
  Summary s;
  s.status = Status::kNumericalFailure;
  s.time = 1.5e-3;
  s.devices = {"D1", "D2"};
  s.message = "singular matrix";
  EXPECT_FALSE(s.solved());
  EXPECT_EQ(s.describe(), "numerical failure at t = 0.0015 s (D1, D2): singular matrix");
  Summary ok;
  ok.status = Status::kSolved;
  EXPECT_TRUE(ok.solved());
  EXPECT_EQ(ok.describe(), "solved");
}

TEST(Summary, InvalidInputCarriesTheMessage) {
  const Summary s = invalid_input("theta = 2: must be in [0.5, 1]");
  EXPECT_EQ(s.status, Status::kInvalidInput);
  EXPECT_EQ(s.describe(), "invalid input: theta = 2: must be in [0.5, 1]");
}

TEST(OutOfRange, NamesFieldValueAndRange) {
  EXPECT_EQ(out_of_range("omega", 2.5, "in (0, 2)"), "omega = 2.5: must be in (0, 2)");
}

TEST(Check, PassesSilentlyWhenTheConditionHolds) {
  EXPECT_NO_THROW(NSSPICE_CHECK(1 + 1 == 2, "arithmetic"));
}

TEST(Check, ThrowsWithFileLineConditionAndMessageInEveryBuild) {
  const int n = 3;
  try {
    NSSPICE_CHECK(n == 4, "n must be 4");
    FAIL() << "NSSPICE_CHECK did not throw";
  } catch (const InvariantError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("status_test.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find("invariant 'n == 4' broken: n must be 4"), std::string::npos) << what;
  }
}

TEST(LuStatus, MapsOntoTheOneVocabulary) {
  EXPECT_EQ(to_status(LuStatus::kOk), Status::kSolved);
  EXPECT_EQ(to_status(LuStatus::kSingular), Status::kNumericalFailure);
  EXPECT_EQ(to_status(LuStatus::kError), Status::kNumericalFailure);
  EXPECT_EQ(to_status(LuStatus::kNotAnalyzed), Status::kInvalidInput);
  EXPECT_EQ(to_status(LuStatus::kPatternMismatch), Status::kInvalidInput);
}

}  // namespace
}  // namespace nsspice::solvers
