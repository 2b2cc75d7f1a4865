// Internal: frames, expression evaluation on cards, and per-body duplicate checks.
//
//   evaluate_element: value, params ({...}/'...'), function args and params
//   evaluate_control: .tran values, .ic/.nodeset values, .options params, .meas "k={...}",
//                     .step values
//   check_duplicates: names are compared in lower case within one body; subcircuit names
//                     within one list of definitions.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "netlist/src/flatten_detail.hpp"

namespace nsspice::netlist::detail {
namespace {

void define_params(const std::vector<Card>& cards, ParamScope& scope) {
  for (const Card& c : cards) {
    if (const auto* p = std::get_if<ParamCard>(&c)) {
      for (const Param& param : p->params) scope.define(param);
    }
    if (const auto* f = std::get_if<FuncCard>(&c)) scope.define_function(*f);
  }
}

void collect_models(const std::vector<Card>& cards, std::unordered_set<std::string>& out) {
  for (const Card& c : cards) {
    if (const auto* m = std::get_if<ModelCard>(&c)) out.insert(m->name.lower);
  }
}

bool evaluate_entries(const ParamScope& scope, std::vector<IcEntry>& entries) {
  bool ok = true;
  for (IcEntry& e : entries) ok = scope.evaluate(e.value) && ok;
  return ok;
}

// "val={vdd/2}" -> "val=2.5"; "{x}" -> "3".
bool evaluate_token(const ParamScope& scope, Word& token) {
  const std::size_t eq = token.text.find('=');
  const std::size_t start = eq == std::string::npos ? 0 : eq + 1;
  const std::string_view rhs = std::string_view(token.text).substr(start);
  // A bare parameter name (ngspice: WHEN V(out)=vth, VAL=vth) is its value too; not after
  // RISE/FALL/CROSS, whose LAST is a keyword.
  const std::string lhs = ascii_lower(token.text.substr(0, start));
  const bool bare = eq != std::string::npos && lhs != "rise=" && lhs != "fall=" &&
                    lhs != "cross=" && scope.defines(ascii_lower(std::string(rhs)));
  if (!is_expression(rhs) && !bare) return true;
  SourceSpan at = token.span;
  at.column += static_cast<int>(start);
  auto v = bare ? scope.evaluate(rhs, at, 0) : scope.evaluate(expression_body(rhs), at, 1);
  if (!v) return false;
  token.text = token.text.substr(0, start) + fmt::format("{}", *v);
  token.lower = ascii_lower(token.text);
  return true;
}

Diagnostic duplicate(SourceSpan at, std::string message, SourceSpan first) {
  Diagnostic d{Severity::kError, at, std::move(message), {}};
  d.notes.push_back(Diagnostic{Severity::kNote, first, "first defined here", {}});
  return d;
}

void check_body(std::vector<Card>& cards, std::vector<SubcktDef>& subckts, Reporter& reporter) {
  std::unordered_map<std::string, SourceSpan> elements, models, params, functions;
  std::vector<Card> kept;
  kept.reserve(cards.size());
  for (Card& c : cards) {
    const Word* name = nullptr;
    std::unordered_map<std::string, SourceSpan>* seen = &elements;
    const char* what = "element";
    if (const auto* e = std::get_if<ElementCard>(&c)) name = &e->name;
    if (const auto* x = std::get_if<InstanceCard>(&c)) name = &x->name;
    if (const auto* m = std::get_if<ModelCard>(&c)) {
      name = &m->name;
      seen = &models;
      what = "model";
    }
    if (const auto* p = std::get_if<ParamCard>(&c)) {
      for (const Param& param : p->params) {
        auto [it, fresh] = params.emplace(param.name.lower, param.name.span);
        if (fresh) continue;
        Diagnostic d{
            Severity::kWarning,
            param.name.span,
            fmt::format("parameter '{}' redefined; the last definition is used", param.name.lower),
            {Diagnostic{Severity::kNote, it->second, "previous definition here", {}}}};
        reporter.report(d.severity, d.span, d.message, nullptr, d.notes);
        it->second = param.name.span;
      }
    }
    if (const auto* f = std::get_if<FuncCard>(&c)) {
      auto [it, fresh] = functions.emplace(f->name.lower, f->name.span);
      if (!fresh)
        reporter.report(
            Severity::kWarning, f->name.span,
            fmt::format("function '{}' redefined; the last definition is used", f->name.lower),
            nullptr, {Diagnostic{Severity::kNote, it->second, "previous definition here", {}}});
      it->second = f->name.span;
    }
    if (name != nullptr) {
      auto [it, fresh] = seen->emplace(name->lower, name->span);
      if (!fresh) {
        Diagnostic d = duplicate(
            name->span, fmt::format("duplicate {} name '{}'", what, name->lower), it->second);
        reporter.report(d.severity, d.span, d.message, nullptr, d.notes);
        continue;
      }
    }
    kept.push_back(std::move(c));
  }
  cards = std::move(kept);
  std::unordered_map<std::string, SourceSpan> defs;
  std::vector<SubcktDef> kept_defs;
  for (SubcktDef& d : subckts) {
    auto [it, fresh] = defs.emplace(d.name.lower, d.name.span);
    if (!fresh) {
      Diagnostic dup = duplicate(
          d.name.span, fmt::format("duplicate subcircuit name '{}'", d.name.lower), it->second);
      reporter.report(dup.severity, dup.span, dup.message, nullptr, dup.notes);
      continue;
    }
    check_body(d.cards, d.subckts, reporter);
    kept_defs.push_back(std::move(d));
  }
  subckts = std::move(kept_defs);
}

}  // namespace

void define_top_params(const Netlist& net, const FlattenOptions& options, ParamScope& scope) {
  define_params(net.cards, scope);
  // LTspice: a .step param needs no .param card; without one the parameter is the step's first
  // value (a run of the sweep sets its own through options.params).
  for (const Card& c : net.cards) {
    const auto* st = std::get_if<StepCard>(&c);
    if (st == nullptr || st->target != StepCard::Target::kParam || st->values.empty() ||
        scope.has_local(st->name.lower))
      continue;
    const Value& first = st->values.front();
    const std::string raw =
        first.expr.empty() ? fmt::format("{:.17g}", first.value) : "{" + first.expr + "}";
    scope.define(Param{st->name, Word{raw, "", first.span}, std::nullopt, st->span});
  }
  for (const auto& [name, value] : options.params) {
    const Word w{name, name, net.title_span};
    scope.set(
        Param{w, Word{fmt::format("{:.17g}", value), "", net.title_span}, value, net.title_span},
        value);
  }
  // The circuit temperature as the circuit layer finds it: the last .temp or .options temp=.
  std::optional<double> celsius = options.temperature;
  for (const Card& c : net.cards) {
    const auto* o = std::get_if<OptionsCard>(&c);
    for (std::size_t i = 0; o != nullptr && !options.temperature && i < o->params.size(); ++i) {
      Param p = o->params[i];
      if (p.name.lower == "temp" && scope.evaluate(p) && p.number) celsius = *p.number;
    }
  }
  scope.set_temperature(celsius.value_or(27.0));
}

void define_instance_params(const SubcktDef& def, ParamScope& scope) {
  for (const Param& p : def.params) scope.define(p);
  define_params(def.cards, scope);
}

Frame make_frame(const Netlist& net, const FlattenOptions& options, ParamScope& scope) {
  Frame f;
  f.cards = &net.cards;
  f.subckts = &net.subckts;
  f.scope = &scope;
  define_top_params(net, options, scope);
  collect_models(net.cards, f.local_models);
  return f;
}

Frame make_frame(const SubcktDef& def, const Frame* home, const Frame* caller, ParamScope& scope) {
  Frame f;
  f.cards = &def.cards;
  f.subckts = &def.subckts;
  f.lexical = home;
  f.caller = caller;
  f.def = &def;
  f.scope = &scope;
  f.depth = caller->depth + 1;
  define_instance_params(def, scope);
  collect_models(def.cards, f.local_models);
  return f;
}

bool evaluate_element(const ParamScope& scope, ElementCard& e, const std::string* as) {
  bool ok = true;
  const std::string& name = as != nullptr ? *as : e.name.lower;
  if (e.value) ok = scope.evaluate(*e.value, name) && ok;
  for (Param& p : e.params) ok = scope.evaluate(p, name + "." + p.name.lower) && ok;
  for (SourceFunction& fn : e.functions) {
    // "v1.sin(2)": the second argument of V1's SIN(...).
    for (std::size_t i = 0; i < fn.args.size(); ++i)
      ok = scope.evaluate(fn.args[i], fmt::format("{}.{}({})", name, fn.kind.lower, i + 1)) && ok;
    for (Param& p : fn.params)
      ok = scope.evaluate(p, fmt::format("{}.{}.{}", name, fn.kind.lower, p.name.lower)) && ok;
  }
  return ok;
}

bool evaluate_model(const ParamScope& scope, ModelCard& m, const std::string* as) {
  const std::string& name = as != nullptr ? *as : m.name.lower;
  for (Param& p : m.params)
    if (!scope.evaluate(p, name + "." + p.name.lower)) return false;
  return true;
}

std::optional<double> evaluate_override(const ParamScope& in, const InstanceCard& x,
                                        const Param& p) {
  const bool quoted = is_expression(p.raw.text);
  return in.evaluate(quoted ? expression_body(p.raw.text) : p.raw.text, p.raw.span, quoted ? 1 : 0,
                     x.name.lower + "." + p.name.lower);
}

namespace {

bool expression_param(const Param& p) { return !p.number && is_expression(p.raw.text); }

bool element_has_expression(const ElementCard& e) {
  if (e.value && !e.value->expr.empty()) return true;
  if (std::any_of(e.params.begin(), e.params.end(), expression_param)) return true;
  for (const SourceFunction& fn : e.functions) {
    for (const Value& v : fn.args)
      if (!v.expr.empty()) return true;
    if (std::any_of(fn.params.begin(), fn.params.end(), expression_param)) return true;
  }
  return false;
}

}  // namespace

bool has_expression(const Card& card) {
  if (const auto* e = std::get_if<ElementCard>(&card)) return element_has_expression(*e);
  if (const auto* m = std::get_if<ModelCard>(&card))
    return std::any_of(m->params.begin(), m->params.end(), expression_param);
  return true;  // control cards: evaluated again (few, top level only)
}

bool evaluate_control(const ParamScope& scope, Card& card) {
  if (auto* t = std::get_if<TranCard>(&card)) {
    bool ok = scope.evaluate(t->tstep);
    ok = scope.evaluate(t->tstop) && ok;
    if (t->tstart) ok = scope.evaluate(*t->tstart) && ok;
    if (t->tmax) ok = scope.evaluate(*t->tmax) && ok;
    return ok;
  }
  if (auto* dc = std::get_if<DcCard>(&card)) {
    bool ok = true;
    for (DcSweep& s : dc->sweeps) {
      for (Value* v : {&s.start, &s.stop, &s.step}) ok = scope.evaluate(*v) && ok;
      s.parameter = scope.has_local(s.source.lower);
    }
    return ok;
  }
  if (auto* ac = std::get_if<AcCard>(&card)) {
    bool ok = true;
    for (Value* v : {&ac->points, &ac->fstart, &ac->fstop}) ok = scope.evaluate(*v) && ok;
    return ok;
  }
  if (auto* pss = std::get_if<PssCard>(&card)) {
    bool ok = true;
    for (Value& v : pss->positional) ok = scope.evaluate(v) && ok;
    for (Param& p : pss->params) ok = scope.evaluate(p) && ok;
    return ok;
  }
  if (auto* ic = std::get_if<IcCard>(&card)) return evaluate_entries(scope, ic->entries);
  if (auto* st = std::get_if<StepCard>(&card)) {
    bool ok = true;
    for (Value& v : st->values) ok = scope.evaluate(v) && ok;
    return ok;
  }
  if (auto* ns = std::get_if<NodesetCard>(&card)) return evaluate_entries(scope, ns->entries);
  if (auto* o = std::get_if<OptionsCard>(&card)) {
    bool ok = true;
    for (Param& p : o->params) ok = scope.evaluate(p) && ok;
    return ok;
  }
  if (auto* m = std::get_if<MeasCard>(&card)) {
    // A param measurement's expression names other measurements: read after the run.
    if (!m->tokens.empty() &&
        (m->tokens[0].lower == "param" || m->tokens[0].lower.starts_with("param=")))
      return true;
    bool ok = true;
    for (Word& t : m->tokens) ok = evaluate_token(scope, t) && ok;
    return ok;
  }
  return true;
}

void check_duplicates(Netlist& net, Reporter& reporter) {
  check_body(net.cards, net.subckts, reporter);
}

}  // namespace nsspice::netlist::detail
