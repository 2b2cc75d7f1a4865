// flatten(): expressions, parameter scoping, subcircuit naming, includes (served from memory),
// limits and the notes attached to diagnostics. The corpus tests cover whole netlists.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "flatten_helpers.hpp"

namespace nsspice::netlist {
namespace {

using testing::Flat;

double eval(const std::string& expr) {
  Flat f;
  testing::load_text(f, "t\n.param x=3 y=4\nR1 a 0 {" + expr + "}\n");
  EXPECT_EQ(f.text(), "") << expr;
  return f.value("r1");
}

TEST(NetlistExpressions, OperatorsAndPrecedence) {
  EXPECT_DOUBLE_EQ(eval("1+2*3"), 7);
  EXPECT_DOUBLE_EQ(eval("(1+2)*3"), 9);
  EXPECT_DOUBLE_EQ(eval("2^3^2"), 512);  // right associative
  EXPECT_DOUBLE_EQ(eval("2**3"), 8);
  EXPECT_DOUBLE_EQ(eval("-2^2"), -4);  // as ngspice: unary minus binds less than ^
  EXPECT_DOUBLE_EQ(eval("2^-1"), 0.5);
  EXPECT_DOUBLE_EQ(eval("10/4/5"), 0.5);
  EXPECT_DOUBLE_EQ(eval("--x"), 3);
  EXPECT_DOUBLE_EQ(eval("sqrt(x*x+y*y)"), 5);
  EXPECT_DOUBLE_EQ(eval("1k*2meg"), 2e9);
  EXPECT_DOUBLE_EQ(eval("10uF/2"), 5e-6);
  EXPECT_DOUBLE_EQ(eval("2.5e-3*1e3"), 2.5);
  EXPECT_DOUBLE_EQ(eval("X+Y"), 7);  // case insensitive
  EXPECT_DOUBLE_EQ(eval("pi"), std::acos(-1.0));
  EXPECT_DOUBLE_EQ(eval("e"), std::exp(1.0));
  EXPECT_DOUBLE_EQ(eval("min(x,y)+max(x,y)"), 7);
  EXPECT_DOUBLE_EQ(eval("pwr(-2,3)+pow(2,0.5)^2"), -6);
  EXPECT_DOUBLE_EQ(eval("atan(1)*4"), std::acos(-1.0));
}

// min and max fold over any number of arguments ≥ 2 (HSPICE, ngspice's B sources); one is an
// error that says so.
TEST(NetlistExpressions, MinAndMaxTakeMoreThanTwoArguments) {
  EXPECT_DOUBLE_EQ(eval("max(x,y,2)"), 4);
  EXPECT_DOUBLE_EQ(eval("min(x,y,2,7)"), 2);
  EXPECT_DOUBLE_EQ(eval("max(1,x,y,min(5,6,-1))"), 4);
  Flat bad;
  testing::load_text(bad, "t\nR1 a 0 {max(3)}\n");
  EXPECT_NE(bad.text().find("function 'max' takes 2 or more arguments, got 1"), std::string::npos)
      << bad.text();
}

TEST(NetlistExpressions, QuotesAndBlanks) {
  Flat f;
  testing::load_text(f, "t\n.param a = 2  b='a * 3'  c={ a + b }\nR1 x 0 'c*2'\nR2 x 0 {c / 2}\n");
  EXPECT_EQ(f.text(), "");
  EXPECT_DOUBLE_EQ(f.value("r1"), 16);
  EXPECT_DOUBLE_EQ(f.value("r2"), 4);
}

// PSpice nests braces in expressions (TI's macromodels: "{0.3/(VT*Log(1 + {I0}/ISZ))}"): an
// inner "{...}" is a parenthesized sub-expression. Unclosed or too deep nesting is an error at
// the outer '{' (100 000 deep too: no recursion before the check).
TEST(NetlistExpressions, NestedBracesAreParentheses) {
  EXPECT_DOUBLE_EQ(eval("2*{x+1}"), 8);
  EXPECT_DOUBLE_EQ(eval("{x}*{y}+{{1}}"), 13);
  EXPECT_DOUBLE_EQ(eval("max({x},{y})"), 4);
  Flat bad;
  testing::load_text(bad, "t\nR1 a 0 {2*{3}\n");
  EXPECT_NE(bad.text().find("t.cir:2:8: error: missing '}' to close this '{'"), std::string::npos)
      << bad.text();
  Flat deep;
  testing::load_text(
      deep, "t\nR1 a 0 " + std::string(100000, '{') + "1" + std::string(100000, '}') + "\n");
  EXPECT_NE(deep.text().find("t.cir:2:8: error: braces nested too deeply"), std::string::npos)
      << deep.text();
}

// PSpice's functions (vendor macromodels; ngspice defines them in its PSpice mode): IF(c, a, b)
// with the branch not taken read dead as in c ? a : b, LIMIT(x, a, b) in either order of the
// bounds, STP (the unit step), PWRS (= PWR). TI's TLC555: `{IF ( (DELAYLH < 1E-9) , 1E-9, ...)}`.
TEST(NetlistExpressions, PspiceIfLimitStpAndPwrs) {
  EXPECT_DOUBLE_EQ(eval("IF ( (x < 1E-9) , 1E-9, x ) "), 3);
  EXPECT_DOUBLE_EQ(eval("if(x > y, 1, 2)"), 2);
  EXPECT_DOUBLE_EQ(eval("if(x == 3, if(y == 4, 10, 20), 30)"), 10);
  EXPECT_DOUBLE_EQ(eval("if(x == 3, 1, 1/(x-3))"), 1);  // the dead branch's division by zero
  EXPECT_DOUBLE_EQ(eval("2*if(x, x ? 5 : 6, 0)"), 10);
  EXPECT_DOUBLE_EQ(eval("IF ( (x > 1E-15) & (y < 1), 1, y ) "), 4);  // PSpice's & and |
  EXPECT_DOUBLE_EQ(eval("(x > y) | (y > x)"), 1);
  EXPECT_DOUBLE_EQ(eval("(x > y) | (y < x) & 1"), 0);
  EXPECT_DOUBLE_EQ(eval("limit(x, 0, 2)"), 2);
  EXPECT_DOUBLE_EQ(eval("limit(x, 2, 0)"), 2);  // bounds in either order
  EXPECT_DOUBLE_EQ(eval("limit(-x, 0, 5)"), 0);
  EXPECT_DOUBLE_EQ(eval("limit(x, 1, 5)"), 3);
  EXPECT_DOUBLE_EQ(eval("stp(x) + stp(-x) + stp(0)"), 1);
  EXPECT_DOUBLE_EQ(eval("pwrs(-y, 0.5)"), -2);
  for (const auto& [text, want] : std::vector<std::pair<std::string, std::string>>{
           {"if(x == 3, 1/(x-3), 1)", "t.cir:3:21: error: division by zero"},
           {"if(x, 1)",
            "t.cir:3:16: error: expected ',' before the third argument of 'if(c, a, b)'"},
           {"if(x 1, 2)", "t.cir:3:14: error: expected ',' after the condition of 'if(c, a, b)'"},
           {"limit(x, 1)", "t.cir:3:9: error: function 'limit' takes 3 arguments, got 2"}}) {
    Flat f;
    testing::load_text(f, "t\n.param x=3 y=4\nR1 a 0 {" + text + "}\n");
    EXPECT_NE(f.text().find(want), std::string::npos) << text << "\n" << f.text();
  }
}

// Comparisons, && and || give 1 or 0; c ? a : b (ngspice, PSpice, LTspice) binds loosest and
// nests to the right; the branch not taken may divide by zero (its value does not matter).
TEST(NetlistExpressions, ComparisonsLogicAndTheTernary) {
  EXPECT_DOUBLE_EQ(eval("x<y"), 1);
  EXPECT_DOUBLE_EQ(eval("x>y"), 0);
  EXPECT_DOUBLE_EQ(eval("x==3") + eval("x!=3"), 1);
  EXPECT_DOUBLE_EQ(eval("x<=3") + eval("y>=5"), 1);
  EXPECT_DOUBLE_EQ(eval("x<y && y<x"), 0);
  EXPECT_DOUBLE_EQ(eval("x<y || y<x"), 1);
  EXPECT_DOUBLE_EQ(eval("x > y ? 1 : 2"), 2);
  EXPECT_DOUBLE_EQ(eval("1+2 > 2 ? 5 : 6"), 5);              // arithmetic before comparison
  EXPECT_DOUBLE_EQ(eval("x==3 ? y==4 ? 10 : 20 : 30"), 10);  // nested in the middle
  EXPECT_DOUBLE_EQ(eval("x==4 ? 10 : y==4 ? 20 : 30"), 20);  // right associative
  EXPECT_DOUBLE_EQ(eval("2*(x<y ? x : y)"), 6);
  EXPECT_DOUBLE_EQ(eval("max(x > 2 ? 1k : 2k, 500)"), 1e3);
  EXPECT_DOUBLE_EQ(eval("x == 3 ? 1 : 1/(x-3)"), 1);  // the dead branch's division by zero
  EXPECT_DOUBLE_EQ(eval("x != 3 ? sqrt(-x) : 7"), 7);
  for (const auto& [text, want] : std::vector<std::pair<std::string, std::string>>{
           {"x == 3 ? 1/(x-3) : 1", "t.cir:3:19: error: division by zero"},
           {"x > 0 ? 1", "t.cir:3:18: error: expected ':' of 'c ? a : b' in expression"},
           {"x = 3", "t.cir:3:11: error: unexpected '=' in expression"}}) {
    Flat f;
    testing::load_text(f, "t\n.param x=3 y=4\nR1 a 0 {" + text + "}\n");
    EXPECT_NE(f.text().find(want), std::string::npos) << text << "\n" << f.text();
  }
}

// PSpice's VT (ngspice defines it in its PSpice mode) is the thermal voltage kT/q at the circuit
// temperature, in .param and .model expressions and behavioural sources alike, as TI's TLC555
// macromodel uses it: `.PARAM NZ = {0.3/(VT*Log(1 + 5.0M/ISZ))}`; a parameter of that name wins.
TEST(NetlistParams, VtIsTheThermalVoltageAtTheCircuitTemperature) {
  const double k_over_q = 8.6173303e-5;  // ngspice's PSpice-mode constant [V/K]
  Flat f;
  testing::load_text(f,
                     "t\n.PARAM ISZ = 5P\n.PARAM NZ = {0.3/(VT*Log(1 + 5.0M/ISZ))}\n"
                     "R1 a 0 {1k*NZ}\nX1 a 0 s\n.subckt s p q\nR2 p q {1/vt}\n.ends\n"
                     ".MODEL DZ D(IS={ISz} N={Nz} EG={8*Nz*VT})\nD1 a 0 DZ\n");
  EXPECT_EQ(f.text(), "");
  const double vt = k_over_q * 300.15;
  EXPECT_NEAR(f.value("r1"), 1e3 * 0.3 / (vt * std::log(1 + 5e-3 / 5e-12)), 1e-9);
  EXPECT_NEAR(f.value("x1.r2"), 1 / vt, 1e-9);

  Flat hot;  // at .temp 100
  testing::load_text(hot, "t\n.temp 100\nR1 a 0 {VT*1k}\n");
  EXPECT_EQ(hot.text(), "");
  EXPECT_NEAR(hot.value("r1"), 1e3 * k_over_q * 373.15, 1e-9);

  Flat user;  // a user's .param vt wins
  testing::load_text(user, "t\n.param vt=0.5\nR1 a 0 {vt*1k}\n");
  EXPECT_EQ(user.text(), "");
  EXPECT_DOUBLE_EQ(user.value("r1"), 500);
}

// ngspice's `temper` and PSpice's `temp` in expressions are the circuit temperature [°C]: the
// last .temp or .options temp= (27 without), FlattenOptions::temperature over both (a .step
// temp run); a parameter of that name, where visible, wins.
TEST(NetlistParams, TemperIsTheCircuitTemperature) {
  Flat f;
  testing::load_text(f,
                     "t\n.temp 50\n.param k=10 hot={temper > 40}\nR3 b 0 {1k + k*temper}\n"
                     "R4 b 0 {temp*2}\nR5 b 0 {hot ? 1k : 2k}\nX1 b 0 s\nX2 b 0 s temp=-5\n"
                     ".subckt s p q params: temp=1\nR1 p q {temper}\nR2 p q {temp+100}\n.ends\n"
                     ".model dplain d is={temper >= 25 ? 1e-10 : 1e-11}\nD1 b 0 dplain\n");
  EXPECT_EQ(f.text(), "");
  EXPECT_DOUBLE_EQ(f.value("r3"), 1500);
  EXPECT_DOUBLE_EQ(f.value("r4"), 100);
  EXPECT_DOUBLE_EQ(f.value("r5"), 1e3);
  EXPECT_DOUBLE_EQ(f.value("x1.r1"), 50);   // temper: no parameter of that name
  EXPECT_DOUBLE_EQ(f.value("x1.r2"), 101);  // the subcircuit's parameter temp
  EXPECT_DOUBLE_EQ(f.value("x2.r2"), 95);
  ASSERT_EQ(f.model("dplain").params.size(), 1u);
  EXPECT_DOUBLE_EQ(*f.model("dplain").params[0].number, 1e-10);

  Flat user;  // a user's .param temp wins over the temperature, anywhere
  testing::load_text(user, "t\n.param temp=10\n.temp 80\nR1 a 0 {temp}\nR2 a 0 {temper}\n");
  EXPECT_EQ(user.text(), "");
  EXPECT_DOUBLE_EQ(user.value("r1"), 10);
  EXPECT_DOUBLE_EQ(user.value("r2"), 80);

  Flat plain;  // default 27 °C; the last card wins; an expression as the temperature
  testing::load_text(plain, "t\nR1 a 0 {temper}\n");
  EXPECT_DOUBLE_EQ(plain.value("r1"), 27);
  Flat last;
  testing::load_text(last, "t\n.param t0=40\n.temp 50\n.options TEMP={t0+20}\nR1 a 0 {temper}\n");
  EXPECT_EQ(last.text(), "");
  EXPECT_DOUBLE_EQ(last.value("r1"), 60);

  Flat stepped;  // FlattenOptions::temperature: a .step temp run
  const Netlist parsed = parse_string("t\n.temp 50\nR1 a 0 {1k + 10*temper}\n", "t.cir",
                                      stepped.sources, stepped.diags);
  FlattenOptions options;
  options.temperature = 85;
  stepped.net = flatten(parsed, stepped.sources, stepped.diags, options);
  EXPECT_DOUBLE_EQ(stepped.value("r1"), 1850);
  const FlatTemplate t(parsed, stepped.sources, options);
  ASSERT_TRUE(t.usable());
  options.temperature = -40;
  Diagnostics diags;
  const auto replay = t.flatten(diags, options);
  ASSERT_TRUE(replay.has_value()) << diags.format(t.sources());
  Flat replayed;
  replayed.net = *replay;
  EXPECT_DOUBLE_EQ(replayed.value("r1"), 600);
}

TEST(NetlistParams, AnyOrderAndBareExpressions) {
  Flat f;
  testing::load_text(f, "t\n.param z=y*2\n.param y=x+1\n.param x=1\nR1 a 0 {z}\n");
  EXPECT_EQ(f.text(), "");
  EXPECT_DOUBLE_EQ(f.value("r1"), 4);
}

TEST(NetlistParams, ValuesGivenToFlattenReplaceTopLevelParams) {
  // FlattenOptions::params (a .dc over a parameter): the value replaces the .param's
  // expression, and what depends on it follows; a .dc naming the parameter is marked.
  Flat f;
  const Netlist parsed = parse_string(
      "t\n.param rl=1k\n.param r2={2*rl}\nR1 a 0 {rl}\nR2 a 0 {r2}\n.dc rl 1k 2k 1k V1 0 1 1\n",
      "t.cir", f.sources, f.diags);
  FlattenOptions options;
  options.params = {{"rl", 5e3}};
  f.net = flatten(parsed, f.sources, f.diags, options);
  EXPECT_EQ(f.text(), "");
  EXPECT_DOUBLE_EQ(f.value("r1"), 5e3);
  EXPECT_DOUBLE_EQ(f.value("r2"), 10e3);
  const DcCard* dc = f.first<DcCard>();
  ASSERT_NE(dc, nullptr);
  EXPECT_TRUE(dc->sweeps[0].parameter);
  EXPECT_FALSE(dc->sweeps[1].parameter);
}

// LTspice: a .step param defines its parameter when no .param card does; its nominal value (a
// single run's, the sweep's plan) is the step's first value, an expression too; a .param card
// keeps its own; FlattenOptions::params (a run of the sweep) replaces either.
TEST(NetlistParams, ASteppedParameterWithoutParamCardIsItsFirstValue) {
  Flat list;
  testing::load_text(list, "t\n.step param Rl list 2k 5k\nR1 a 0 {Rl}\nR2 a 0 {2*rl}\n");
  EXPECT_EQ(list.text(), "");
  EXPECT_DOUBLE_EQ(list.value("r1"), 2e3);
  EXPECT_DOUBLE_EQ(list.value("r2"), 4e3);
  Flat lin;
  testing::load_text(lin, "t\n.param base=3\n.step dec param f {base*10} 1k 5\nR1 a 0 {f}\n");
  EXPECT_EQ(lin.text(), "");
  EXPECT_DOUBLE_EQ(lin.value("r1"), 30);
  Flat given;
  testing::load_text(given, "t\n.param rl=9k\n.step param rl list 2k 5k\nR1 a 0 {rl}\n");
  EXPECT_EQ(given.text(), "");
  EXPECT_DOUBLE_EQ(given.value("r1"), 9e3);
  Flat run;
  const Netlist parsed =
      parse_string("t\n.step param rl list 2k 5k\nR1 a 0 {rl}\n", "t.cir", run.sources, run.diags);
  FlattenOptions options;
  options.params = {{"rl", 5e3}};
  run.net = flatten(parsed, run.sources, run.diags, options);
  EXPECT_EQ(run.text(), "");
  EXPECT_DOUBLE_EQ(run.value("r1"), 5e3);
}

TEST(NetlistParams, SubcircuitScopesOverrideGlobals) {
  Flat f;
  testing::load_text(f,
                     "t\n.param r=1 k=10\n"
                     "X1 a 0 s\nX2 b 0 s r=5\nX3 c 0 s r={k*3}\nR0 d 0 {r}\n"
                     ".subckt s p q params: r=2\n.param twice={2*r}\n"
                     "R1 p q {r}\nR2 p q {twice}\nR3 p q {k}\n.ends\n");
  EXPECT_EQ(f.text(), "");
  EXPECT_DOUBLE_EQ(f.value("x1.r1"), 2);   // default
  EXPECT_DOUBLE_EQ(f.value("x2.r1"), 5);   // override
  EXPECT_DOUBLE_EQ(f.value("x3.r1"), 30);  // override evaluated in the caller's scope
  EXPECT_DOUBLE_EQ(f.value("x2.r2"), 10);
  EXPECT_DOUBLE_EQ(f.value("x1.r3"), 10);  // global seen through
  EXPECT_DOUBLE_EQ(f.value("r0"), 1);      // the global is unchanged
}

TEST(NetlistSubckt, NamesNodesAndReferences) {
  Flat f;
  testing::load_text(f,
                     "t\nX1 in 0 outer\n"
                     ".subckt outer a b\nX2 a n outer_inner\nL1 n b 1m\nK1 L1 X2.L2 0.5\n.ends\n"
                     ".subckt outer_inner p q\nL2 p q 1m\nVs p m 0\nF1 m q Vs 2\n"
                     "W1 m q Vs sw\n.model sw CSW\n.ends\n");
  EXPECT_EQ(f.text(), "");
  EXPECT_EQ(f.nodes("x1.x2.l2"), "in x1.n");
  EXPECT_EQ(f.nodes("x1.x2.f1"), "x1.x2.m x1.n");
  EXPECT_EQ(f.element("x1.x2.f1").refs.at(0).lower, "x1.x2.vs");
  EXPECT_EQ(f.element("x1.x2.w1").model->lower, "x1.x2.sw");
  EXPECT_EQ(f.element("x1.k1").refs.at(0).lower, "x1.l1");
  EXPECT_EQ(f.element("x1.k1").refs.at(1).lower, "x1.x2.l2");
  EXPECT_EQ(f.element("x1.k1").letter, 'k');
  EXPECT_EQ(f.model("x1.x2.sw").type.lower, "csw");
}

TEST(NetlistSubckt, GlobalModelsAndNestedDefinitionsAreFound) {
  Flat f;
  testing::load_text(f,
                     "t\nX1 a 0 top\n.model dg D\n"
                     ".subckt top p q\nX1 p q local\nD1 p q dg\n"
                     ".subckt local p q\nR1 p q 1\n.ends\n.ends\n");
  EXPECT_EQ(f.text(), "");
  EXPECT_EQ(f.element("x1.d1").model->lower, "dg");
  EXPECT_EQ(f.nodes("x1.x1.r1"), "a 0");
}

TEST(NetlistSubckt, NestedDefinitionIsLocal) {
  Flat f;
  testing::load_text(f, "t\nX1 a 0 local\n.subckt top p q\n.subckt local p q\n.ends\n.ends\n");
  EXPECT_EQ(f.text(),
            "t.cir:2:8: error: unknown subcircuit 'local' in instance 'X1'\n"
            "X1 a 0 local\n       ^~~~~\n");
}

TEST(NetlistIncludes, RelativePathsAndSections) {
  Flat f;
  testing::load_text(f, "t\n.include sub/a.inc\nX1 n 0 s\n",
                     {{"sub/a.inc", ".lib lib/l.lib sec\n.param r=7\n"},
                      {"sub/lib/l.lib", ".lib sec\n.subckt s a b\nR1 a b {r}\n.ends\n.endl\n"}});
  EXPECT_EQ(f.text(), "");
  EXPECT_DOUBLE_EQ(f.value("x1.r1"), 7);
  const ElementCard& r = f.element("x1.r1");
  EXPECT_EQ(f.sources.path(r.span.file), "sub/lib/l.lib");
  ASSERT_TRUE(r.context);
  ASSERT_EQ(r.context->size(), 3u);  // l.lib from a.inc, a.inc from t.cir, instance x1
  EXPECT_EQ(r.context->at(0).message, "included from here");
  EXPECT_EQ(f.sources.path(r.context->at(0).span.file), "sub/a.inc");
  EXPECT_EQ(r.context->at(2).message, "in instance 'x1' of subcircuit 's' instantiated here");
}

// LTspice on Windows writes relative library paths with backslashes; ngspice reads "~/" as the
// home directory.
TEST(NetlistIncludes, BackslashesAndHome) {
  Flat f;
  testing::load_text(f, "t\n.lib models\\d.lib\nD1 a 0 dx\n",
                     {{"models/d.lib", ".model dx D(Ron=1 Vfwd=0.5)\n"}});
  EXPECT_EQ(f.text(), "");
  ASSERT_EQ(setenv("HOME", "/home/someone", 1), 0);
  Flat g;
  testing::load_text(g, "t\n.include ~/m.inc\nD1 a 0 dx\n",
                     {{"/home/someone/m.inc", ".model dx D\n"}});
  EXPECT_EQ(g.text(), "");
}

TEST(NetlistIncludes, SameFileTwiceIsNotACycle) {
  Flat f;
  testing::load_text(f, "t\n.include m.inc\n.include m.inc\n", {{"m.inc", "* nothing\n"}});
  EXPECT_EQ(f.text(), "");
}

TEST(NetlistIncludes, DisabledIncludesAreAnError) {
  Flat f;
  const Netlist parsed = parse_string("t\n.include x.inc\n", "t.cir", f.sources, f.diags);
  FlattenOptions options;
  options.allow_includes = false;
  f.net = flatten(parsed, f.sources, f.diags, options);
  EXPECT_EQ(f.text(),
            "t.cir:2:1: error: '.include' is not allowed here (includes are disabled)\n"
            ".include x.inc\n^~~~~~~~\n");
}

TEST(NetlistLimits, ElementCountAndDepth) {
  Flat f;
  const Netlist parsed = parse_string(
      "t\nX1 a 0 s2\n.subckt s2 p q\nX1 p q s1\nX2 p q s1\n.ends\n"
      ".subckt s1 p q\nR1 p q 1\nR2 p q 1\n.ends\n",
      "t.cir", f.sources, f.diags);
  FlattenOptions options;
  options.max_elements = 3;
  f.net = flatten(parsed, f.sources, f.diags, options);
  EXPECT_EQ(f.element_count(), 0u);  // counted before expanding: nothing is expanded
  EXPECT_EQ(f.diags.error_count(), 1);
  EXPECT_EQ(f.diags.all().at(0).message,
            "the flattened netlist would have more than 3 elements; nothing was expanded; the "
            "instances holding most of them: 'x1' (subcircuit 's2', more than 3 elements, one "
            "of 1 instances) -> 'x1.x1' (subcircuit 's1', 2 elements, one of 2 instances)");
  options.max_elements = 100;
  options.max_depth = 1;
  Diagnostics d2;
  flatten(parsed, f.sources, d2, options);
  ASSERT_EQ(d2.error_count(), 2);  // at X1 and X2 inside s2
  EXPECT_EQ(d2.all().at(0).message,
            "subcircuits nested more than 1 levels deep: instance 'x1.x1' (subcircuits s2 -> s1)");
}

TEST(NetlistFlatten, ParsedOnlyCardsAreRemoved) {
  Flat f;
  testing::load_text(f, "t\n.global g\n.param a=1\nX1 n 0 s\n.subckt s p q\nR1 p g {a}\n.ends\n");
  EXPECT_EQ(f.text(), "");
  EXPECT_TRUE(f.net.subckts.empty());
  for (const Card& c : f.net.cards) {
    EXPECT_FALSE(std::holds_alternative<ParamCard>(c) || std::holds_alternative<InstanceCard>(c) ||
                 std::holds_alternative<GlobalCard>(c) || std::holds_alternative<IncludeCard>(c));
  }
  EXPECT_EQ(f.nodes("x1.r1"), "n g");
}

TEST(NetlistFlatten, DeepParameterChainIsAnErrorNotACrash) {
  std::string text = "t\n";
  for (int i = 0; i < 1000; ++i)
    text += ".param p" + std::to_string(i) + "={p" + std::to_string(i + 1) + "+1}\n";
  text += ".param p1000=0\nR1 a 0 {p0}\n";
  Flat f;
  testing::load_text(f, text);
  EXPECT_TRUE(f.diags.has_errors());
  EXPECT_NE(f.text().find("parameter definitions nested more than 256 levels deep"),
            std::string::npos);
}

// The model's parameters as "name=value" (evaluated), in order.
std::string model_params(const ModelCard& m) {
  std::string s;
  for (const auto& p : m.params)
    s += (s.empty() ? "" : " ") + p.name.lower + "=" +
         (p.number ? fmt::format("{}", *p.number) : "?");
  return s;
}

// PSpice's AKO ("a kind of") cards, as ADI's AD22057N library writes them: the base's type and
// parameters, the card's own replacing those of the same name; `AKO: BASE` with a blank and
// without a type; the base in the card's body or around it, in any order, through chains.
TEST(NetlistModels, AkoCopiesItsBaseWithItsOwnParametersOverIt) {
  Flat f;
  testing::load_text(f,
                     "t\n.MODEL QP350 PNP(IS=1.4E-15 BF=70 RB=350)\n"
                     ".MODEL QP AKO:QP350 PNP(BF=150 VA=100)\nQ1 c b e QP\n"
                     ".model d2 AKO: d1 (rs={2*r})\n.param r=0.5\n.model d1 D(IS=1n RS=1)\n"
                     "D1 a 0 d2\n.model dc ako:d2 n=2\nD2 a 0 dc\n"
                     "X1 a 0 s\n.subckt s p q\n.model dz AKO:d1 D BV=5\n.model qs AKO:QP\n"
                     "D3 p q dz\nQ2 p q q qs\n.ends\n");
  EXPECT_EQ(f.text(), "");
  EXPECT_EQ(f.model("qp").type.lower, "pnp");
  EXPECT_EQ(model_params(f.model("qp")), "is=1.4e-15 rb=350 bf=150 va=100");
  EXPECT_EQ(f.model("d2").type.lower, "d");
  EXPECT_EQ(model_params(f.model("d2")), "is=1e-09 rs=1");
  EXPECT_EQ(model_params(f.model("dc")), "is=1e-09 rs=1 n=2");  // a chain, written before
  EXPECT_EQ(model_params(f.model("x1.dz")), "is=1e-09 rs=1 bv=5");
  EXPECT_EQ(f.model("x1.qs").type.lower, "pnp");
  EXPECT_EQ(model_params(f.model("x1.qs")), "is=1.4e-15 rb=350 bf=150 va=100");
}

// An AKO card whose base is nowhere in sight, or whose chain of bases comes back to itself, is an
// error at the base's name; a base inside a subcircuit is not seen from outside it.
TEST(NetlistModels, AkoWithoutABaseOrInACycleIsAnError) {
  for (const auto& [text, want] : std::vector<std::pair<std::string, std::string>>{
           {".model qp ako:qx pnp\n",
            "t.cir:2:15: error: AKO model 'qp': no model 'qx' to be a kind of"},
           {".model a ako:b\n.model b ako:a\n",
            "t.cir:3:14: error: AKO model 'b': its chain of bases comes back to 'a'"},
           {".model q ako:\n", "t.cir:2:10: error: AKO: expected the name of the model"},
           {".subckt s p q\n.model d1 d\n.ends\n.model d2 ako:d1\n",
            "t.cir:5:15: error: AKO model 'd2': no model 'd1' to be a kind of"}}) {
    Flat f;
    testing::load_text(f, "t\n" + text);
    EXPECT_NE(f.text().find(want), std::string::npos) << text << "\n" << f.text();
  }
}

}  // namespace
}  // namespace nsspice::netlist
