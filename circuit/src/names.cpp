#include "circuit/names.hpp"

#include <algorithm>

namespace nsspice::circuit {

int edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: insertions, deletions, substitutions and adjacent transpositions.
  const size_t n = a.size(), m = b.size();
  std::vector<int> d((n + 1) * (m + 1));
  auto at = [&](size_t i, size_t j) -> int& { return d[i * (m + 1) + j]; };
  for (size_t i = 0; i <= n; ++i) at(i, 0) = static_cast<int>(i);
  for (size_t j = 0; j <= m; ++j) at(0, j) = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(n, m);
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const int limit = std::max<int>(1, static_cast<int>(name.size()) / 3);
  int best = limit + 1;
  std::vector<std::string> nearest;
  for (const auto& c : candidates) {
    const int d = edit_distance(name, c);
    if (d < best) {
      best = d;
      nearest = {c};
    } else if (d == best) {
      nearest.push_back(c);
    }
  }
  if (nearest.empty() || best > limit) return {};
  std::sort(nearest.begin(), nearest.end());
  std::string out = " (did you mean ";
  for (size_t i = 0; i < nearest.size() && i < 3; ++i) out += (i ? ", '" : "'") + nearest[i] + "'";
  return out + "?)";
}

}  // namespace nsspice::circuit
