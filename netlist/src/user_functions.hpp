// Internal: user-defined functions (.func) expanded by substitution, before an expression is
// read by either evaluator (netlist/src/expression.hpp for values, the circuit layer's
// behavioural parser for B/E/G sources).
//
//   call  NAME(A1, ..., An) of `.func NAME(P1, ..., Pn) BODY`   ↦   ⟨BODY[P1 := ⟨A1⟩, ...]⟩
//   ⟨t⟩ := t when t is one operand (a name, a number, a call f(...), a group (...) or {...}),
//          else (t)
// The arguments are expanded first (they may call functions); the body is expanded with its
// parameters bound (it may call other functions of the scope, in any definition order).
// The parentheses make the substitution that of the expression tree: sq(1+2) with BODY x*x is
// (1+2)*(1+2), and a body that is one product stays "V(a)*V(a)" inside its group, as written.
// Names in the body that are not parameters are read where the call is (the caller's
// parameters), as ngspice's substitution does. A user function shadows a built-in function of
// the same name. Errors: a call with the wrong number of arguments; a recursive call (a
// function calling itself, directly or through others); an expansion longer than
// kMaxExpansion bytes (nested calls double the text at each level); calls nested more than
// kMaxCallDepth deep.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "netlist/ast.hpp"

namespace nsspice::netlist::detail {

inline constexpr std::size_t kMaxExpansion = 1 << 20;
inline constexpr std::size_t kMaxCallDepth = 256;

// The function visible as `name` (lower case) where the expression is; null: none.
using FunctionLookup = std::function<const FuncCard*(const std::string& name)>;

struct Expansion {
  std::string text;
  // For each byte of text: the bytes [first, second) of the written text it comes from.
  std::vector<std::pair<std::size_t, std::size_t>> origin;
};

struct ExpansionError {
  std::size_t offset = 0, length = 1;  // in the written text
  std::string message;
  const FuncCard* function = nullptr;  // the function the error is about (a note), or null
};

// Expands the calls of user functions in `text`; nullopt (and `error`) on the first problem.
// Without any call of a user function the result is the text itself, origin byte by byte.
std::optional<Expansion> expand_functions(std::string_view text, const FunctionLookup& lookup,
                                          ExpansionError& error);

}  // namespace nsspice::netlist::detail
