// flatten(): includes -> duplicate checks -> parameter scopes -> subcircuit expansion.
// The semantics are stated in netlist/flatten.hpp; this file holds the expansion:
//
//   expand(frame) := for card in frame.body:
//       ElementCard  -> renamed copy, nodes mapped, expressions evaluated   (output)
//       ModelCard    -> renamed copy (inside instances), params evaluated   (output)
//       InstanceCard -> expand(new frame for the subcircuit)
//       ParamCard    -> (already in frame.scope)        GlobalCard -> (already collected)
//       control card -> expressions evaluated (top level only)              (output)
#include "netlist/flatten.hpp"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "netlist/src/flatten_detail.hpp"
#include "netlist/src/includes.hpp"
#include "netlist/src/suggest.hpp"

namespace nsspice::netlist {
namespace detail {
namespace {

class Flattener {
 public:
  Flattener(Reporter& reporter, const FlattenOptions& options, Netlist& out)
      : reporter_(reporter), options_(options), out_(out) {}

  void run(const Netlist& net);

 private:
  Reporter& reporter_;
  const FlattenOptions& options_;
  Netlist& out_;
  std::unordered_set<std::string> globals_;
  std::unordered_map<const std::vector<SubcktDef>*,
                     std::unordered_map<std::string, const SubcktDef*>>
      subckt_index_;
  std::size_t elements_ = 0;
  bool stopped_ = false;

