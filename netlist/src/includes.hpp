// Internal: step 1 of flatten(): .include / .lib FILE SECTION expansion (see flatten.hpp).
#pragma once

#include "netlist/ast.hpp"
#include "netlist/flatten.hpp"
#include "netlist/source.hpp"
#include "netlist/src/scope.hpp"

namespace nsspice::netlist::detail {

inline constexpr int kMaxIncludeDepth = 32;

// Replaces every IncludeCard of `net` (top level and subcircuit bodies, recursively) by the
// included cards; included subcircuit definitions join the body's definitions. `root_file`
// is the SourceManager index of the netlist's own file (-1 if none).
void expand_includes(Netlist& net, int root_file, SourceManager& sources, Reporter& reporter,
                     const FlattenOptions& options);

}  // namespace nsspice::netlist::detail
