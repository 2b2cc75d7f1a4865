// Edit distance and "did you mean" (netlist/suggest.hpp).
#include "netlist/suggest.hpp"

#include <algorithm>
#include <utility>

namespace nsspice::netlist {

int edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<int> d((n + 1) * (m + 1));
  auto at = [&](std::size_t i, std::size_t j) -> int& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(n, m);
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  if (name.size() > 64) return "";  // keeps the quadratic distance cheap on garbage input
  const int limit = std::max(1, static_cast<int>(name.size()) / 3);
  std::vector<std::pair<int, std::size_t>> close;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string& c = candidates[i];
    if (c == name || c.size() > name.size() + static_cast<std::size_t>(limit) + 1) continue;
    const int d = edit_distance(name, c);
    if (d > limit) continue;
    bool seen = false;
    for (const auto& [dist, j] : close) seen = seen || candidates[j] == c;
    if (!seen) close.emplace_back(d, i);
  }
  std::stable_sort(close.begin(), close.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  if (close.size() > 3) close.resize(3);
  if (close.empty()) return "";
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < close.size(); ++i) {
    if (i > 0) out += i + 1 == close.size() ? " or " : ", ";
    out += "'" + candidates[close[i].second] + "'";
  }
  return out + "?)";
}

}  // namespace nsspice::netlist
