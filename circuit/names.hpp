#pragma once
// "Did you mean" suggestions: the candidates nearest to a misspelt name by edit distance.
#include <string>
#include <string_view>
#include <vector>

namespace nsspice::circuit {

// Edit distance (with adjacent transpositions) between a and b.
int edit_distance(std::string_view a, std::string_view b);
// " (did you mean 'x'?)" for the nearest candidates within distance max(1, |name|/3), else "".
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace nsspice::circuit
