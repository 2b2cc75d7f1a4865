// FlatTemplate::flatten: a recorded flatten (flatten.cpp, Tape) done again with other values.
//
//   for step in tape.steps:
//     kScope   -> the scope made anew: the global one (the .param cards, FlattenOptions::params,
//                 the draws), or an instance's (its overrides evaluated in the caller's scope,
//                 its defaults and body .param cards, the overrides set); then every entry
//                 evaluated, as flatten() does when it makes that scope
//     kElement, kModel -> the flat card copied, its value fields (value, params, source
//                 functions; a model's params) taken from the parsed card again and evaluated
//                 in the step's scope under the card's own name; a behavioural source's bound
//                 parameters looked up again
//     kControl -> the parsed card evaluated again (top-level .tran, .step, .meas, ...)
// Renaming, node mapping, contexts and subcircuit look-ups are the recorded ones: they do not
// depend on values. The steps evaluate in flatten()'s order, so the k-th draw of a run goes to
// the same value in both.
#include "netlist/src/flat_template.hpp"

#include <deque>

namespace nsspice::netlist {
namespace {

using detail::ParamScope;
using detail::TapeScope;
using detail::TapeStep;

class Replay {
 public:
  Replay(const FlatTemplate::Impl& t, const FlattenOptions& options, Diagnostics& diags)
      : t_(t), options_(options), reporter_(diags) {
    for (const auto& [file, at] : t.included_from) reporter_.set_included_from(file, at);
  }

  Netlist run();

 private:
  const FlatTemplate::Impl& t_;
  const FlattenOptions& options_;
  detail::Reporter reporter_;
  std::deque<ParamScope> scopes_;  // stable addresses: a scope points at its parent

  void scope(const TapeScope& s);
  Card card(const TapeStep& step, const Card& flat) const;
  ElementCard element(const ParamScope& in, const ElementCard& source,
                      const ElementCard& flat) const;
};

void Replay::scope(const TapeScope& s) {
  if (s.def == nullptr) {
    ParamScope& global = scopes_.emplace_back(nullptr, nullptr, reporter_);
    if (options_.draw) global.set_draw(&options_.draw);
    if (options_.drawn) global.set_drawn(&options_.drawn);
    detail::define_top_params(t_.tree, options_, global);
    global.evaluate_all();
    return;
  }
  std::vector<std::pair<const Param*, double>> overrides;
  for (const Param& p : s.x->params)
    if (auto v = detail::evaluate_override(scopes_[s.caller], *s.x, p))
      overrides.emplace_back(&p, *v);
  ParamScope& scope = scopes_.emplace_back(&scopes_[s.parent], s.notes, reporter_);
  detail::define_instance_params(*s.def, scope);
  scope.set_prefix(s.prefix);
  for (const auto& [p, v] : overrides) scope.set(*p, v);
  scope.evaluate_all();
}

ElementCard Replay::element(const ParamScope& in, const ElementCard& source,
                            const ElementCard& flat) const {
  ElementCard e = flat;
  e.value = source.value;
  e.params = source.params;
  e.functions = source.functions;
  detail::evaluate_element(in, e, &source.name.lower);
  if (e.bindings != nullptr && !e.bindings->params.empty()) {
    auto b = std::make_shared<ExprBindings>(*e.bindings);
    const Param* p = behavioural_expression(e);
    const SourceSpan at = p != nullptr ? p->raw.span : e.span;
    for (auto& [name, value] : b->params)
      if (auto v = in.evaluate(name, at, 0)) value = *v;
    e.bindings = std::move(b);
  }
  return e;
}

Card Replay::card(const TapeStep& step, const Card& flat) const {
  if (!step.has_expression) return flat;
  const ParamScope& in = scopes_[step.scope];
  if (step.kind == TapeStep::Kind::kElement)
    return element(in, std::get<ElementCard>(*step.source), std::get<ElementCard>(flat));
  if (step.kind == TapeStep::Kind::kModel) {
    const auto& source = std::get<ModelCard>(*step.source);
    ModelCard m = std::get<ModelCard>(flat);
    m.params = source.params;
    detail::evaluate_model(in, m, &source.name.lower);
    return m;
  }
  Card c = *step.source;
  detail::evaluate_control(in, c);
  return c;
}

Netlist Replay::run() {
  Netlist out;
  out.title = t_.flat.title;
  out.title_span = t_.flat.title_span;
  out.has_end = t_.flat.has_end;
  out.output_file = t_.flat.output_file;
  out.cards.reserve(t_.flat.cards.size());
  for (const TapeStep& step : t_.tape.steps) {
    if (step.kind == TapeStep::Kind::kScope)
      scope(t_.tape.scopes[step.scope]);
    else
      out.cards.push_back(card(step, t_.flat.cards[out.cards.size()]));
  }
  return out;
}

}  // namespace

FlatTemplate::FlatTemplate(FlatTemplate&&) noexcept = default;
FlatTemplate& FlatTemplate::operator=(FlatTemplate&&) noexcept = default;
FlatTemplate::~FlatTemplate() = default;

bool FlatTemplate::usable() const { return impl_->usable; }

const SourceManager& FlatTemplate::sources() const { return impl_->sources; }

std::optional<Netlist> FlatTemplate::flatten(Diagnostics& diags,
                                             const FlattenOptions& options) const {
  if (!impl_->usable) return std::nullopt;
  for (const Diagnostic& d : impl_->before) diags.add(d);
  Netlist out = Replay(*impl_, options, diags).run();
  if (diags.has_errors()) return std::nullopt;
  return out;
}

}  // namespace nsspice::netlist
