// Internal: diagnostics with context, and parameter scopes for flatten().
//
// Reporter: every diagnostic gets the notes of its context: first "included from here" for
// each include level of the file it points into, then the subcircuit instance chain
// (innermost first). The same (severity, location, message) is reported once, so an error in
// a subcircuit body instantiated 1000 times appears once, with the chain of the first instance.
//
// ParamScope: the parameters visible in one body (the netlist, or one subcircuit instance).
//   lookup(name) := own entry | parent's lookup | constant (pi, e) | the circuit temperature
//                   (temper, temp; set_temperature) | error "undefined"
// Entries are expressions evaluated lazily, once, in their own scope (any definition order);
// a reference back to an entry being evaluated is a circular definition, reported once with
// the whole cycle. Instance overrides are entries with a fixed value. User functions (.func)
// are visible like parameters (own, then the parent's); an expression's calls of them are
// expanded (user_functions.hpp) before it is evaluated, its diagnostics pointing at the
// written text (a function body's at the whole call).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "netlist/ast.hpp"
#include "netlist/diagnostics.hpp"
#include "netlist/src/user_functions.hpp"

namespace nsspice::netlist::detail {

inline constexpr std::size_t kMaxParamNesting = 256;

class Reporter {
 public:
  explicit Reporter(Diagnostics& diags) : diags_(diags) {}
  void report(Severity severity, SourceSpan span, std::string message, const CardContext& context,
              std::vector<Diagnostic> extra_notes = {});
  void error(SourceSpan span, std::string message, const CardContext& context) {
    report(Severity::kError, span, std::move(message), context);
  }
  // Adds a diagnostic produced elsewhere (e.g. by parsing an included file) with include notes.
  void forward(Diagnostic d);
  void set_included_from(int file, SourceSpan include_card) { included_from_[file] = include_card; }
  const std::map<int, SourceSpan>& included_from() const { return included_from_; }
  // "included from here" notes for `file`, innermost first.
  std::vector<Diagnostic> include_notes(int file) const;
  // `context` with the include notes of `file` in front; null when both are empty. Cached.
  CardContext card_context(int file, const CardContext& context);
  bool has_errors() const { return diags_.has_errors(); }

 private:
  Diagnostics& diags_;
  std::map<int, SourceSpan> included_from_;
  std::set<std::tuple<int, int, int, int, int, std::string>> seen_;
  std::map<std::pair<int, const void*>, CardContext> context_cache_;
};

class ParamScope {
 public:
  ParamScope(const ParamScope* parent, CardContext context, Reporter& reporter)
      : parent_(parent),
        context_(std::move(context)),
        reporter_(reporter),
        draw_(parent != nullptr ? parent->draw_ : nullptr),
        drawn_(parent != nullptr ? parent->drawn_ : nullptr) {}
  ParamScope(const ParamScope&) = delete;
  ParamScope& operator=(const ParamScope&) = delete;

  // Defines (or redefines) `p.name` as the expression p.raw ({...}, '...' or bare).
  void define(const Param& p);
  // Defines (or redefines) the user function f.name.lower (a .func card of this body).
  void define_function(const FuncCard& f) { functions_[f.name.lower] = f; }
  // True when a user function is visible here.
  bool has_functions() const;
  // `written` (token `token_span`, starting `base` bytes into it) with the calls of the
  // functions visible here expanded; nullopt after reporting the problem (with `context`).
  std::optional<Expansion> expand(std::string_view written, SourceSpan token_span, int base,
                                  const CardContext& context) const;
  // The user function visible here as `name` (lower case): own, else the parent's; or null.
  const FuncCard* function(const std::string& name) const;
  // Defines `name` with a fixed value (an instance override).
  void set(const Param& p, double value);
  bool has_local(const std::string& name) const { return entries_.count(name) > 0; }
  // Evaluates every entry (so that each error is reported even if the value is never used).
  void evaluate_all() const;
  // Evaluates an expression written in token `token_span` starting `base` bytes into the token.
  // `quantity` names what it is the value of ("r1", "dm.is"), for set_drawn; may be empty.
  std::optional<double> evaluate(std::string_view expr, SourceSpan token_span, int base,
                                 std::string_view quantity = {}) const;
  // Evaluates a Value (number or expression); false after reporting a problem.
  bool evaluate(Value& v, std::string_view quantity = {}) const;
  // Evaluates an expression Param ("{...}" or "'...'"): sets number; false after a problem.
  bool evaluate(Param& p, std::string_view quantity = {}) const;
  // The draws of the distribution functions (ExpressionHooks::draw) in this scope and the
  // scopes made from it afterwards; null (the default): nominal values. Not owned.
  void set_draw(const std::function<double(bool)>* draw) { draw_ = draw; }
  // Told of each named quantity (an entry, or an evaluate() with a quantity) whose own text
  // called a distribution function with a draw: prefix + quantity and its value. Inherited
  // like set_draw; null: nobody is told. Not owned.
  void set_drawn(const std::function<void(const std::string&, double)>* drawn) { drawn_ = drawn; }
  // The instance path in front of the quantities' names here ("x1.", "" at the top level).
  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }
  // The circuit temperature [°C] that ngspice's `temper` and PSpice's `temp` name here and in
  // the scopes made from this one, unless a parameter of that name is visible.
  void set_temperature(double celsius) { temperature_ = celsius; }
  // True when `name` (lower case) is a parameter visible here, or the constant pi or e.
  bool defines(const std::string& name) const;
  const CardContext& context() const { return context_; }
  Reporter& reporter() const { return reporter_; }

 private:
  enum class State { kPending, kEvaluating, kDone, kFailed };
  struct Entry {
    Param def;
    State state = State::kPending;
    double value = 0;
  };
  const ParamScope* parent_;
  CardContext context_;
  Reporter& reporter_;
  const std::function<double(bool)>* draw_;
  const std::function<void(const std::string&, double)>* drawn_;
  std::string prefix_;
  std::optional<double> temperature_;  // set_temperature (else the parent's)
  mutable std::map<std::string, Entry> entries_;
  std::vector<std::string> order_;             // names in definition order (evaluate_all, reports)
  std::map<std::string, FuncCard> functions_;  // .func cards of this body, by name (lower)

  // `active`: names being evaluated, outermost first (shared along the whole evaluation);
  // `depth`: expression nesting depth reached along it (expression.hpp).
  std::optional<double> lookup(const std::string& name, SourceSpan at, const CardContext& from,
                               std::vector<std::string>& active, int depth) const;
  std::optional<double> value_of(Entry& e, std::vector<std::string>& active, int depth) const;
  std::optional<double> evaluate_in(std::string_view expr, SourceSpan token_span, int base,
                                    const CardContext& context, std::vector<std::string>& active,
                                    int depth, std::string_view quantity) const;
  void visible_names(std::vector<std::string>& out) const;
};

// True for raw parameter text that must be evaluated: "{...}" or "'...'".
bool is_expression_text(std::string_view raw);

}  // namespace nsspice::netlist::detail
