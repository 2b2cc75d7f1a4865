// flatten(): includes -> duplicate checks -> parameter scopes -> subcircuit expansion.
// The semantics are stated in netlist/flatten.hpp; this file holds the expansion:
//
//   expand(frame) := for card in frame.body:
//       ElementCard  -> renamed copy, nodes mapped, expressions evaluated   (output)
//       ModelCard    -> renamed copy (inside instances), params evaluated   (output)
//       InstanceCard -> expand(new frame for the subcircuit)
//       ParamCard, FuncCard -> (already in frame.scope)        GlobalCard -> (already collected)
//       control card -> expressions evaluated (top level only)              (output)
//
// Before anything is expanded, the number of elements the netlist expands to is counted
// without expanding it (count(body) = its element cards + Σ over its X cards count(subckt),
// memoized per definition, saturating above the limit), so an expansion bomb (8 levels × 10
// instances = 10^8 elements) is an error before one element is copied, naming the chain of
// instances that carries most of the count. Instance expansions are counted the same way and
// limited alike (a bomb of empty or unknown subcircuits produces no element but would still
// take minutes).
#include "netlist/flatten.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "netlist/src/flat_template.hpp"
#include "netlist/src/flatten_detail.hpp"
#include "netlist/src/includes.hpp"
#include "netlist/src/suggest.hpp"

namespace nsspice::netlist {
namespace detail {
namespace {

// What expanding a body produces: elements, and instances expanded on the way (each costs
// work even when it produces nothing); both saturate at max_elements + 1.
struct Count {
  std::size_t elements = 0;
  std::size_t instances = 0;
};

class Flattener {
 public:
  Flattener(Reporter& reporter, const FlattenOptions& options, Netlist& out, Tape* tape = nullptr)
      : reporter_(reporter), options_(options), out_(out), tape_(tape) {}

  void run(const Netlist& net);

 private:
  Reporter& reporter_;
  const FlattenOptions& options_;
  Netlist& out_;
  Tape* tape_;  // records what is done (FlatTemplate); may be null
  std::unordered_set<std::string> globals_;
  std::unordered_map<const std::vector<SubcktDef>*,
                     std::unordered_map<std::string, const SubcktDef*>>
      subckt_index_;
  std::size_t elements_ = 0;
  bool stopped_ = false;
  // Element counts of the definitions (saturated at max_elements + 1), the parent definition
  // of each nested definition (null: top level), and definitions being counted (cycles).
  std::map<std::pair<const SubcktDef*, int>, Count> count_;
  std::unordered_map<const SubcktDef*, const SubcktDef*> parent_;
  std::unordered_set<const SubcktDef*> counting_;
  // The "did you mean" of an unknown subcircuit, per (name, enclosing definition): a netlist
  // whose PDK library is missing has thousands of instances of each unknown name.
  std::map<std::pair<std::string, const SubcktDef*>, std::string> unknown_hints_;
  bool cut_ = false;  // the count being made stopped at max_depth somewhere
  const std::vector<SubcktDef>* top_subckts_ = nullptr;

