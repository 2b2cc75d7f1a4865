// Internal: the netlist's own files reach the public helper (netlist/suggest.hpp) as before.
#pragma once

#include "netlist/suggest.hpp"

namespace nsspice::netlist::detail {

using netlist::did_you_mean;
using netlist::edit_distance;

}  // namespace nsspice::netlist::detail