  void expand(const Frame& f);
  void instance(const Frame& f, const InstanceCard& x);
  void element(const Frame& f, const ElementCard& e);
  void model(const Frame& f, const ModelCard& m);
  void control(const Frame& f, Card card);
  Word node(const Frame& f, const Word& w) const;
  Word local(const Frame& f, const Word& w) const;
  std::optional<Word> model_name(const Frame& f, const Word& w) const;
  // The definition of `name` visible from f and the frame whose body holds it.
  std::pair<const SubcktDef*, const Frame*> find_subckt(const Frame& f, const std::string& name);
  std::vector<std::string> visible_subckts(const Frame& f) const;
};

Word Flattener::local(const Frame& f, const Word& w) const {
  if (f.prefix.empty()) return w;
  return Word{f.prefix_text + w.text, f.prefix + w.lower, w.span};
}

Word Flattener::node(const Frame& f, const Word& w) const {
  if (f.prefix.empty() || w.lower == "0" || w.lower == "gnd" || globals_.count(w.lower) > 0) {
    return w;
  }
  if (auto it = f.pins.find(w.lower); it != f.pins.end()) {
    return Word{it->second.text, it->second.lower, w.span};
  }
  return local(f, w);
}

std::optional<Word> Flattener::model_name(const Frame& f, const Word& w) const {
  for (const Frame* s = &f; s != nullptr; s = s->lexical) {
    if (s->local_models.count(w.lower) > 0) return local(*s, w);
  }
  return w;
}

std::pair<const SubcktDef*, const Frame*> Flattener::find_subckt(const Frame& f,
                                                                 const std::string& name) {
  for (const Frame* s = &f; s != nullptr; s = s->lexical) {
    auto [it, fresh] = subckt_index_.try_emplace(s->subckts);
    if (fresh) {
      for (const SubcktDef& d : *s->subckts) it->second.emplace(d.name.lower, &d);
    }
    if (auto d = it->second.find(name); d != it->second.end()) return {d->second, s};
  }
  return {nullptr, nullptr};
}

std::vector<std::string> Flattener::visible_subckts(const Frame& f) const {
  std::vector<std::string> names;
  for (const Frame* s = &f; s != nullptr; s = s->lexical) {
    for (const SubcktDef& d : *s->subckts) names.push_back(d.name.lower);
  }
  return names;
}

void Flattener::element(const Frame& f, const ElementCard& card) {
  if (++elements_ > options_.max_elements) {
    reporter_.error(card.span,
                    fmt::format("the flattened netlist has more than {} elements; stopped",
                                options_.max_elements),
                    f.scope->context());
    stopped_ = true;
    return;
  }
  ElementCard e = card;
  bool ok = evaluate_element(*f.scope, e);
  if (!ok) return;
  if (!f.prefix.empty()) {
    e.name = local(f, e.name);
    for (Word& n : e.nodes) n = node(f, n);
    for (Word& r : e.refs) r = local(f, r);
  }
  if (e.model) e.model = model_name(f, *e.model);
  e.context = reporter_.card_context(e.span.file, f.scope->context());
  out_.cards.emplace_back(std::move(e));
}

void Flattener::model(const Frame& f, const ModelCard& card) {
  ModelCard m = card;
  for (Param& p : m.params) {
    if (!f.scope->evaluate(p)) return;
  }
  m.name = local(f, m.name);
  m.context = reporter_.card_context(m.span.file, f.scope->context());
  out_.cards.emplace_back(std::move(m));
}

void Flattener::control(const Frame& f, Card card) {
  if (evaluate_control(*f.scope, card)) out_.cards.push_back(std::move(card));
}

void Flattener::instance(const Frame& f, const InstanceCard& x) {
  const CardContext& ctx = f.scope->context();
  auto [def, home] = find_subckt(f, x.subckt.lower);
  if (def == nullptr) {
    reporter_.error(x.subckt.span,
                    fmt::format("unknown subcircuit '{}' in instance '{}'{}", x.subckt.text,
                                x.name.text, did_you_mean(x.subckt.lower, visible_subckts(f))),
                    ctx);
    return;
  }
  if (x.nodes.size() != def->pins.size()) {
    std::string pins;
    for (const Word& p : def->pins) pins += (pins.empty() ? "" : " ") + p.lower;
    reporter_.report(
        Severity::kError, x.name.span,
        fmt::format("instance '{}' connects {} node{} but subcircuit '{}' has {} "
                    "pin{} ({})",
                    x.name.text, x.nodes.size(), x.nodes.size() == 1 ? "" : "s", def->name.text,
                    def->pins.size(), def->pins.size() == 1 ? "" : "s", pins),
        ctx, {Diagnostic{Severity::kNote, def->span, "subcircuit defined here", {}}});
    return;
  }
  for (const Frame* s = &f; s != nullptr; s = s->caller) {
    if (s->def != def) continue;
    std::string chain;
    for (const Frame* t = &f; t != s; t = t->caller) chain = " -> " + t->def->name.lower + chain;
    reporter_.error(x.name.span,
                    fmt::format("subcircuit '{}' instantiates itself: {}{} -> {}", def->name.lower,
                                def->name.lower, chain, def->name.lower),
                    ctx);
    return;
  }
  if (f.depth >= options_.max_depth) {
    reporter_.error(x.name.span,
                    fmt::format("subcircuits nested more than {} levels deep", options_.max_depth),
                    ctx);
    return;
  }
  // Overrides are evaluated in the instantiating scope.
  std::vector<std::pair<const Param*, double>> overrides;
  for (const Param& p : x.params) {
    bool known = false;
    std::vector<std::string> names;
    for (const Param& d : def->params) {
      known = known || d.name.lower == p.name.lower;
      names.push_back(d.name.lower);
    }
    if (!known) {
      std::string hint = did_you_mean(p.name.lower, names);
      if (hint.empty()) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : " ") + n;
        hint = names.empty() ? " (it has none)" : fmt::format(" (its parameters: {})", list);
      }
      reporter_.error(
          p.name.span,
          fmt::format("subcircuit '{}' has no parameter '{}'{}", def->name.text, p.name.text, hint),
          ctx);
      continue;
    }
    const bool quoted = is_expression(p.raw.text);
    auto v = f.scope->evaluate(quoted ? expression_body(p.raw.text) : p.raw.text, p.raw.span,
                               quoted ? 1 : 0);
    if (v) overrides.emplace_back(&p, *v);
  }
  std::vector<Diagnostic> notes = reporter_.include_notes(x.span.file);
  notes.insert(notes.begin(), Diagnostic{Severity::kNote,
                                         x.span,
                                         fmt::format("in instance '{}' of subcircuit '{}' "
                                                     "instantiated here",
                                                     x.name.lower, def->name.lower),
                                         {}});
  if (ctx) notes.insert(notes.end(), ctx->begin(), ctx->end());
  ParamScope scope(home->scope, std::make_shared<const std::vector<Diagnostic>>(std::move(notes)),
                   reporter_);
  Frame g = make_frame(*def, home, &f, scope);
  g.prefix = f.prefix + x.name.lower + ".";
  g.prefix_text = f.prefix_text + x.name.text + ".";
  for (std::size_t i = 0; i < def->pins.size(); ++i) {
    g.pins.emplace(def->pins[i].lower, node(f, x.nodes[i]));
  }
  for (const auto& [p, v] : overrides) scope.set(*p, v);
  scope.evaluate_all();
  expand(g);
}

void Flattener::expand(const Frame& f) {
  for (const Card& card : *f.cards) {
    if (stopped_) return;
    if (const auto* e = std::get_if<ElementCard>(&card)) {
      element(f, *e);
    } else if (const auto* x = std::get_if<InstanceCard>(&card)) {
      instance(f, *x);
    } else if (const auto* m = std::get_if<ModelCard>(&card)) {
      model(f, *m);
    } else if (!std::holds_alternative<ParamCard>(card) &&
               !std::holds_alternative<GlobalCard>(card) &&
               !std::holds_alternative<IncludeCard>(card)) {
      control(f, card);
    }
  }
}

void Flattener::run(const Netlist& net) {
  for (const Card& c : net.cards) {
    if (const auto* g = std::get_if<GlobalCard>(&c)) {
      for (const Word& w : g->nodes) globals_.insert(w.lower);
    }
  }
  ParamScope global(nullptr, nullptr, reporter_);
  Frame top = make_frame(net, global);
  global.evaluate_all();
  expand(top);
}

}  // namespace
}  // namespace detail

Netlist flatten(const Netlist& parsed, SourceManager& sources, Diagnostics& diags,
                const FlattenOptions& options) {
  return flatten(Netlist(parsed), sources, diags, options);
}

Netlist flatten(Netlist&& parsed, SourceManager& sources, Diagnostics& diags,
                const FlattenOptions& options) {
  detail::Reporter reporter(diags);
  Netlist net = std::move(parsed);
  detail::expand_includes(net, net.title_span.file, sources, reporter, options);
  detail::check_duplicates(net, reporter);
  Netlist out;
  out.title = net.title;
  out.title_span = net.title_span;
  out.has_end = net.has_end;
  out.output_file = net.output_file;
  detail::Flattener(reporter, options, out).run(net);
  return out;
}

}  // namespace nsspice::netlist