  void expand(const Frame& f);
  void expand_card(const Frame& f, const Card& card);
  void instance(const Frame& f, const InstanceCard& x);
  void element(const Frame& f, const ElementCard& e);
  void model(const Frame& f, const ModelCard& m);
  void control(const Frame& f, const Card& card);
  // Records that the card just output came from `source`, evaluated in f's scope.
  void record(const Frame& f, const Card& source);
  Word node(const Frame& f, const Word& w) const;
  // The bindings of a behavioural expression (ast.hpp ExprBindings); false after reporting
  // a parameter that cannot be evaluated.
  bool bind_expression(const Frame& f, ElementCard& e, const Param& p) const;
  Word local(const Frame& f, const Word& w) const;
  std::optional<Word> model_name(const Frame& f, const Word& w) const;
  // The definition of `name` visible from f and the frame whose body holds it.
  std::pair<const SubcktDef*, const Frame*> find_subckt(const Frame& f, const std::string& name);
  std::vector<std::string> visible_subckts(const Frame& f) const;
  const SubcktDef* lookup(const std::vector<SubcktDef>* defs, const std::string& name);
  // The definition an X card in the body of `in` (null: the top level) refers to.
  const SubcktDef* resolve(const SubcktDef* in, const std::string& name);
  Count count(const std::vector<Card>& cards, const SubcktDef* in, int depth);
  Count count(const SubcktDef* def, int depth);
  // Reports (and returns true) when the top level expands to more than max_elements elements
  // or more than max_elements subcircuit instances.
  bool too_many_elements(const Netlist& net);
  // "'x1.x2.x3' (subcircuits a -> b -> c)", shortened in the middle when long.
  std::string instance_chain(const Frame& f, const InstanceCard& x) const;
};

const SubcktDef* Flattener::lookup(const std::vector<SubcktDef>* defs, const std::string& name) {
  auto [it, fresh] = subckt_index_.try_emplace(defs);
  if (fresh) {
    for (const SubcktDef& d : *defs) it->second.emplace(d.name.lower, &d);
  }
  auto d = it->second.find(name);
  return d == it->second.end() ? nullptr : d->second;
}

const SubcktDef* Flattener::resolve(const SubcktDef* in, const std::string& name) {
  for (const SubcktDef* s = in; s != nullptr; s = parent_[s]) {
    if (const SubcktDef* d = lookup(&s->subckts, name)) return d;
  }
  return lookup(top_subckts_, name);
}

Count Flattener::count(const std::vector<Card>& cards, const SubcktDef* in, int depth) {
  Count n;
  auto add = [](std::size_t& to, std::size_t what, std::size_t cap) {
    to = std::min(to + what, cap + 1);  // saturates: what <= cap + 1, no overflow
  };
  for (const Card& c : cards) {
    if (std::holds_alternative<ElementCard>(c)) {
      add(n.elements, 1, options_.max_elements);
    } else if (const auto* x = std::get_if<InstanceCard>(&c)) {
      // The X card itself is expanded (or reported) even when its subcircuit is unknown or
      // nested too deep; what it holds then counts 0.
      add(n.instances, 1, options_.max_instances);
      if (depth >= options_.max_depth) {
        cut_ = true;
      } else if (const SubcktDef* d = resolve(in, x->subckt.lower)) {
        const Count inner = count(d, depth + 1);
        add(n.elements, inner.elements, options_.max_elements);
        add(n.instances, inner.instances, options_.max_instances);
      }
    }
  }
  return n;
}

Count Flattener::count(const SubcktDef* def, int depth) {
  // A count cut by the depth limit depends on the depth it was made at: memoized per (def,
  // depth), others per def (key depth -1). Either way each is computed once.
  if (auto it = count_.find({def, -1}); it != count_.end()) return it->second;
  if (auto it = count_.find({def, depth}); it != count_.end()) return it->second;
  if (!counting_.insert(def).second) return {};  // recursive: reported by the expansion
  const bool outer_cut = std::exchange(cut_, false);
  const Count n = count(def->cards, def, depth);
  counting_.erase(def);
  count_.emplace(std::make_pair(def, cut_ ? depth : -1), n);
  cut_ = cut_ || outer_cut;
  return n;
}

bool Flattener::too_many_elements(const Netlist& net) {
  top_subckts_ = &net.subckts;
  std::vector<const SubcktDef*> todo;
  for (const SubcktDef& d : net.subckts) todo.push_back(&d);
  while (!todo.empty()) {
    const SubcktDef* d = todo.back();
    todo.pop_back();
    for (const SubcktDef& inner : d->subckts) {
      parent_[&inner] = d;
      todo.push_back(&inner);
    }
  }
  const Count total = count(net.cards, nullptr, 0);
  if (total.elements <= options_.max_elements && total.instances <= options_.max_instances)
    return false;
  // Elements, or (a bomb of empty or unknown subcircuits) instance expansions.
  const bool elements = total.elements > options_.max_elements;
  const std::size_t cap = elements ? options_.max_elements : options_.max_instances;
  const char* what = elements ? "elements" : "subcircuit instances";
  auto measure = [&](const Count& c) { return elements ? c.elements : c.instances; };
  // The chain of instances holding the most of them, from the top down (kChainShown deep).
  constexpr int kChainShown = 4;
  std::string chain;
  const InstanceCard* first = nullptr;
  const std::vector<Card>* cards = &net.cards;
  const SubcktDef* in = nullptr;
  std::string prefix;
  for (int depth = 0; depth < options_.max_depth; ++depth) {
    const InstanceCard* best = nullptr;
    const SubcktDef* best_def = nullptr;
    std::size_t best_count = 0;
    std::size_t instances = 0;
    for (const Card& c : *cards) {
      const auto* x = std::get_if<InstanceCard>(&c);
      const SubcktDef* d = x != nullptr ? resolve(in, x->subckt.lower) : nullptr;
      if (d == nullptr) continue;
      ++instances;
      if (const std::size_t n = measure(count(d, depth + 1)); n > best_count) {
        best = x, best_def = d, best_count = n;
      }
    }
    if (best == nullptr) break;
    if (first == nullptr) first = best;
    if (depth == kChainShown) {
      chain += " -> ...";
      break;
    }
    prefix += best->name.lower;
    const std::string more = best_count > cap ? "more than " : "";
    chain += fmt::format("{}'{}' (subcircuit '{}', {}{} {}, one of {} instances)",
                         chain.empty() ? "" : " -> ", prefix, best_def->name.lower, more,
                         std::min(best_count, cap), elements ? "elements" : "instances inside",
                         instances);
    prefix += ".";
    cards = &best_def->cards;
    in = best_def;
  }
  const SourceSpan at = first != nullptr ? first->name.span : net.title_span;
  reporter_.error(at,
                  fmt::format("the flattened netlist would have more than {} {}; nothing "
                              "was expanded; the instances holding most of them: {}",
                              cap, what, chain),
                  nullptr);
  stopped_ = true;
  return true;
}

// The first and last `keep` characters of a long text, " ... " between them.
std::string shorten(const std::string& text, std::size_t keep = 60) {
  if (text.size() <= 2 * keep + 5) return text;
  return fmt::format("{} ... {}", text.substr(0, keep), text.substr(text.size() - keep));
}

std::string Flattener::instance_chain(const Frame& f, const InstanceCard& x) const {
  std::string chain;
  for (const Frame* s = &f; s != nullptr && s->def != nullptr; s = s->caller) {
    chain = s->def->name.lower + " -> " + chain;
  }
  return fmt::format("'{}' (subcircuits {})", shorten(f.prefix + x.name.lower),
                     shorten(chain + x.subckt.lower));
}

Word Flattener::local(const Frame& f, const Word& w) const {
  if (f.prefix.empty()) return w;
  return Word{f.prefix_text + w.text, f.prefix + w.lower, w.span};
}

Word Flattener::node(const Frame& f, const Word& w) const {
  // Global: ground, the .global nodes, and LTspice's "$G_" names (global wherever they occur).
  if (f.prefix.empty() || w.lower == "0" || w.lower == "gnd" || globals_.count(w.lower) > 0 ||
      w.lower.starts_with("$g_")) {
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
    if (const SubcktDef* d = lookup(s->subckts, name)) return {d, s};
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
  if (const Param* p = behavioural_expression(e); p != nullptr && !bind_expression(f, e, *p))
    return;
  out_.cards.emplace_back(std::move(e));
}

void Flattener::record(const Frame& f, const Card& source) {
  TapeStep step{TapeStep::Kind::kControl, f.tape_scope, &source, true};
  if (const auto* e = std::get_if<ElementCard>(&out_.cards.back())) {
    step.kind = TapeStep::Kind::kElement;
    step.has_expression =
        has_expression(source) || (e->bindings != nullptr && !e->bindings->params.empty());
  } else if (std::holds_alternative<ModelCard>(source)) {
    step.kind = TapeStep::Kind::kModel;
    step.has_expression = has_expression(source);
  }
  tape_->steps.push_back(step);
}

// Scans the expression for the names it uses: a bare identifier (not a call) that is a visible
// parameter gets its value; the arguments of v(...) and i(...) get their flat names. Numbers
// ("1k", "2.5e-3") are skipped whole, so their suffixes are not taken for names.
bool Flattener::bind_expression(const Frame& f, ElementCard& e, const Param& p) const {
  auto b = std::make_shared<ExprBindings>();
  if (f.scope->has_functions()) {  // .func calls: the circuit layer reads the expansion
    auto x = f.scope->expand(p.raw.text, p.raw.span, 0, f.scope->context());
    if (!x) return false;
    if (x->text != p.raw.text) std::tie(b->expanded, b->origin) = std::tie(x->text, x->origin);
  }
  const std::string s = ascii_lower(b->expanded.empty() ? p.raw.text : b->expanded);
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  bool ok = true;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (digit(c) || (c == '.' && i + 1 < s.size() && digit(s[i + 1]))) {
      while (i < s.size() && (digit(s[i]) || alpha(s[i]) || s[i] == '.' ||
                              ((s[i] == '+' || s[i] == '-') && s[i - 1] == 'e')))
        ++i;
      continue;
    }
    if (!alpha(c)) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < s.size() && (alpha(s[i]) || digit(s[i]))) ++i;
    const std::string name = s.substr(start, i - start);
    std::size_t j = i;
    while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
    if (j < s.size() && s[j] == '(') {
      if (name != "v" && name != "i") continue;  // a function: its arguments are scanned on
      const std::size_t close = s.find(')', j);
      if (close == std::string::npos) break;  // the circuit's parser reports it
      std::string args = s.substr(j + 1, close - j - 1);
      std::size_t from = 0;
      while (from <= args.size()) {
        std::size_t comma = args.find(',', from);
        if (comma == std::string::npos) comma = args.size();
        std::string a = args.substr(from, comma - from);
        a.erase(0, a.find_first_not_of(" \t"));
        a.erase(a.find_last_not_of(" \t") + 1);
        if (!a.empty()) {
          const Word w{a, a, p.raw.span};
          if (name == "v")
            b->nodes[a] = node(f, w).lower;
          else
            b->elements[a] = local(f, w).lower;
        }
        from = comma + 1;
      }
      i = close + 1;
      continue;
    }
    if (name == "time" || b->params.count(name) > 0 || !f.scope->defines(name)) continue;
    SourceSpan at = p.raw.span;
    const auto [from, to] = b->written(start, name.size());
    at.column += static_cast<int>(from);
    at.length = static_cast<int>(to - from);
    auto v = f.scope->evaluate(name, at, 0);
    if (v)
      b->params[name] = *v;
    else
      ok = false;
  }
  e.bindings = std::move(b);
  return ok;
}

void Flattener::model(const Frame& f, const ModelCard& card) {
  ModelCard m = card;
  if (!evaluate_model(*f.scope, m)) return;
  m.name = local(f, m.name);
  m.context = reporter_.card_context(m.span.file, f.scope->context());
  out_.cards.emplace_back(std::move(m));
}

void Flattener::control(const Frame& f, const Card& source) {
  Card card = source;
  if (!evaluate_control(*f.scope, card)) return;
  out_.cards.push_back(std::move(card));
}

void Flattener::instance(const Frame& f, const InstanceCard& x) {
  const CardContext& ctx = f.scope->context();
  auto [def, home] = find_subckt(f, x.subckt.lower);
  if (def == nullptr) {
    auto [hint, fresh] = unknown_hints_.try_emplace({x.subckt.lower, f.def});
    if (fresh) hint->second = did_you_mean(x.subckt.lower, visible_subckts(f));
    reporter_.error(x.subckt.span,
                    fmt::format("unknown subcircuit '{}' in instance '{}'{}", x.subckt.text,
                                x.name.text, hint->second),
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
                    fmt::format("subcircuits nested more than {} levels deep: instance {}",
                                options_.max_depth, instance_chain(f, x)),
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
      if (p.name.lower == "m" && hint.empty()) {
        // ngspice multiplies every element inside by m (devices in parallel); not done here.
        reporter_.error(p.name.span,
                        fmt::format("m= on a subcircuit instance (ngspice's multiplier of every "
                                    "element inside) is not supported: instantiate '{}' m times, "
                                    "or give its elements m= (R, C, L, D, M, Q take it)",
                                    def->name.text),
                        ctx);
        continue;
      }
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
    if (auto v = evaluate_override(*f.scope, x, p)) overrides.emplace_back(&p, *v);
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
  scope.set_prefix(g.prefix);
  g.prefix_text = f.prefix_text + x.name.text + ".";
  for (std::size_t i = 0; i < def->pins.size(); ++i) {
    g.pins.emplace(def->pins[i].lower, node(f, x.nodes[i]));
  }
  for (const auto& [p, v] : overrides) scope.set(*p, v);
  if (tape_ != nullptr) {
    g.tape_scope = static_cast<int>(tape_->scopes.size());
    tape_->scopes.push_back(
        TapeScope{home->tape_scope, f.tape_scope, def, &x, scope.context(), g.prefix});
    tape_->steps.push_back(TapeStep{TapeStep::Kind::kScope, g.tape_scope, nullptr, true});
  }
  scope.evaluate_all();
  expand(g);
}

void Flattener::expand(const Frame& f) {
  for (const Card& card : *f.cards) {
    if (stopped_) return;
    const std::size_t before = out_.cards.size();
    expand_card(f, card);
    // (An instance's cards are recorded by its own expansion.)
    if (tape_ != nullptr && out_.cards.size() > before &&
        !std::holds_alternative<InstanceCard>(card))
      record(f, card);
  }
}

void Flattener::expand_card(const Frame& f, const Card& card) {
  if (const auto* e = std::get_if<ElementCard>(&card)) {
    element(f, *e);
  } else if (const auto* x = std::get_if<InstanceCard>(&card)) {
    instance(f, *x);
  } else if (const auto* m = std::get_if<ModelCard>(&card)) {
    model(f, *m);
  } else if (!std::holds_alternative<ParamCard>(card) && !std::holds_alternative<FuncCard>(card) &&
             !std::holds_alternative<GlobalCard>(card) &&
             !std::holds_alternative<IncludeCard>(card)) {
    control(f, card);
  }
}

void Flattener::run(const Netlist& net) {
  for (const Card& c : net.cards) {
    if (const auto* g = std::get_if<GlobalCard>(&c)) {
      for (const Word& w : g->nodes) globals_.insert(w.lower);
    }
  }
  if (too_many_elements(net)) return;
  ParamScope global(nullptr, nullptr, reporter_);
  if (options_.draw) global.set_draw(&options_.draw);
  if (options_.drawn) global.set_drawn(&options_.drawn);
  Frame top = make_frame(net, options_, global);
  if (tape_ != nullptr) {
    top.tape_scope = 0;
    tape_->scopes.push_back(TapeScope{});
    tape_->steps.push_back(TapeStep{TapeStep::Kind::kScope, 0, nullptr, true});
  }
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
  detail::resolve_ako(net, reporter);
  Netlist out;
  out.title = net.title;
  out.title_span = net.title_span;
  out.has_end = net.has_end;
  out.output_file = net.output_file;
  detail::Flattener(reporter, options, out).run(net);
  return out;
}

FlatTemplate::FlatTemplate(const Netlist& parsed, const SourceManager& sources,
                           const FlattenOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& t = *impl_;
  t.sources = sources;
  t.tree = parsed;
  Diagnostics diags;
  detail::Reporter reporter(diags);
  detail::expand_includes(t.tree, t.tree.title_span.file, t.sources, reporter, options);
  detail::check_duplicates(t.tree, reporter);
  detail::resolve_ako(t.tree, reporter);
  t.before = diags.all();
  t.flat.title = t.tree.title;
  t.flat.title_span = t.tree.title_span;
  t.flat.has_end = t.tree.has_end;
  t.flat.output_file = t.tree.output_file;
  detail::Flattener(reporter, options, t.flat, &t.tape).run(t.tree);
  t.included_from = reporter.included_from();
  t.usable = !diags.has_errors();
}

}  // namespace nsspice::netlist
