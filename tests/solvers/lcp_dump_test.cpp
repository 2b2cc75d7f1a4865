// Problem dumps: round trips, error messages, and the stored problems of tests/data/lcp/
// against their generators. NSSPICE_WRITE_LCP_DATA=1 rewrites the stored files first.
#include "solvers/lcp/lcp_dump.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "lcp_problems.hpp"

namespace nsspice::solvers {
namespace {

namespace fs = std::filesystem;

std::string data_path(const std::string& name) {
  return std::string(NSSPICE_TEST_DATA_DIR) + "/lcp/" + name + ".lcp";
}

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() /
         ("nsspice_lcp_dump_test_" + std::to_string(::getpid()) + "_" + name + ".lcp");
}

std::string read_error(const std::string& text) {
  const fs::path p = temp_file("bad");
  std::ofstream(p) << text;
  std::string error;
  EXPECT_FALSE(read_lcp_dump(p.string(), &error).has_value()) << text;
  fs::remove(p);
  return error;
}

TEST(LcpDump, RoundTripIsExact) {
  Eigen::MatrixXd m(2, 2);
  m << 1.0 / 3.0, -2e-300, 1e300, std::acos(-1.0);
  const Eigen::Vector2d q(-0.1, 7.0 / 11.0);
  const fs::path p = temp_file("round_trip");
  std::string error;
  ASSERT_TRUE(write_lcp_dump(p.string(), m, q, {{"netlist", "a b.cir"}, {"step", "12"}}, &error))
      << error;
  const auto dump = read_lcp_dump(p.string(), &error);
  ASSERT_TRUE(dump) << error;
  EXPECT_EQ(dump->M, m);
  EXPECT_EQ(dump->q, q);
  EXPECT_EQ(dump->value("netlist"), "a b.cir");
  EXPECT_EQ(dump->value("step"), "12");
  EXPECT_EQ(dump->value("missing"), "");
  EXPECT_FALSE(dump->mlcp.has_value());
  fs::remove(p);
}

TEST(LcpDump, MlcpBlocksOnlyFormTheLcp) {
  const LcpDump ladder = testing::ladder_dump(30);
  const fs::path p = temp_file("blocks");
  std::string error;
  ASSERT_TRUE(write_lcp_dump(p.string(), ladder, false, &error)) << error;
  const auto dump = read_lcp_dump(p.string(), &error);
  ASSERT_TRUE(dump) << error;
  ASSERT_TRUE(dump->mlcp.has_value());
  EXPECT_TRUE(dump->lcp_from_blocks);
  EXPECT_EQ(dump->M, ladder.M);
  EXPECT_EQ(dump->q, ladder.q);
  EXPECT_EQ(Eigen::MatrixXd(dump->mlcp->W), Eigen::MatrixXd(ladder.mlcp->W));
  fs::remove(p);
}

TEST(LcpDump, WriterRejectsBadInput) {
  std::string error;
  const fs::path p = temp_file("reject");
  EXPECT_FALSE(write_lcp_dump(p.string(), Eigen::MatrixXd::Zero(2, 3), Eigen::VectorXd::Zero(2), {},
                              &error));
  EXPECT_FALSE(write_lcp_dump(p.string(), Eigen::MatrixXd::Zero(1, 1), Eigen::VectorXd::Zero(1),
                              {{"bad key", "x"}}, &error));
  EXPECT_NE(error.find("bad key"), std::string::npos);
  EXPECT_FALSE(write_lcp_dump(p.string(), Eigen::MatrixXd::Zero(1, 1), Eigen::VectorXd::Zero(1),
                              {{"k", "two\nlines"}}, &error));
  EXPECT_FALSE(write_lcp_dump("/nonexistent-dir/x.lcp", Eigen::MatrixXd::Zero(1, 1),
                              Eigen::VectorXd::Zero(1), {}, &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);
}

TEST(LcpDump, ReaderNamesFileLineAndProblem) {
  const std::string head = "# nsspice-mlcp 1\n";
  EXPECT_NE(read_error("hello\n").find(":1: not an nsspice problem dump"), std::string::npos);
  EXPECT_NE(read_error(head + "M 2 2 dense\n1 2\n3\n").find(":4: M row 1: expected 2 numbers"),
            std::string::npos);
  EXPECT_NE(read_error(head + "M 1 1 dense\nx\n").find("bad number 'x'"), std::string::npos);
  EXPECT_NE(read_error(head + "Z 1 1 dense\n").find("unknown block 'Z'"), std::string::npos);
  EXPECT_NE(read_error(head + "M 1 1 dense\n1\nq 2\n1\n2\n").find("M is 1x1 but q has size 2"),
            std::string::npos);
  EXPECT_NE(read_error(head + "M 1 1 dense\n1\n").find("needs both M and q"), std::string::npos);
  EXPECT_NE(read_error(head + "W 1 1 sparse 1\n0 0 1\n").find("missing: B C D r d"),
            std::string::npos);
  EXPECT_NE(read_error(head + "M 1 1 sparse 1\n1 0 2\nq 1\n1\n").find("outside 1x1"),
            std::string::npos);
  EXPECT_NE(read_error(head + "q 1\n1\nq 1\n1\n").find("appears twice"), std::string::npos);
  EXPECT_NE(read_error(head + "step=3\n").find("no problem in the file"), std::string::npos);
  EXPECT_NE(read_error(head + "M 2 2 dense\n1 2\n").find("unexpected end of file"),
            std::string::npos);
  EXPECT_NE(read_error(head + "W 1 1 sparse 0\nB 1 1 sparse 0\nC 1 1 sparse 0\nD 1 1 sparse 0\n"
                              "r 1\n1\nd 1\n0\n")
                .find("W is singular"),
            std::string::npos);
  std::string error;
  EXPECT_FALSE(read_lcp_dump("/nonexistent/file.lcp", &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);
}

TEST(LcpDump, CommentsBlankLinesAndSparseM) {
  const std::string text =
      "# nsspice-mlcp 1\n\n# a comment\nsource = hand\nM 2 2 sparse 2\n0 0 2\n1 1 3\n"
      "q 2\n-1\n  -3  \n";
  const fs::path p = temp_file("sparse_m");
  std::ofstream(p) << text;
  std::string error;
  const auto dump = read_lcp_dump(p.string(), &error);
  ASSERT_TRUE(dump) << error;
  EXPECT_EQ(dump->value("source"), "hand");
  EXPECT_EQ(dump->M(1, 1), 3.0);
  EXPECT_EQ(dump->M(0, 1), 0.0);
  EXPECT_EQ(dump->q[1], -3.0);
  fs::remove(p);
}

// The stored files are what the generators produce (so they can be regenerated and reviewed).
TEST(LcpData, StoredDumpsMatchGenerators) {
  const char* write = std::getenv("NSSPICE_WRITE_LCP_DATA");
  for (const auto& [name, generated] : testing::stored_problems()) {
    const bool large = generated.q.size() > 50;
    if (write != nullptr && std::string(write) == "1") {
      fs::create_directories(fs::path(data_path(name)).parent_path());
      std::string error;
      ASSERT_TRUE(write_lcp_dump(data_path(name), generated, !large || !generated.mlcp, &error))
          << error;
    }
    std::string error;
    const auto stored = read_lcp_dump(data_path(name), &error);
    ASSERT_TRUE(stored) << error;
    EXPECT_EQ(stored->lcp_from_blocks, large && generated.mlcp.has_value()) << name;
    ASSERT_EQ(stored->M.rows(), generated.M.rows()) << name;
    const double m_err = (stored->M - generated.M).cwiseAbs().maxCoeff();
    EXPECT_LE(m_err, 1e-15 * std::max(1.0, generated.M.cwiseAbs().maxCoeff())) << name;
    EXPECT_LE((stored->q - generated.q).cwiseAbs().maxCoeff(),
              1e-15 * std::max(1.0, generated.q.cwiseAbs().maxCoeff()))
        << name;
    EXPECT_FALSE(stored->value("source").empty()) << name;
  }
}

}  // namespace
}  // namespace nsspice::solvers
