// Internal: Reporter and ParamScope (see scope.hpp).
//
// Spans inside an expression: the token "{a*2}" at column c has its body at column c + base
// (base 1 for {...} and '...', 0 for a bare .param value); offset o of the body -> c + base + o.
#include "netlist/src/scope.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "netlist/src/card_reader.hpp"
#include "netlist/src/expression.hpp"
#include "netlist/src/suggest.hpp"
#include "netlist/src/user_functions.hpp"

namespace nsspice::netlist::detail {

bool is_expression_text(std::string_view raw) { return is_expression(raw); }

// ---- Reporter ----

std::vector<Diagnostic> Reporter::include_notes(int file) const {
  std::vector<Diagnostic> notes;
  for (int depth = 0; depth < 64; ++depth) {
    auto it = included_from_.find(file);
    if (it == included_from_.end()) break;
    notes.push_back(Diagnostic{Severity::kNote, it->second, "included from here", {}});
    file = it->second.file;
  }
  return notes;
}

CardContext Reporter::card_context(int file, const CardContext& context) {
  const auto key = std::make_pair(file, static_cast<const void*>(context.get()));
  if (auto it = context_cache_.find(key); it != context_cache_.end()) return it->second;
  std::vector<Diagnostic> notes = include_notes(file);
  if (context) notes.insert(notes.end(), context->begin(), context->end());
  CardContext out;
  if (!notes.empty()) out = std::make_shared<const std::vector<Diagnostic>>(std::move(notes));
  context_cache_.emplace(key, out);
  return out;
}

void Reporter::report(Severity severity, SourceSpan span, std::string message,
                      const CardContext& context, std::vector<Diagnostic> extra_notes) {
  auto key = std::make_tuple(static_cast<int>(severity), span.file, span.line, span.column,
                             span.length, message);
  if (!seen_.insert(std::move(key)).second) return;
  Diagnostic d{severity, span, std::move(message), std::move(extra_notes)};
  if (const CardContext notes = card_context(span.file, context)) {
    d.notes.insert(d.notes.end(), notes->begin(), notes->end());
  }
  diags_.add(std::move(d));
}

void Reporter::forward(Diagnostic d) {
  std::vector<Diagnostic> notes = include_notes(d.span.file);
  d.notes.insert(d.notes.end(), notes.begin(), notes.end());
  diags_.add(std::move(d));
}

// ---- ParamScope ----

namespace {

// k/q [V/K] as ngspice's PSpice mode writes it: `.param vt = '(temper + 273.15) * 8.6173303e-5'`
// (its CONSTboltz/CHARGE, 1.38064852e-23 J/K over 1.6021766208e-19 C, to 8 digits).
constexpr double kBoltzmannOverCharge = 8.6173303e-5;

// (offset, length) in the written text of bytes [offset, offset + length) of an expansion.
std::pair<std::size_t, std::size_t> written_span(
    const std::vector<std::pair<std::size_t, std::size_t>>& origin, std::size_t offset,
    std::size_t length) {
  const auto [begin, end] = written_range(origin, offset, length);
  return {begin, end - begin};
}

}  // namespace

void ParamScope::define(const Param& p) {
  if (entries_.count(p.name.lower) == 0) order_.push_back(p.name.lower);
  entries_[p.name.lower] = Entry{p, State::kPending, 0};
}

void ParamScope::set(const Param& p, double value) {
  if (entries_.count(p.name.lower) == 0) order_.push_back(p.name.lower);
  entries_[p.name.lower] = Entry{p, State::kDone, value};
}

void ParamScope::evaluate_all() const {
  for (const std::string& name : order_) {
    std::vector<std::string> active;
    value_of(entries_.at(name), active, 0);
  }
}

const FuncCard* ParamScope::function(const std::string& name) const {
  for (const ParamScope* s = this; s != nullptr; s = s->parent_) {
    if (auto it = s->functions_.find(name); it != s->functions_.end()) return &it->second;
  }
  return nullptr;
}

bool ParamScope::has_functions() const {
  for (const ParamScope* s = this; s != nullptr; s = s->parent_)
    if (!s->functions_.empty()) return true;
  return false;
}

std::optional<Expansion> ParamScope::expand(std::string_view written, SourceSpan token_span,
                                            int base, const CardContext& context) const {
  ExpansionError why;
  auto out = expand_functions(
      written, [this](const std::string& name) { return function(name); }, why);
  if (out) return out;
  std::vector<Diagnostic> notes;
  if (why.function != nullptr)
    notes.push_back(Diagnostic{Severity::kNote,
                               why.function->name.span,
                               fmt::format("'{}' defined here", why.function->name.text),
                               {}});
  SourceSpan at = token_span;
  at.column += base + static_cast<int>(std::min<std::size_t>(why.offset, 1 << 20));
  at.length = static_cast<int>(std::min<std::size_t>(why.length, 1 << 20));
  reporter_.report(Severity::kError, at, why.message, context, std::move(notes));
  return std::nullopt;
}

bool ParamScope::defines(const std::string& name) const {
  for (const ParamScope* s = this; s != nullptr; s = s->parent_) {
    if (s->entries_.count(name) > 0) return true;
  }
  return name == "pi" || name == "e" || name == "vt";
}

void ParamScope::visible_names(std::vector<std::string>& out) const {
  for (const auto& [name, entry] : entries_) out.push_back(name);
  if (parent_ != nullptr) parent_->visible_names(out);
}

std::optional<double> ParamScope::value_of(Entry& e, std::vector<std::string>& active,
                                           int depth) const {
  switch (e.state) {
    case State::kDone:
      return e.value;
    case State::kFailed:
    case State::kEvaluating:  // reported by lookup()
      return std::nullopt;
    case State::kPending:
      break;
  }
  if (active.size() >= kMaxParamNesting) {
    reporter_.error(
        e.def.name.span,
        fmt::format("parameter definitions nested more than {} levels deep", kMaxParamNesting),
        context_);
    e.state = State::kFailed;
    return std::nullopt;
  }
  e.state = State::kEvaluating;
  active.push_back(e.def.name.lower);
  const std::string& raw = e.def.raw.text;
  const bool quoted = is_expression(raw);
  const std::string_view body = quoted ? expression_body(raw) : std::string_view(raw);
  auto v = evaluate_in(body, e.def.raw.span, quoted ? 1 : 0, context_, active, depth + 1,
                       e.def.name.lower);
  active.pop_back();
  if (!v || e.state == State::kFailed) {
    e.state = State::kFailed;
    return std::nullopt;
  }
  e.state = State::kDone;
  e.value = *v;
  return v;
}

std::optional<double> ParamScope::lookup(const std::string& name, SourceSpan at,
                                         const CardContext& from, std::vector<std::string>& active,
                                         int depth) const {
  for (const ParamScope* s = this; s != nullptr; s = s->parent_) {
    auto it = s->entries_.find(name);
    if (it == s->entries_.end()) continue;
    Entry& e = it->second;
    if (e.state == State::kEvaluating) {
      auto first = std::find(active.begin(), active.end(), name);
      std::string chain;
      for (auto i = first; i != active.end(); ++i) chain += *i + " -> ";
      reporter_.error(
          at, fmt::format("circular definition of parameter '{}': {}{}", name, chain, name), from);
      e.state = State::kFailed;  // the outer evaluation of `name` gives up silently
      return std::nullopt;
    }
    return s->value_of(e, active, depth);
  }
  if (name == "pi") return 3.14159265358979323846;
  if (name == "e") return 2.71828182845904523536;
  if (name == "temper" || name == "temp")
    for (const ParamScope* s = this; s != nullptr; s = s->parent_)
      if (s->temperature_) return s->temperature_;
  // PSpice's VT (which ngspice's PSpice mode defines the same way): the thermal voltage kT/q at
  // the circuit temperature. TI's macromodels use it.
  if (name == "vt")
    for (const ParamScope* s = this; s != nullptr; s = s->parent_)
      if (s->temperature_) return kBoltzmannOverCharge * (*s->temperature_ + 273.15);
  std::vector<std::string> names;
  visible_names(names);
  reporter_.error(at, fmt::format("undefined parameter '{}'{}", name, did_you_mean(name, names)),
                  from);
  return std::nullopt;
}

std::optional<double> ParamScope::evaluate_in(std::string_view written, SourceSpan token_span,
                                              int base, const CardContext& context,
                                              std::vector<std::string>& active, int depth,
                                              std::string_view quantity) const {
  std::optional<Expansion> expanded;
  auto span_at = [&](std::size_t offset, std::size_t length) {
    if (expanded) std::tie(offset, length) = written_span(expanded->origin, offset, length);
    SourceSpan s = token_span;
    s.column = token_span.column + base + static_cast<int>(std::min<std::size_t>(offset, 1 << 20));
    s.length = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(length, 1 << 20)));
    return s;
  };
  if (has_functions()) {
    expanded = expand(written, token_span, base, context);
    if (!expanded) return std::nullopt;
  }
  const std::string_view expr = expanded ? std::string_view(expanded->text) : written;
  ExpressionHooks hooks;
  hooks.lookup = [&](const std::string& name, std::size_t offset, int at_depth) {
    return lookup(name, span_at(offset, name.size()), context, active, at_depth);
  };
  hooks.depth = depth;
  bool drew = false;  // by this text itself (a referenced parameter reports its own draws)
  if (draw_ != nullptr && *draw_)
    hooks.draw = [&](bool normal) {
      drew = true;
      return (*draw_)(normal);
    };
  hooks.error = [&](std::size_t offset, std::size_t length, std::string message) {
    reporter_.error(span_at(offset, length), std::move(message), context);
  };
  // A distribution outside a Monte Carlo run: its nominal value, said once per place.
  hooks.nominal = [&](std::size_t offset, std::size_t length, double value) {
    reporter_.report(Severity::kWarning, span_at(offset, length),
                     fmt::format("'{}' takes its nominal value {:g} (no Monte Carlo run: use "
                                 "--runs N to draw it)",
                                 expr.substr(offset, length), value),
                     context);
  };
  const auto v = evaluate_expression(expr, hooks);
  if (v && drew && !quantity.empty() && drawn_ != nullptr && *drawn_)
    (*drawn_)(prefix_ + std::string(quantity), *v);
  return v;
}

std::optional<double> ParamScope::evaluate(std::string_view expr, SourceSpan token_span, int base,
                                           std::string_view quantity) const {
  std::vector<std::string> active;
  return evaluate_in(expr, token_span, base, context_, active, 0, quantity);
}

bool ParamScope::evaluate(Value& v, std::string_view quantity) const {
  if (v.expr.empty()) return true;
  auto r = evaluate(v.expr, v.span, 1, quantity);
  if (!r) return false;
  v.value = *r;
  v.expr.clear();
  return true;
}

bool ParamScope::evaluate(Param& p, std::string_view quantity) const {
  if (p.number || !is_expression(p.raw.text)) return true;
  auto r = evaluate(expression_body(p.raw.text), p.raw.span, 1, quantity);
  if (!r) return false;
  p.number = *r;
  return true;
}

}  // namespace nsspice::netlist::detail
