// Internal: what a FlatTemplate (netlist/flatten.hpp) keeps.
#pragma once

#include <map>
#include <vector>

#include "netlist/flatten.hpp"
#include "netlist/src/flatten_detail.hpp"

namespace nsspice::netlist {

struct FlatTemplate::Impl {
  SourceManager sources;           // with the included files
  Netlist tree;                    // the parsed tree, includes expanded, duplicates removed
  Netlist flat;                    // flattened with the values it was made with
  detail::Tape tape;               // one step per flat card, in order, and the scopes between them
  std::vector<Diagnostic> before;  // of the includes and duplicate checks
  std::map<int, SourceSpan> included_from;
  bool usable = false;
};

}  // namespace nsspice::netlist
