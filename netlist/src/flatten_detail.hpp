// Internal: pieces of flatten() shared by flatten.cpp and flatten_support.cpp.
//
// A Frame is one body being expanded: the netlist itself, or one subcircuit instance.
//   lexical: the frame whose body holds this body's definition (scoping of subcircuits,
//            models and parameters); caller: the frame holding the X card (recursion check).
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "netlist/ast.hpp"
#include "netlist/src/card_reader.hpp"
#include "netlist/src/scope.hpp"

namespace nsspice::netlist::detail {

struct Frame {
  const std::vector<Card>* cards = nullptr;
  const std::vector<SubcktDef>* subckts = nullptr;
  const Frame* lexical = nullptr;
  const Frame* caller = nullptr;
  const SubcktDef* def = nullptr;              // null for the netlist
  std::string prefix;                          // "x1.x2." (lower case), "" at the top
  std::string prefix_text;                     // same, as written
  std::unordered_map<std::string, Word> pins;  // pin (lower) -> node it is connected to
  ParamScope* scope = nullptr;
  std::unordered_set<std::string> local_models;  // .model names of this body (lower)
  int depth = 0;
};

// The top frame; defines the netlist's .param cards in `scope`.
Frame make_frame(const Netlist& net, ParamScope& scope);
// The frame of an instance of `def` (defined in `home`, instantiated from `caller`); defines
// the "params:" defaults and the body's .param cards in `scope`.
Frame make_frame(const SubcktDef& def, const Frame* home, const Frame* caller, ParamScope& scope);

// Evaluates every expression of the card; false (after reporting) if one fails.
bool evaluate_element(const ParamScope& scope, ElementCard& e);
bool evaluate_control(const ParamScope& scope, Card& card);

// Duplicate element/instance, model and subcircuit names per body (errors; the later one is
// removed) and redefined parameters (warnings), for every body of `net`.
void check_duplicates(Netlist& net, Reporter& reporter);

}  // namespace nsspice::netlist::detail
