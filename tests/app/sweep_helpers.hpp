#pragma once
// Shared by the sweep tests: a numeric column of a CSV text (a header line; text fields
// allowed elsewhere; empty fields are left out), and their fixtures' base.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "app_test_helpers.hpp"

namespace nsspice::testing {

inline std::vector<double> csv_column(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  auto fields = [](const std::string& l) {
    std::vector<std::string> out(1);
    for (char c : l) {
      if (c == ',')
        out.emplace_back();
      else
        out.back().push_back(c);
    }
    return out;
  };
  std::getline(in, line);
  const auto header = fields(line);
  const auto k = std::find(header.begin(), header.end(), name) - header.begin();
  EXPECT_LT(static_cast<size_t>(k), header.size()) << name;
  std::vector<double> out;
  while (std::getline(in, line)) {
    const auto f = fields(line);
    if (static_cast<size_t>(k) < f.size() && !f[k].empty()) out.push_back(std::stod(f[k]));
  }
  return out;
}

// A sweep test's scratch directory (AppTest) and the numeric columns of its CSV files.
class SweepAppTest : public AppTest {
 protected:
  std::vector<double> column(const std::string& file, const std::string& name) {
    return csv_column(read_file(dir_ / file), name);
  }
};

}  // namespace nsspice::testing
