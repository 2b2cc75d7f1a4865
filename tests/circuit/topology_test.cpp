// Topology checks (circuit/topology.hpp), run by elaboration: loops of voltage-defined
// branches and cut-sets of current sources are errors; nodes without a DC path are warnings.
#include "circuit/topology.hpp"

#include <gtest/gtest.h>

#include "circuit_helpers.hpp"

namespace nsspice::circuit {
namespace {

using testing::elaborate_text;

TEST(Topology, CleanCircuitHasNoDiagnostics) {
  const auto e = elaborate_text("t\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1u\n.tran 1u 1m\n.end\n");
  EXPECT_TRUE(e.diags.all().empty()) << e.text();
}

TEST(Topology, LoopOfVoltageSourcesIsAnError) {
  const auto e = elaborate_text("t\nV1 a 0 1\nV2 a 0 2\nR1 a 0 1k\n.tran 1u 1m\n.end\n");
  EXPECT_TRUE(e.diags.has_errors()) << e.text();
  EXPECT_NE(e.text().find("loop of voltage-defined branches: "), std::string::npos) << e.text();
  EXPECT_NE(e.text().find("v2"), std::string::npos) << e.text();
}

TEST(Topology, CutSetOfCurrentSourcesIsAnError) {
  // Node a is reached by the current sources I1 and I2 only.
  const auto e = elaborate_text("t\nI1 0 a 1m\nI2 a b 1m\nR1 b 0 1k\n.tran 1u 1m\n.end\n");
  EXPECT_TRUE(e.diags.has_errors()) << e.text();
  EXPECT_NE(e.text().find("cut-set made only of current sources: "), std::string::npos) << e.text();
}

TEST(Topology, NodeWithoutDcPathIsAWarning) {
  const auto e =
      elaborate_text("t\nV1 a 0 1\nR1 a 0 1k\nC1 a b 1u\nC2 b 0 1u\n.tran 1u 1m\n.end\n");
  EXPECT_FALSE(e.diags.has_errors()) << e.text();
  EXPECT_GE(e.diags.warning_count(), 1) << e.text();
  EXPECT_NE(e.text().find("node 'b' has no DC path to ground"), std::string::npos) << e.text();
}

TEST(Topology, CheckDirectlyOnAnElaboratedCircuit) {
  auto e = elaborate_text("t\nV1 a 0 1\nR1 a 0 1k\n.tran 1u 1m\n.end\n");
  ASSERT_TRUE(e.diags.all().empty()) << e.text();
  netlist::Diagnostics again;
  check_topology(e.circuit, again);
  EXPECT_TRUE(again.all().empty());
}

}  // namespace
}  // namespace nsspice::circuit
