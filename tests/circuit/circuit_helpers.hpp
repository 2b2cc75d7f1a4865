#pragma once
// Shared by the circuit unit tests: a netlist text parsed, flattened and elaborated in memory.
#include <string>

#include "circuit/circuit.hpp"
#include "circuit/elaborate.hpp"
#include "netlist/diagnostics.hpp"
#include "netlist/flatten.hpp"
#include "netlist/parse.hpp"
#include "netlist/source.hpp"

namespace nsspice::circuit::testing {

struct Elaborated {
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  Circuit circuit;
  std::string text() const { return diags.format(sources); }  // every diagnostic, formatted
};

inline Elaborated elaborate_text(const std::string& text, ModelCards which = ModelCards::kUsed) {
  Elaborated e;
  const netlist::Netlist parsed = netlist::parse_string(text, "t.cir", e.sources, e.diags);
  const netlist::Netlist flat = netlist::flatten(parsed, e.sources, e.diags);
  e.circuit = elaborate(flat, e.diags, which);
  return e;
}

}  // namespace nsspice::circuit::testing
