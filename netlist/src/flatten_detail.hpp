// Internal: pieces of flatten() shared by flatten.cpp and flatten_support.cpp.
//
// A Frame is one body being expanded: the netlist itself, or one subcircuit instance.
//   lexical: the frame whose body holds this body's definition (scoping of subcircuits,
//            models and parameters); caller: the frame holding the X card (recursion check).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "netlist/ast.hpp"
#include "netlist/flatten.hpp"
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
  int tape_scope = -1;  // this frame's scope in the Tape (when one is recorded)
};

// What flatten() did, in order, recorded to do it again with other values (FlatTemplate): the
// parameter scopes it made and the cards it output, each with the parsed card it came from and
// the scope its expressions were evaluated in. Pointers into the include-expanded parsed tree.
struct TapeScope {
  int parent = -1;                  // the lexical scope (its parent ParamScope); -1: none (top)
  int caller = -1;                  // the scope of the X card (its overrides are evaluated there)
  const SubcktDef* def = nullptr;   // null: the global scope
  const InstanceCard* x = nullptr;  // the X card (null: the global scope)
  CardContext notes;                // the instance chain of the scope's diagnostics
  std::string prefix;               // "x1.x2."
};
struct TapeStep {
  enum class Kind { kScope, kElement, kModel, kControl };
  Kind kind = Kind::kScope;
  int scope = 0;                 // kScope: the scope made; else the scope evaluated in
  const Card* source = nullptr;  // the parsed card (not kScope)
  bool has_expression = true;    // false: the flat card is the same whatever the values
};
struct Tape {
  std::vector<TapeScope> scopes;
  std::vector<TapeStep> steps;  // the cards' steps in the order of the flat cards
};

// The expressions of an instance override (x's k=v, evaluated in the instantiating scope).
std::optional<double> evaluate_override(const ParamScope& in, const InstanceCard& x,
                                        const Param& p);
// Defines a subcircuit instance's "params:" defaults and body .param cards in `scope`.
void define_instance_params(const SubcktDef& def, ParamScope& scope);
// Defines the netlist's top-level .param cards in `scope`, then sets FlattenOptions::params and
// the temperature (FlattenOptions::temperature, else the last top-level .temp/.options temp).
void define_top_params(const Netlist& net, const FlattenOptions& options, ParamScope& scope);
// True when the card holds an expression that flatten() evaluates.
bool has_expression(const Card& card);

// The top frame; define_top_params in `scope`.
Frame make_frame(const Netlist& net, const FlattenOptions& options, ParamScope& scope);
// The frame of an instance of `def` (defined in `home`, instantiated from `caller`); defines
// the "params:" defaults and the body's .param cards in `scope`.
Frame make_frame(const SubcktDef& def, const Frame* home, const Frame* caller, ParamScope& scope);

// Evaluates every expression of the card; false (after reporting) if one fails. `name`: the
// card's name in its body (the drawn values' names), default e.name.lower / m.name.lower.
bool evaluate_element(const ParamScope& scope, ElementCard& e, const std::string* name = nullptr);
bool evaluate_model(const ParamScope& scope, ModelCard& m, const std::string* name = nullptr);
bool evaluate_control(const ParamScope& scope, Card& card);

// Duplicate element/instance, model and subcircuit names per body (errors; the later one is
// removed) and redefined parameters (warnings), for every body of `net`.
void check_duplicates(Netlist& net, Reporter& reporter);
// PSpice's AKO model cards made full cards from their bases, for every body of `net` (ako.cpp).
void resolve_ako(Netlist& net, Reporter& reporter);

}  // namespace nsspice::netlist::detail
