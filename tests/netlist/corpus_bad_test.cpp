// The bad corpus (tests/netlist/corpus/bad/NN_name.cir): each netlist is parsed and flattened
// and the full diagnostics text must equal NN_name.expected byte for byte. Files are shown by
// their name relative to the corpus directory (includes as "inc/x.inc").
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "flatten_helpers.hpp"

namespace nsspice::netlist {
namespace {

std::vector<std::string> bad_cases() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(testing::corpus_dir() / "bad", ec)) {
    if (entry.path().extension() == ".cir") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class NetlistBadCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(NetlistBadCorpus, DiagnosticsMatchExpectedText) {
  const std::filesystem::path dir = testing::corpus_dir() / "bad";
  const std::string name = GetParam();
  ASSERT_TRUE(std::filesystem::exists(dir / (name + ".expected"))) << name;
  testing::Flat f;
  testing::load_file(f, dir / (name + ".cir"), name + ".cir");
  EXPECT_FALSE(f.diags.all().empty());
  EXPECT_EQ(f.text(), read(dir / (name + ".expected")));
}

INSTANTIATE_TEST_SUITE_P(Corpus, NetlistBadCorpus, ::testing::ValuesIn(bad_cases()),
                         [](const auto& info) { return info.param; });

TEST(NetlistBadCorpusSize, AtLeastSixtyCases) { EXPECT_GE(bad_cases().size(), 60u); }

}  // namespace
}  // namespace nsspice::netlist
