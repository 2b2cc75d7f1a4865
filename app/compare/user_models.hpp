#pragma once
// The netlist's own SPICE model cards and instance parameters, as written, for question 1 of
// `compare` ("how far is the ideal/PWL result from my real SPICE models?"): ngspice then runs
// them unchanged. Taken from the flat tree (subcircuits expanded, expressions evaluated).
//
// A card is written back as `.model NAME TYPE(KEY=VALUE ...)` with every parameter in the
// user's order and spelling; a value given as an expression ("{2*x}") is written as its
// number; a value that is text, not a number (LTspice's informational mfg=Vishay, type=...),
// is left out and named in `dropped`, since ngspice stops on it. A name that is not plain
// (a subcircuit's "x1.dmod") has its other characters replaced by '_' on both the card and the
// instance.
#include <map>
#include <string>
#include <vector>

#include "netlist/ast.hpp"

namespace nsspice::app {

struct UserCard {
  std::string name;                  // as ngspice gets it
  std::string text;                  // the whole .model line
  std::vector<std::string> dropped;  // "mfg=Vishay": text values left out
  std::vector<std::string> added;    // parameters written for ngspice that the card left out
};

struct UserModels {
  std::map<std::string, UserCard> cards;  // by lower-case (flat) model name
  // Instance parameters after the model name, as written (" area=2 off"), by lower-case
  // (flat) element name; W= and L= of a MOSFET included.
  std::map<std::string, std::string> instance_params;
};

UserModels collect_user_models(const netlist::Netlist& flat);

// A name ngspice reads as one token: letters, digits and '_' kept, anything else '_'.
std::string plain_name(const std::string& name);

}  // namespace nsspice::app
