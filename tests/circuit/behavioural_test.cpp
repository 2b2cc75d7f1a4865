// The affine reader of behavioural expressions (circuit/src/behavioural.hpp): coefficients,
// and the terms it refuses with their place in the text.
#include "circuit/src/behavioural.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "circuit_helpers.hpp"

namespace nsspice::circuit::detail {
namespace {

AffineExpr ok(std::string_view text) {
  AffineError e;
  auto a = parse_affine(text, e);
  EXPECT_TRUE(a) << text << ": " << e.message;
  return a.value_or(AffineExpr{});
}

AffineError bad(std::string_view text) {
  AffineError e;
  EXPECT_FALSE(parse_affine(text, e)) << text;
  return e;
}

TEST(Behavioural, AffineCoefficients) {
  const AffineExpr a = ok("2*V(in)+0.5 - v(a,b)/4 + 3k*i(Vsense) - (v(in) - 1m)*2");
  EXPECT_DOUBLE_EQ(a.constant, 0.5 + 2e-3);
  EXPECT_EQ(a.voltages.count("in"), 0u);  // 2 v(in) − 2 v(in): no term
  EXPECT_DOUBLE_EQ(a.voltages.at("a"), -0.25);
  EXPECT_DOUBLE_EQ(a.voltages.at("b"), 0.25);
  EXPECT_DOUBLE_EQ(a.currents.at("vsense"), 3e3);
  const AffineExpr c = ok("sqrt(4)*pi + 2^3 + max(1, 2) + 1e-3 + v(0) + v(x, gnd)");
  EXPECT_DOUBLE_EQ(c.constant, 2 * 3.14159265358979323846 + 8 + 2 + 1e-3);
  EXPECT_EQ(c.voltages.size(), 1u);
  EXPECT_DOUBLE_EQ(c.voltages.at("x"), 1.0);
}

TEST(Behavioural, FunctionsOfTimeBecomeTheConstantPart) {
  const AffineExpr a = ok("2*v(in) + 3 + sin(2*pi*50*time) * 2 + limit(time/1m, 0, 1) + time^2");
  EXPECT_DOUBLE_EQ(a.voltages.at("in"), 2);
  EXPECT_DOUBLE_EQ(a.constant, 3);
  ASSERT_TRUE(a.time);
  for (double t : {0.0, 1e-4, 3e-3, 0.0123}) {
    const double want = 2 * std::sin(2 * 3.14159265358979323846 * 50 * t) +
                        std::min(std::max(t / 1e-3, 0.0), 1.0) + t * t;
    EXPECT_NEAR(a.time(t), want, 1e-15) << t;
  }
  EXPECT_FALSE(ok("2*v(in) + 1").time);
}

TEST(Behavioural, NonAffineTermsAreNamed) {
  AffineError e = bad("1 + v(a)*v(b)");
  EXPECT_EQ(e.offset, 4u);
  EXPECT_EQ(e.length, 9u);
  EXPECT_NE(e.message.find("the product 'v(a)*v(b)' of two unknowns"), std::string::npos);
  e = bad("exp(v(a))");
  EXPECT_NE(e.message.find("'exp' of an unknown ('v(a)')"), std::string::npos);
  e = bad("2/v(a)");
  EXPECT_NE(e.message.find("division by an unknown in '2/v(a)'"), std::string::npos);
  e = bad("v(a)^2");
  EXPECT_NE(e.message.find("the power 'v(a)^2' of an unknown"), std::string::npos);
  e = bad("1 + time*v(a)");
  EXPECT_EQ(e.offset, 4u);
  EXPECT_NE(e.message.find("the product 'time*v(a)' of a function of time and an unknown"),
            std::string::npos);
  e = bad("u(time - 1m)");
  EXPECT_NE(e.message.find("a step in time has no breakpoint here"), std::string::npos);
  e = bad("k*v(a)");
  EXPECT_NE(e.message.find("unknown name 'k' in the expression: not a parameter visible here"),
            std::string::npos);
  e = bad("v(a) +");
  EXPECT_NE(e.message.find("ends too early"), std::string::npos);
  e = bad("foo(1)");
  EXPECT_NE(e.message.find("unknown function 'foo'"), std::string::npos);
  e = bad("1/0");
  EXPECT_NE(e.message.find("division by zero"), std::string::npos);
}

TEST(Behavioural, ConditionsAndTablesOfConstants) {
  EXPECT_DOUBLE_EQ(ok("if(2 > 1, 3, 4) + (1 < 0 ? 10 : 20) + (1 >= 1) + !(2 != 2)").constant,
                   3 + 20 + 1 + 1);
  EXPECT_DOUBLE_EQ(ok("(1 > 0 && 0 > 1) + 2*(1 > 0 || 0 > 1)").constant, 2);
  // table holds its ends, pwl extends its end segments.
  EXPECT_DOUBLE_EQ(ok("table(-5, -1, 0, 1, 2)").constant, 0);
  EXPECT_DOUBLE_EQ(ok("table(0.5, -1, 0, 1, 2)").constant, 1.5);
  EXPECT_DOUBLE_EQ(ok("table(7, -1, 0, 1, 2)").constant, 2);
  EXPECT_DOUBLE_EQ(ok("pwl(-3, -1, 0, 1, 2)").constant, -2);
  EXPECT_DOUBLE_EQ(ok("pwl(3, -1, 0, 1, 2, 2, 2)").constant, 2);
  const AffineExpr t = ok("table(time, 0, 0, 1m, 1)");
  ASSERT_TRUE(t.time);
  EXPECT_DOUBLE_EQ(t.time(0.5e-3), 0.5);
  EXPECT_DOUBLE_EQ(t.time(2e-3), 1);
}

TEST(Behavioural, ConditionsOfUnknownsNeedKinks) {
  // Without a kink maker (no circuit to build them in) a comparison of unknowns is refused.
  AffineError e = bad("v(a) > 1");
  EXPECT_NE(e.message.find("cannot be built"), std::string::npos) << e.message;
  e = bad("v(a) == 1");
  EXPECT_NE(e.message.find("equality of unknowns"), std::string::npos) << e.message;
  e = bad("time > 1m ? 1 : 0");
  EXPECT_NE(e.message.find("a condition on time has no breakpoint"), std::string::npos);
  e = bad("1 ? 2");
  EXPECT_NE(e.message.find("expected ':'"), std::string::npos);
}

TEST(Behavioural, BindingsGiveParametersAndFlatNames) {
  netlist::ExprBindings b;
  b.params["gain"] = 4;
  b.nodes["in"] = "x1.in";
  b.nodes["ref"] = "top";
  b.elements["vs"] = "x1.vs";
  AffineError e;
  const auto a = parse_affine("gain*v(in, ref) + i(vs)/gain + e", e, {}, &b);
  ASSERT_TRUE(a) << e.message;
  EXPECT_DOUBLE_EQ(a->voltages.at("x1.in"), 4);
  EXPECT_DOUBLE_EQ(a->voltages.at("top"), -4);
  EXPECT_DOUBLE_EQ(a->currents.at("x1.vs"), 0.25);
  EXPECT_DOUBLE_EQ(a->constant, 2.71828182845904523536);
  EXPECT_FALSE(parse_affine("gain2*v(in)", e, {}, &b));
  EXPECT_NE(e.message.find("unknown name 'gain2'"), std::string::npos);
}

// The message of `text`'s first error after "'<element>': ", and its "file:line:col" place.
std::pair<std::string, std::string> first_error(const std::string& text, const std::string& name) {
  const std::size_t at = text.find("'" + name + "': ");
  if (at == std::string::npos) return {"", ""};
  const std::size_t line_start =
      text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  const std::size_t end = text.find('\n', at);
  const std::string place =
      text.substr(line_start, text.find(": error: ", line_start) - line_start);
  return {text.substr(at + name.size() + 4, end - at - name.size() - 4), place};
}

// .func calls are expanded before the affine reader sees the expression: sq(V(a)) with body
// x*x is the product V(a)*V(a), refused with the very message of the product written out, at
// the call; an unknown function of an unknown says "unknown function", not "not affine".
TEST(Behavioural, UserFunctionsExpandBeforeTheAffineReader) {
  const auto e = testing::elaborate_text(
      "t\n.func sq(x) {x*x}\nV1 a 0 1\nB1 b 0 V=sq(V(a))\nR1 b 0 1k\nB2 c 0 V=V(a)*V(a)\n"
      "R2 c 0 1k\nE1 d 0 VALUE={1 + sq(V(a), 2)}\nR3 d 0 1k\n.tran 1u 1m\n.end\n");
  const auto [written, written_at] = first_error(e.text(), "b2");
  const auto [expanded, expanded_at] = first_error(e.text(), "b1");
  EXPECT_NE(written.find("the product 'V(a)*V(a)' of two unknowns ('V(a)' and 'V(a)')"),
            std::string::npos)
      << e.text();
  EXPECT_EQ(expanded, written);
  EXPECT_EQ(expanded_at, "t.cir:4:10");
  EXPECT_NE(e.text().find("B1 b 0 V=sq(V(a))\n         ^~~~~~~~\n"), std::string::npos) << e.text();
  EXPECT_NE(e.text().find("t.cir:8:19: error: function 'sq' takes 1 argument, got 2\n"
                          "E1 d 0 VALUE={1 + sq(V(a), 2)}\n                  ^~\n"
                          "t.cir:2:7: note: 'sq' defined here"),
            std::string::npos)
      << e.text();

  const auto none = testing::elaborate_text(
      "t\nV1 a 0 1\nB1 b 0 V=sq(V(a))\nR1 b 0 1k\nB2 c 0 I=2*Sqr(1)\nR2 c 0 1k\n"
      ".tran 1u 1m\n.end\n");
  EXPECT_NE(none.text().find("t.cir:3:10: error: 'b1': unknown function 'sq'"), std::string::npos)
      << none.text();
  EXPECT_NE(
      none.text().find("t.cir:5:12: error: 'b2': unknown function 'sqr' (did you mean 'sqrt'?)"),
      std::string::npos)
      << none.text();
}

}  // namespace
}  // namespace nsspice::circuit::detail
