#pragma once
// Behavioural sources reduced to linear ones: B name n+ n- V=expr | I=expr, E/G name n+ n-
// VALUE={expr}.
//
//   expr = c + Σ a_k v(n_k) + Σ b_j i(V_j)     (affine in node voltages and source currents)
//
// is stamped exactly, by elements named after the source (elaborate_elements.cpp):
//   V=expr: n+ ── E "b1" (a_1 v(n_1)) ── b1.n1 ── E "b1.t2" ── ... ── H (b_j i(V_j)) ── V "b1.c"
//   (c) ── n−
//           (a series chain: the voltages add; i(b1) is the current of the chain)
//   I=expr: n+ ── V "b1" (0 V: i(b1) is the total) ── b1.s ═ G "b1.t1" ∥ F ... ∥ I "b1.c" (c) ═ n−
// Functions of `time` (any of the functions below, of expressions without unknowns) become the
// waveform of the source's constant part (TimeFunction); a step of time is refused (write a
// PULSE or PWL source, whose corners are breakpoints), as is a time function times an unknown.
// Piecewise-linear functions of unknowns (min max abs limit uramp u step) go through kinks,
// one complementarity pair each (an ideal diode, or a relay for a step): parse_affine below.
// A product or quotient of unknowns, another function of an unknown, `time`, or an unknown name
// is an error naming the term.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace nsspice::circuit::detail {

struct AffineExpr {
  double constant = 0;
  std::function<double(double)> time;      // + time(t) when set: the part that depends on time
  std::map<std::string, double> voltages;  // node name (lower case, not ground) → a_k
  std::map<std::string, double> currents;  // voltage source name (lower case) → b_j
  bool is_constant() const { return voltages.empty() && currents.empty(); }  // no unknowns
  bool is_number() const { return is_constant() && !time; }
};

struct AffineError {
  std::size_t offset = 0, length = 1;  // within the expression text
  std::string message;
};

// A kink of a piecewise-linear function: the name of a node whose voltage is max(0, u) (ramp)
// or the unit step of u (step), made by the caller; nullopt to refuse (the caller reports).
using KinkMaker = std::function<std::optional<std::string>(const AffineExpr& u, bool step)>;

// Parses `text` (the grammar of netlist/src/expression.hpp plus v(a), v(a,b), i(x)); on the
// first problem fills `error` and returns nullopt. With `kink`, the piecewise-linear functions
// of unknowns are rewritten over kinks r(u) = max(0, u), s(u) = step(u):
//   max(a, b) = b + r(a − b)      min(a, b) = a − r(a − b)      abs(x) = 2 r(x) − x
//   uramp(x) = r(x)               limit(x, lo, hi) = lo + r(x − lo) − r(x − hi)   (lo ≤ hi)
//   u(x) = step(x) = s(x)
std::optional<AffineExpr> parse_affine(std::string_view text, AffineError& error,
                                       const KinkMaker& kink = {});

}  // namespace nsspice::circuit::detail
