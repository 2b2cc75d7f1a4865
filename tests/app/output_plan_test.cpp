// make_output_plan (app/cli/run_plan.hpp): the file's columns, the derived v(a,b) columns, the
// plot layout and the signals the stepping must evaluate, from the names the user wrote.
#include <gtest/gtest.h>

#include "app/cli/run_plan.hpp"

namespace nsspice::app {
namespace {

const std::vector<std::string> kSignals = {"v(a)", "v(b)", "v(c)", "i(v1)", "i(d1)"};

TEST(OutputPlan, EverySignalByDefaultAndAllNeeded) {
  std::string error;
  const auto p = make_output_plan({}, kSignals, error);
  ASSERT_TRUE(p) << error;
  EXPECT_EQ(p->columns, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(p->all_names, kSignals);
  EXPECT_TRUE(p->derived.empty());
  EXPECT_TRUE(p->layout.empty()) << "no plot asked for";
  EXPECT_EQ(p->needed, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(p->subset());
}

TEST(OutputPlan, SaveSelectsColumnsAndOnlyThoseAreNeeded) {
  OutputRequest r;
  r.save = "i(d1),v(b)";
  r.save_option = "--save";
  std::string error;
  const auto p = make_output_plan(r, kSignals, error);
  ASSERT_TRUE(p) << error;
  EXPECT_EQ(p->columns, (std::vector<size_t>{4, 1}));
  EXPECT_EQ(p->needed, (std::vector<size_t>{1, 4}));
  EXPECT_TRUE(p->subset());
}

TEST(OutputPlan, DifferentialColumnNeedsBothNodes) {
  OutputRequest r;
  r.save = "v(a,c)";
  r.save_option = "--save";
  std::string error;
  const auto p = make_output_plan(r, kSignals, error);
  ASSERT_TRUE(p) << error;
  ASSERT_EQ(p->derived.size(), 1u);
  EXPECT_EQ(p->derived[0].name, "v(a,c)");
  EXPECT_EQ(p->derived[0].inputs(), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(p->all_names.back(), "v(a,c)");
  EXPECT_EQ(p->columns, (std::vector<size_t>{5}));
  EXPECT_EQ(p->needed, (std::vector<size_t>{0, 2}));
}

TEST(OutputPlan, PlotPanelsAndMeasurementsAreNeeded) {
  OutputRequest r;
  r.save = "v(a)";
  r.save_option = "--save";
  r.panels = {"v(b)", "i(v1)"};
  r.plotting = true;
  std::string error;
  auto spec = parse_measure("avg i(d1) from=1m to=2m", error);
  ASSERT_TRUE(spec) << error;
  r.measures.push_back(*spec);
  const auto p = make_output_plan(r, kSignals, error);
  ASSERT_TRUE(p) << error;
  ASSERT_EQ(p->layout.size(), 2u);
  EXPECT_EQ(p->layout[0], (std::vector<size_t>{1}));
  EXPECT_EQ(p->layout[1], (std::vector<size_t>{3}));
  // v(a) (file), v(b), i(v1) (plot), i(d1) (measured).
  EXPECT_EQ(p->needed, (std::vector<size_t>{0, 1, 3, 4}));
  EXPECT_FALSE(p->measures.empty());
}

TEST(OutputPlan, PanelsNotPlottedAreCheckedButNotNeeded) {
  OutputRequest r;
  r.save = "v(a)";
  r.save_option = "--save";
  r.panels = {"v(b)"};
  std::string error;
  const auto p = make_output_plan(r, kSignals, error);
  ASSERT_TRUE(p) << error;
  EXPECT_TRUE(p->layout.empty());
  EXPECT_EQ(p->needed, (std::vector<size_t>{0}));
  r.panels = {"v(zz)"};
  EXPECT_FALSE(make_output_plan(r, kSignals, error));
  EXPECT_NE(error.find("v(zz)"), std::string::npos) << error;
}

TEST(OutputPlan, UnknownSavedSignalNamesTheOptionAndSuggests) {
  OutputRequest r;
  r.save = "v(bb)";
  r.save_option = ".print/.save";
  std::string error;
  EXPECT_FALSE(make_output_plan(r, kSignals, error));
  EXPECT_NE(error.find(".print/.save"), std::string::npos) << error;
  EXPECT_NE(error.find("v(bb)"), std::string::npos) << error;
  EXPECT_NE(error.find("did you mean"), std::string::npos) << error;
}

TEST(OutputPlan, UnboundMeasurementIsAnError) {
  OutputRequest r;
  std::string error;
  auto spec = parse_measure("max v(nowhere)", error);
  ASSERT_TRUE(spec) << error;
  r.measures.push_back(*spec);
  EXPECT_FALSE(make_output_plan(r, kSignals, error));
  EXPECT_NE(error.find("v(nowhere)"), std::string::npos) << error;
}

}  // namespace
}  // namespace nsspice::app
