// User-defined functions (.func, netlist/src/user_functions.hpp): every form of the card, use
// in .param, element values, .model parameters and .meas, nesting, subcircuit scope,
// shadowing of a built-in, and the errors (recursion, argument count, bad cards) with their
// place. The behavioural sources' side is in tests/circuit/behavioural_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "flatten_helpers.hpp"

namespace nsspice::netlist {
namespace {

using testing::Flat;

Flat load(const std::string& text) {
  Flat f;
  testing::load_text(f, text);
  return f;
}

bool has(const Flat& f, const std::string& want) {
  return f.text().find(want) != std::string::npos;
}

// The deck flattens without a diagnostic, and each element has its value.
void expect_values(const std::string& deck,
                   const std::vector<std::pair<std::string, double>>& want) {
  const Flat f = load(deck);
  ASSERT_EQ(f.text(), "");
  for (const auto& [name, value] : want) EXPECT_DOUBLE_EQ(f.value(name), value) << name;
}

// ngspice and LTspice write {body}; HSPICE-style decks add '='; quotes and a bare body too.
TEST(UserFunctions, EveryFormOfTheCard) {
  expect_values(
      "t\n.func a(x) {x+1}\n.func b(x) = {x*2}\n.func c(x) 'x*3'\n.func d(x)='x*4'\n"
      ".func e2(x) x*5 + 1\n.func f(x,y) {x-y}\n.func g(x y) {x/y}\n.func h() {42}\n"
      "R1 n 0 {a(1)}\nR2 n 0 {b(1)}\nR3 n 0 {c(1)}\nR4 n 0 {d(1)}\nR5 n 0 {e2(1)}\n"
      "R6 n 0 {f(10, 4)}\nR7 n 0 {g(10, 4)}\nR8 n 0 {h()}\n",
      {{"r1", 2}, {"r2", 2}, {"r3", 3}, {"r4", 4}, {"r5", 6}, {"r6", 6}, {"r7", 2.5}, {"r8", 42}});
}

// Arguments are expressions, bound as a whole: sq(1+2) is (1+2)*(1+2), not 1+2*1+2; a body
// that is a sum stays one operand in the caller (2*inc(1) = 2*(1+1)); the parameters shadow
// .param names of the same name; other names in the body are the caller's parameters.
TEST(UserFunctions, ArgumentsAreExpressionsAndBindAsOperands) {
  expect_values(
      "t\n.param x=100 k=3\n.func sq(x) {x*x}\n.func inc(x) {x+1}\n.func neg(x) {-x}\n"
      ".func scaled(x) {k*x}\n"
      "R1 n 0 {sq(1+2)}\nR2 n 0 {2*inc(1)}\nR3 n 0 {sq(neg(2))}\nR4 n 0 {inc(x)}\n"
      "R5 n 0 {scaled(2)}\nR6 n 0 {sq(2)^2 + 1e3}\nR7 n 0 {sq(-3)}\nR8 n 0 {inc(1k)}\n",
      {{"r1", 9},
       {"r2", 4},
       {"r3", 4},
       {"r4", 101},
       {"r5", 6},
       {"r6", 1016},
       {"r7", 9},
       {"r8", 1001}});
}

// A .func calls functions defined before or after it; .param, element values, .model
// parameters, source functions and .meas right-hand sides all expand calls.
TEST(UserFunctions, NestedAndUsedEverywhere) {
  const Flat f = load(
      "t\n.func quad(x) {sq(sq(x))}\n.func sq(x) {x*x}\n.func hyp(a, b) {sqrt(sq(a) + sq(b))}\n"
      ".param p = {hyp(3, 4)} q = quad(2)\nR1 n 0 {p*q}\nC1 n 0 'sq(1u)*1e6'\n"
      "V1 n 0 SIN(0 {hyp(6, 8)} 1k)\n.model dm D(is={sq(1e-7)} n={hyp(0.6, 0.8)})\nD1 n 0 dm\n"
      ".tran 1u {sq(3)*1m}\n.meas tran m1 find v(n) at={sq(1m)*1k}\n");
  ASSERT_EQ(f.text(), "");
  const std::vector<Param>& dm = f.model("dm").params;
  const std::vector<double> got = {f.value("r1"),
                                   f.value("c1"),
                                   f.element("v1").functions.at(0).args.at(1).value,
                                   dm.at(0).number.value_or(0),
                                   dm.at(1).number.value_or(0),
                                   f.first<TranCard>()->tstop.value};
  const std::vector<double> want = {80, 1e-6, 10, 1e-14, 1, 9e-3};
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-15 * want[k]) << k;
  EXPECT_EQ(f.first<MeasCard>()->tokens.back().lower, "at=0.001");
}

// As ngspice: a .func inside a .subckt is local to it (each instance sees its own; the top
// level does not), and a local definition shadows a global one of the same name inside the
// subcircuit; a .func shadows a built-in function (here abs).
TEST(UserFunctions, SubcircuitScopeAndShadowing) {
  expect_values(
      "t\n.func g(x) {x+1}\n.func abs(x) {x*10}\n.subckt sub n params: k=1\n"
      ".func g(x) {x+100*k}\nR1 n 0 {g(1)}\n.ends\nX1 a sub k=2\nX2 a sub\nR2 a 0 {g(1)}\n"
      "R3 a 0 {abs(2)}\n",
      {{"x1.r1", 201}, {"x2.r1", 101}, {"r2", 2}, {"r3", 20}});
  const Flat local = load(
      "t\n.subckt sub n\n.func loc(x) {x}\nR1 n 0 {loc(1)}\n.ends\nX1 a sub\n"
      "R2 a 0 {loc(2)}\n");
  EXPECT_TRUE(has(local, "t.cir:7:9: error: unknown function 'loc'")) << local.text();
}

// A function calling itself, directly or through another, is an error at the call (never a
// hang or a stack overflow), with a note at the definition; so is a wrong number of arguments.
TEST(UserFunctions, RecursionAndArgumentCountAreErrorsAtTheCall) {
  const Flat direct = load("t\n.func f(x) {f(x)+1}\nR1 a 0 {f(1)}\n");
  EXPECT_TRUE(has(direct,
                  "t.cir:3:9: error: recursive .func 'f' (f -> f): a function cannot call itself\n"
                  "R1 a 0 {f(1)}\n        ^~~~\nt.cir:2:7: note: 'f' defined here\n"))
      << direct.text();
  const Flat mutual = load("t\n.func f(x) {g(x)}\n.func g(x) {2*f(x)}\n.param p = {1 + g(3)}\n");
  EXPECT_TRUE(has(mutual, "t.cir:4:17: error: recursive .func 'g' (g -> f -> g)")) << mutual.text();
  const Flat count = load("t\n.func sq(x) {x*x}\nR1 a 0 {2 * sq(1, 2)}\nR2 a 0 {sq()}\n");
  EXPECT_TRUE(has(count,
                  "t.cir:3:13: error: function 'sq' takes 1 argument, got 2\n"
                  "R1 a 0 {2 * sq(1, 2)}\n            ^~\nt.cir:2:7: note: 'sq' defined here\n"))
      << count.text();
  EXPECT_TRUE(has(count, "t.cir:4:9: error: function 'sq' takes 1 argument, got 0"))
      << count.text();
  const Flat empty = load("t\n.func f(x, y) {x+y}\nR1 a 0 {f(1, )}\n");
  EXPECT_TRUE(has(empty, "t.cir:3:9: error: argument 2 of the call of 'f' is empty"))
      << empty.text();
}

// Calls nested in calls double the text at each level: 30 levels would be 2^30 bytes; the
// expansion stops with an error instead.
TEST(UserFunctions, AnExpansionBombIsAnError) {
  std::string deck = "t\n.func f0(x) {x+x}\n";
  for (int k = 1; k <= 30; ++k)
    deck += ".func f" + std::to_string(k) + "(x) {f" + std::to_string(k - 1) + "(x)*f" +
            std::to_string(k - 1) + "(x)}\n";
  const Flat f = load(deck + "R1 a 0 {f30(1)}\n");
  EXPECT_TRUE(has(f, "error: the expansion of the .func calls is longer than")) << f.text();
}

TEST(UserFunctions, BadCardsAreErrorsWithTheirPlace) {
  const Flat f = load(
      "t\n.func\n.func q x\n.func w(x)\n.func v(x) {x}\n.func z(x, x) {x}\n.func y(1) {1}\n"
      ".func u(x) {x+1\n.func s(x) {x} 2\n.func r(x {x}\n");
  for (const char* want : {"t.cir:2:6: error: expected a function name",
                           "t.cir:3:9: error: expected '(' after the "
                           "name of .func 'q'",
                           "t.cir:4:11: error: missing the body of .func 'w'",
                           "t.cir:5:7: error: a .func cannot be named 'v'",
                           "t.cir:6:12: error: parameter 'x' of .func 'z' is listed twice",
                           "t.cir:7:9: error: expected a parameter name of .func 'y', got '1'",
                           "t.cir:8:12: error: missing '}' to close the body of .func 'u'",
                           "t.cir:9:16: error: unexpected '2' after the body of .func 's'",
                           "t.cir:10:8: error: missing ')' after the parameters of .func 'r'"})
    EXPECT_TRUE(has(f, want)) << want << "\n" << f.text();
  const Flat twice = load("t\n.func f(x) {x}\n.func f(x) {2*x}\nR1 a 0 {f(1)}\n");
  EXPECT_TRUE(has(twice, "t.cir:3:7: warning: function 'f' redefined; the last definition is used"))
      << twice.text();
  EXPECT_DOUBLE_EQ(twice.value("r1"), 2);
}

// A user's deck: .FUNC in capitals, a body continued on a '+' line, comments, blanks.
TEST(UserFunctions, AnUglyUserDeck) {
  expect_values(
      "* ugly deck\n.PARAM Vdd = 5\n*  a comment line\n.FUNC  Divider( Vin , Ra,Rb )  =  {\n"
      "+   Vin * Rb / (Ra + Rb) }   ; trailing comment\n.Func Twice(X) 'X * 2' $ comment\n"
      "R1 a 0 {Twice( DIVIDER(vdd, 1k, 4k) )}\n",
      {{"r1", 8}});
}

}  // namespace
}  // namespace nsspice::netlist
