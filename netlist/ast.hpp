// Syntax tree of a SPICE netlist (one struct per card kind; no semantics applied yet).
//
//   netlist := title-line card* [.end]
//   card    := element | .model | .tran | .ic | .options
// Values keep their source spans so later layers can report errors at the right place.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "netlist/source.hpp"

namespace nsspice::netlist {

struct Word {
  std::string text;
  std::string lower;  // ASCII lower-case of text
  SourceSpan span;
};

struct Value {
  double value = 0;
  SourceSpan span;
};

// NAME=VALUE; name.lower is used for lookup; number is set when raw is a SPICE number.
struct Param {
  Word name;
  Word raw;
  std::optional<double> number;
  SourceSpan span;
};

// SIN(...) PULSE(...) PWL(...): kind.lower in {"sin", "pulse", "pwl"}; args as written.
struct SourceFunction {
  Word kind;
  std::vector<Value> args;
  SourceSpan span;
};

struct ElementCard {
  Word name;                              // "R1", "d3", ... ; letter = name.lower[0]
  std::vector<Word> nodes;                // node names as written ("0", "gnd", "out", "N1")
  std::optional<Value> value;             // R/C/L value; V/I DC value ("DC 5" or bare "5")
  std::optional<Word> model;              // D: model name
  std::vector<SourceFunction> functions;  // V/I: SIN(...) PULSE(...) PWL(...)
  std::vector<Param> params;              // e.g. IC=1.5 on C/L; "ac" (and "acphase") on V/I
  SourceSpan span;                        // whole card (first line)
};

// .model DMOD D(VF=0.7 RON=0.1)   (parentheses optional, as in SPICE)
struct ModelCard {
  Word name;
  Word type;
  std::vector<Param> params;
  SourceSpan span;
};

// .tran TSTEP TSTOP [TSTART [TMAX]] [UIC]
struct TranCard {
  Value tstep;
  Value tstop;
  std::optional<Value> tstart;
  std::optional<Value> tmax;
  bool uic = false;
  SourceSpan span;
};

struct IcEntry {
  Word node;
  Value value;
  SourceSpan span;
};

// .ic V(n1)=10 v(out)=0
struct IcCard {
  std::vector<IcEntry> entries;
  SourceSpan span;
};

// .options THETA=0.5 (also .option, .opt); flags without '=' get raw="" and no number.
struct OptionsCard {
  std::vector<Param> params;
  SourceSpan span;
};

using Card = std::variant<ElementCard, ModelCard, TranCard, IcCard, OptionsCard>;

struct Netlist {
  std::string title;
  SourceSpan title_span;
  std::vector<Card> cards;
  bool has_end = false;
};

}  // namespace nsspice::netlist
