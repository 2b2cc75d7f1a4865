// "Did you mean" suggestions for misspelt names: the one helper of every layer (the netlist
// diagnostics, the circuit's elaboration, the command line's options and signal names).
//
// Distance = optimal string alignment (insert, delete, substitute, swap adjacent), on the
// lower-case names. The suggestion lists the (at most 3) nearest candidates within distance
// max(1, |name| / 3), nearest first, ties in the order given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nsspice::netlist {

int edit_distance(std::string_view a, std::string_view b);

// " (did you mean 'x'?)" / " (did you mean 'x' or 'y'?)" / "" when nothing is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace nsspice::netlist
