#include "circuit/names.hpp"

#include <algorithm>
#include <numeric>

namespace nsspice::circuit {

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
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
  for (size_t i = 0; i < nearest.size() && i < 3; ++i)
    out += (i ? ", '" : "'") + nearest[i] + "'";
  return out + "?)";
}

}  // namespace nsspice::circuit
