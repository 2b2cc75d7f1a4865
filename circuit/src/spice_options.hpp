#pragma once
// .options of ngspice and LTspice that nsspice has no use for: accepted with a warning saying
// why (docs/netlist.md, ".options"). METHOD=TRAP|GEAR map to θ (elaborate.cpp).
#include <string_view>

namespace nsspice::circuit::detail {

// Why nsspice ignores the SPICE option `name` (lower case); nullptr if it is not one.
const char* foreign_option_reason(std::string_view name);

}  // namespace nsspice::circuit::detail
