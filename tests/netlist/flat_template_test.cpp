// FlatTemplate (netlist/flatten.hpp): a netlist flattened once and flattened again from the
// template with other parameter values and draws equals flatten() of the parsed tree with
// them, card for card, every number bit for bit, and the same values are drawn in the same
// order — for subcircuit parameters that depend on a stepped .param, Monte Carlo draws inside
// (nested) subcircuit instances and their overrides, behavioural sources' bound parameters,
// model parameters, source functions, .tran/.meas/.step expressions and an included library.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "flatten_helpers.hpp"

namespace nsspice::netlist {
namespace {

std::string bits(double v) { return fmt::format("{:a}", v); }

std::string dump(const Value& v) { return fmt::format("{}|{}", bits(v.value), v.expr); }

std::string dump(const Param& p) {
  return fmt::format("{}={}#{}", p.name.lower, p.raw.text, p.number ? bits(*p.number) : "none");
}

std::size_t notes(const CardContext& c) { return c ? c->size() : 0; }

std::string dump(const ElementCard& e) {
  std::string s;
  auto to = std::back_inserter(s);
  fmt::format_to(to, "E {} {}", e.name.text, e.name.lower);
  for (const Word& n : e.nodes) fmt::format_to(to, " n:{}", n.lower);
  if (e.value) fmt::format_to(to, " v:{}", dump(*e.value));
  if (e.model) fmt::format_to(to, " m:{}", e.model->lower);
  for (const auto& fn : e.functions) {
    fmt::format_to(to, " fn:{}", fn.kind.lower);
    for (const Value& a : fn.args) fmt::format_to(to, ",{}", dump(a));
    for (const Param& p : fn.params) fmt::format_to(to, ",{}", dump(p));
  }
  for (const Param& p : e.params) fmt::format_to(to, " p:{}", dump(p));
  for (const Word& r : e.refs) fmt::format_to(to, " r:{}", r.lower);
  for (const Word& f : e.flags) fmt::format_to(to, " f:{}", f.lower);
  fmt::format_to(to, " ctx:{}", notes(e.context));
  if (e.bindings) {
    for (const auto& [k, v] : e.bindings->params) fmt::format_to(to, " bp:{}={}", k, bits(v));
    for (const auto& [k, v] : e.bindings->nodes) fmt::format_to(to, " bn:{}={}", k, v);
    for (const auto& [k, v] : e.bindings->elements) fmt::format_to(to, " be:{}={}", k, v);
    fmt::format_to(to, " bx:{}", e.bindings->expanded);
  }
  return s;
}

std::string dump(const Card& c) {
  std::string s;
  auto to = std::back_inserter(s);
  if (const auto* e = std::get_if<ElementCard>(&c)) return dump(*e);
  if (const auto* m = std::get_if<ModelCard>(&c)) {
    fmt::format_to(to, "M {} {}", m->name.lower, m->type.lower);
    for (const Param& p : m->params) fmt::format_to(to, " {}", dump(p));
    fmt::format_to(to, " ctx:{}", notes(m->context));
  } else if (const auto* t = std::get_if<TranCard>(&c)) {
    fmt::format_to(to, "T {} {} {}", dump(t->tstep), dump(t->tstop),
                   t->tmax ? dump(*t->tmax) : "-");
  } else if (const auto* st = std::get_if<StepCard>(&c)) {
    fmt::format_to(to, "S {}", st->name.lower);
    for (const Value& v : st->values) fmt::format_to(to, " {}", dump(v));
  } else if (const auto* me = std::get_if<MeasCard>(&c)) {
    fmt::format_to(to, "MEAS {}", me->name.lower);
    for (const Word& w : me->tokens) fmt::format_to(to, " {}", w.text);
  } else if (const auto* o = std::get_if<OptionsCard>(&c)) {
    fmt::format_to(to, "O");
    for (const Param& p : o->params) fmt::format_to(to, " {}", dump(p));
  } else {
    fmt::format_to(to, "card {}", c.index());
  }
  return s;
}

std::string dump(const Netlist& n) {
  std::string s = n.title;
  for (const Card& c : n.cards) fmt::format_to(std::back_inserter(s), "\n{}", dump(c));
  return s;
}

// A deterministic stand-in for a run's generator: values from a counter seeded by `seed`.
std::function<double(bool)> draws(std::uint64_t seed) {
  auto state = std::make_shared<std::uint64_t>(seed);
  return [state](bool normal) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(*state >> 11) * 0x1.0p-53;  // [0, 1)
    return normal ? 3 * (u - 0.5) : 2 * u - 1;
  };
}

struct Flattened {
  std::string dump, diagnostics;
  std::vector<std::string> drawn;
};

Flattened flatten_with(
    const std::function<std::optional<Netlist>(Diagnostics&, const FlattenOptions&)>& how,
    const SourceManager& sources, std::map<std::string, double> params, std::uint64_t seed) {
  Flattened out;
  FlattenOptions o;
  o.params = std::move(params);
  if (seed != 0) {
    o.draw = draws(seed);
    o.drawn = [&out](const std::string& name, double v) {
      out.drawn.push_back(fmt::format("{}={}", name, bits(v)));
    };
  }
  Diagnostics diags;
  const auto net = how(diags, o);
  EXPECT_TRUE(net.has_value()) << diags.format(sources);
  if (net) out.dump = dump(*net);
  out.diagnostics = diags.format(sources);
  return out;
}

// Every (params, seed) flattened both ways must agree.
void expect_template_equals_flatten(const std::string& text,
                                    const std::vector<std::map<std::string, double>>& points,
                                    const std::string& library = "") {
  SourceManager sources;
  Diagnostics parse_diags;
  const Netlist parsed = parse_string(text, "t.cir", sources, parse_diags);
  ASSERT_FALSE(parse_diags.has_errors()) << parse_diags.format(sources);
  FlattenOptions base;
  base.read_file = [library](const std::string&, std::string& out) {
    out = library;
    return 0;
  };
  base.params = points.front();
  const FlatTemplate t(parsed, sources, base);
  ASSERT_TRUE(t.usable());
  for (const auto& point : points)
    for (std::uint64_t seed : {0, 1, 2, 99}) {
      SCOPED_TRACE(fmt::format("seed {}, first param {}", seed, point.begin()->second));
      SourceManager full_sources = sources;  // flatten() adds the included file to it
      auto full = [&](Diagnostics& d, const FlattenOptions& o) -> std::optional<Netlist> {
        FlattenOptions with = o;
        with.read_file = base.read_file;
        return flatten(parsed, full_sources, d, with);
      };
      auto replay = [&](Diagnostics& d, const FlattenOptions& o) -> std::optional<Netlist> {
        return t.flatten(d, o);
      };
      const Flattened a = flatten_with(full, full_sources, point, seed);
      const Flattened b = flatten_with(replay, t.sources(), point, seed);
      EXPECT_EQ(a.dump, b.dump);
      EXPECT_EQ(a.drawn, b.drawn);
      EXPECT_EQ(a.diagnostics, b.diagnostics);
      if (seed != 0) {
        EXPECT_FALSE(a.drawn.empty());
      }
    }
}

TEST(FlatTemplate, SubcircuitParametersThatDependOnASteppedParam) {
  expect_template_equals_flatten(
      "t\n.param rl=10 k={2*rl}\n.subckt stage a b params: r=1 c=1n\n"
      ".param rr={r*k}\nR1 a m {rr}\nC1 m b {c*(1+rl/100)}\nX1 m b inner g={r/2}\n.ends\n"
      ".subckt inner p q params: g=1\nR9 p q {g+agauss(1, 0.1, 1)}\n.ends\n"
      "V1 in 0 SIN(0 {rl/10} 1k)\nX1 in out stage r={rl} c=2n\nX2 out 0 stage r={rl*2}\n"
      ".tran {1u*rl/10} 1m\n.meas tran v1 find v(out) at={rl*1u}\n.step param rl list 5 10\n"
      ".end\n",
      {{{"rl", 5}}, {{"rl", 10}}, {{"rl", 0.125}}});
}

TEST(FlatTemplate, MonteCarloInSubcircuitsModelsAndBehaviouralSources) {
  expect_template_equals_flatten(
      "t\n.param vdd=agauss(5, 0.1, 1) g=1\n.subckt cell a b params: w=1\n"
      "R1 a b {mc(1k, 0.1)*w}\nD1 b 0 dloc\n.model dloc D(IS={unif(1e-14, 0.1)} N=1)\n"
      "B1 b 0 I={w*g}*v(a)\n.ends\n"
      ".model dm D(VF={aunif(0.7, 0.05)} RS={g})\n"
      "V1 a 0 {vdd}\nX1 a b cell w={gauss(2, 0.1, 1)}\nX2 b 0 cell\nD9 a 0 dm\n"
      ".options reltol={1m*g}\n.tran 1u 10u\n.end\n",
      {{{"g", 1}}, {{"g", 3}}});
}

// .func calls (a global one reading a stepped parameter, a subcircuit's own, one drawing in
// its body) are expanded the same way when flattened from the template.
TEST(FlatTemplate, UserFunctionsInValuesModelsAndBehaviouralSources) {
  expect_template_equals_flatten(
      "t\n.param g=1\n.func sc(x) {g*x}\n.func tol(x) {x*agauss(1, 0.1, 1)}\n"
      ".subckt cell a b params: w=1\n.func own(x) {sc(x)+w}\nR1 a b {own(1k)}\n"
      "B1 b 0 I=own(v(a))/1k\n.ends\n.model dm D(RS={sc(2)})\nV1 a 0 {tol(5)}\n"
      "X1 a b cell w={sc(3)}\nD9 a 0 dm\nE1 c 0 VALUE={sc(V(a, b))}\nRc c 0 1k\n"
      ".tran 1u 10u\n.end\n",
      {{{"g", 1}}, {{"g", 3}}});
}

TEST(FlatTemplate, AnIncludedLibraryIsReadOnce) {
  expect_template_equals_flatten(
      "t\n.param s=1\n.include lib.inc\nX1 a 0 part k={s}\nV1 a 0 1\n.tran 1u 2u\n.end\n",
      {{{"s", 1}}, {{"s", 4}}},
      ".subckt part p q params: k=1\nR1 p q {k*agauss(1k, 10, 1)}\n.ends\n");
}

TEST(FlatTemplate, AnExpressionThatFailsWithTheValuesGivesNoNetlist) {
  SourceManager sources;
  Diagnostics diags;
  const Netlist parsed =
      parse_string("t\n.param n=1\nR1 a 0 {sqrt(n)}\n.tran 1u 2u\n.end\n", "t.cir", sources, diags);
  FlattenOptions o;
  o.params = {{"n", 1}};
  const FlatTemplate t(parsed, sources, o);
  ASSERT_TRUE(t.usable());
  Diagnostics good, bad;
  EXPECT_TRUE(t.flatten(good, o).has_value()) << good.format(t.sources());
  o.params = {{"n", -1}};
  EXPECT_FALSE(t.flatten(bad, o).has_value());
  EXPECT_TRUE(bad.has_errors());
  // A netlist with an error makes no usable template.
  const Netlist broken = parse_string("t\nX1 a b nosuch\n.end\n", "b.cir", sources, diags);
  EXPECT_FALSE(FlatTemplate(broken, sources).usable());
}

}  // namespace
}  // namespace nsspice::netlist
