// flatten(): the parsed tree (ast.hpp) -> the flat tree the circuit layer elaborates.
//
//  1. Includes: ".include FILE" is replaced by the cards of FILE (no title line);
//     ".lib FILE SECTION" by the cards between ".lib SECTION" and ".endl" in FILE. FILE is
//     relative to the file containing the card. An include cycle, a missing file or section,
//     a file that is not a regular file (a FIFO, /dev/zero, a directory) or is larger than
//     FlattenOptions::max_file_bytes, or more than 32 nested includes is an error at the card.
//  2. Parameters: .param cards of the top level form the global scope; a subcircuit instance
//     has its own scope (parent: the scope where the subcircuit is defined) holding the
//     subcircuit's "params:" defaults, its body's .param cards and the instance's k=v
//     overrides (evaluated in the instantiating scope). Any definition order; circular
//     definitions and undefined names are errors. Every expression (Value::expr, "{...}" and
//     "'...'" params) is replaced by its number. `temper` (ngspice) and `temp` (PSpice) are
//     the circuit temperature (FlattenOptions::temperature) unless a parameter of that name
//     is visible.
//  3. Subcircuits: every X card is replaced by the body of its subcircuit, recursively:
//     element "r3" of instance "x1" inside instance "x2" becomes "x2.x1.r3" (name.text keeps
//     the case as written); a node that is not a pin becomes "x2.x1.n3"; pins map to the
//     instance's nodes; "0", "gnd" and .global nodes stay global. .model cards of a body are
//     local to it ("x1.dmod"), references to them are renamed; K/F/H/W references name
//     elements of the same instance. The subcircuit is looked up from the innermost body
//     outwards (nested definitions are local).
// Duplicate element, model and subcircuit names in one body are errors (reported once per
// definition, the later card is dropped); a redefined parameter is a warning (the last wins).
// Every diagnostic about a card inside an instance or an included file carries notes with the
// chain ("in instance 'x1' of subcircuit 'stage' instantiated here", "included from here");
// flat cards keep that chain in their `context` for the circuit layer.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "netlist/ast.hpp"
#include "netlist/diagnostics.hpp"
#include "netlist/parse.hpp"
#include "netlist/source.hpp"

namespace nsspice::netlist {

struct FlattenOptions {
  // Reads an included file at `location` into `text`; returns 0 or an errno value.
  // Default (empty): the real file system (read_netlist_file in parse.hpp).
  std::function<int(const std::string& location, std::string& text)> read_file;
  std::uintmax_t max_file_bytes = kMaxNetlistBytes;  // larger included files are errors
  bool allow_includes = true;                        // false: .include/.lib FILE are errors
  // More flattened elements, or more subcircuit instances expanded, is an error (both are
  // counted before anything is expanded).
  std::size_t max_elements = 10'000'000;
  std::size_t max_instances = 10'000'000;
  int max_depth = 100;  // deeper subcircuit nesting is an error
  // Values that replace (or add) top-level parameters, e.g. one point of a .step sweep;
  // lower-case names.
  std::map<std::string, double> params;
  // The circuit temperature [°C] of ngspice's `temper` and PSpice's `temp` in expressions (a
  // .step temp run's); unset: the last top-level .temp or .options temp=, else 27.
  std::optional<double> temperature;
  // Monte Carlo: the draws of the distribution functions (agauss, gauss, aunif, unif, mc,
  // flat): a standard normal value when called with true, a uniform one in [−1, 1] with false.
  // Empty: they give their nominal value.
  std::function<double(bool normal)> draw;
  // Monte Carlo: told of each value whose own text calls a distribution function (with `draw`
  // set), in the order they are evaluated: its name and value. Names: a .param's name, an
  // element's ("r1"; "r1.tc1" for a parameter, "v1.sin(2)" for a source function's argument),
  // a model parameter's "model.param", an instance's parameter "x1.p"; inside a subcircuit
  // instance prefixed with its path ("x1.r2"). Empty: nobody is told.
  std::function<void(const std::string& name, double value)> drawn;
};

Netlist flatten(const Netlist& parsed, SourceManager& sources, Diagnostics& diags,
                const FlattenOptions& options = {});
// The same, reusing the parsed tree's storage (faster for big netlists).
Netlist flatten(Netlist&& parsed, SourceManager& sources, Diagnostics& diags,
                const FlattenOptions& options = {});

// A netlist flattened once and kept, to flatten it again with other parameter values and
// Monte Carlo draws (the runs of a sweep): the includes, duplicate checks, element counts,
// subcircuit look-ups, renaming and node mapping are done once; flatten() then makes the
// parameter scopes again and evaluates the expressions of the recorded cards in the order
// flatten(parsed, ...) evaluates them, so that each draw goes to the same value. A card without
// an expression is copied as flattened. The structure of a flat netlist does not depend on the
// values (no .if, no subcircuit chosen by a parameter), so the result equals
// flatten(parsed, sources, diags, options) card for card, value for value (tests:
// FlatTemplate.*). Read-only once made: several threads may flatten from it at once.
class FlatTemplate {
 public:
  // Flattens `parsed` with `options`; `sources` is copied (the included files are added to the
  // copy). Its params name the parameters every later flatten() sets (their values do not
  // matter here).
  FlatTemplate(const Netlist& parsed, const SourceManager& sources,
               const FlattenOptions& options = {});
  FlatTemplate(FlatTemplate&&) noexcept;
  FlatTemplate& operator=(FlatTemplate&&) noexcept;
  ~FlatTemplate();

  // False when flattening gave an error (then use netlist::flatten, which reports it).
  bool usable() const;
  // The sources of the flat cards' spans (with the included files).
  const SourceManager& sources() const;
  // The netlist flattened with `options` (params, draw, drawn; the rest as when made):
  // the diagnostics of the includes and duplicate checks made once, then those of evaluating.
  // nullopt when an expression fails with these values (diags then has the errors met so far;
  // netlist::flatten gives every diagnostic).
  std::optional<Netlist> flatten(Diagnostics& diags, const FlattenOptions& options) const;

  struct Impl;  // internal (netlist/src/flat_template.hpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nsspice::netlist
