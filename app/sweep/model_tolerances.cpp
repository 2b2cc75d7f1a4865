// PSpice's DEV/LOT model tolerances (model_tolerances.hpp states the rules).
#include "app/sweep/model_tolerances.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "netlist/units.hpp"

namespace nsspice::app {
namespace {

struct Tolerance {
  bool lot = false;
  int track = 0;  // 0: none
  bool gauss = false;
  double amount = 0;  // T, or T/100 when relative
  bool relative = false;
  std::size_t param = 0;  // index into the card's params (tolerances taken out)
  netlist::SourceSpan span;
  std::string written;  // "DEV/GAUSS 5%"
};

bool is_tolerance(const netlist::Param& p) {
  const std::string head = p.name.lower.substr(0, p.name.lower.find('/'));
  return head == "dev" || head == "lot";
}

// The track and distribution of "dev/2/gauss"; "" or the error.
std::string read_qualifiers(const std::string& name, Tolerance& t) {
  std::size_t at = name.find('/');
  while (at != std::string::npos) {
    const std::size_t end = name.find('/', at + 1);
    const std::string q = name.substr(at + 1, end == std::string::npos ? end : end - at - 1);
    at = end;
    if (!q.empty() &&
        std::all_of(q.begin(), q.end(), [](unsigned char c) { return std::isdigit(c); })) {
      t.track = q.size() <= 2 ? std::stoi(q) : 0;
      if (t.track < 1) return fmt::format("track '{}' is not in 1..99", q);
    } else if (q == "uniform" || q == "u" || q == "gauss" || q == "g") {
      t.gauss = q[0] == 'g';
    } else if (q == "wcase" || q == "w") {
      return "the WCASE distribution is for PSpice's worst-case analysis, which nsspice does "
             "not run (UNIFORM or GAUSS)";
    } else {
      return fmt::format("unknown distribution '{}' (UNIFORM or GAUSS)", q);
    }
  }
  return {};
}

std::optional<Tolerance> read_tolerance(const netlist::Param& p, std::string& error) {
  Tolerance t;
  t.lot = p.name.lower.rfind("lot", 0) == 0;
  t.span = p.span;
  t.written = fmt::format("{} {}", p.name.text, p.raw.text);
  error = read_qualifiers(p.name.lower, t);
  if (!error.empty()) return std::nullopt;
  std::string value = p.raw.text;
  t.relative = !value.empty() && value.back() == '%';
  if (t.relative) value.pop_back();
  const auto v = netlist::parse_spice_number(value);
  if (!v || !(*v >= 0)) {
    error = fmt::format("the tolerance '{}' is not a number ≥ 0 (e.g. 5% or 0.1)", p.raw.text);
    return std::nullopt;
  }
  t.amount = t.relative ? *v / 100 : *v;
  return t;
}

// Takes the tolerances out of the card's parameters; errors go to `diags`.
std::vector<Tolerance> take_tolerances(netlist::ModelCard& m, netlist::Diagnostics& diags) {
  std::vector<netlist::Param> kept;
  std::vector<Tolerance> out;
  for (auto& p : m.params) {
    if (!is_tolerance(p)) {
      kept.push_back(std::move(p));
      continue;
    }
    std::string error;
    auto t = read_tolerance(p, error);
    if (t && kept.empty()) error = "a DEV/LOT tolerance applies to the parameter before it";
    if (t && error.empty() && !kept.back().number)
      error = fmt::format("parameter '{}' has no number to vary", kept.back().name.text);
    if (!error.empty()) {
      diags.error(p.span, fmt::format("model '{}': {}: {}", m.name.text,
                                      fmt::format("{} {}", p.name.text, p.raw.text), error));
      continue;
    }
    t->param = kept.size() - 1;
    out.push_back(std::move(*t));
  }
  m.params = std::move(kept);
  return out;
}

// ξ of each key, drawn once per run at its first use.
class Draws {
 public:
  explicit Draws(const std::function<double(bool)>& draw) : draw_(draw) {}
  double xi(const std::string& key, bool gauss) {
    const auto [it, fresh] = cache_.try_emplace(key + (gauss ? "/g" : "/u"), 0.0);
    if (fresh) it->second = gauss ? std::clamp(draw_(true), -4.0, 4.0) : draw_(false);
    return it->second;
  }

 private:
  const std::function<double(bool)>& draw_;
  std::map<std::string, double> cache_;
};

// The card with its LOT deviations, and with `device` non-empty its DEV ones too, from the
// nominal values of `nominal`.
// Each deviated parameter goes to `drawn` (may be empty) as "<card name>.<parameter>".
netlist::ModelCard deviated(const netlist::ModelCard& nominal, const std::vector<Tolerance>& tols,
                            const std::string& device, Draws& draws,
                            const std::function<void(const std::string&, double)>& drawn) {
  netlist::ModelCard card = nominal;
  std::map<std::size_t, double> shift;
  for (const auto& t : tols) {
    if (!t.lot && device.empty()) continue;
    const netlist::Param& p = nominal.params[t.param];
    const std::string scope = t.lot ? "lot" : "dev:" + device;
    const std::string key = t.track > 0
                                ? fmt::format("{}/{}", scope, t.track)
                                : fmt::format("{}:{}:{}", scope, nominal.name.lower, t.param);
    shift[t.param] += t.amount * (t.relative ? *p.number : 1.0) * draws.xi(key, t.gauss);
  }
  for (const auto& [k, d] : shift) {
    netlist::Param& p = card.params[k];
    p.number = *p.number + d;
    p.raw.text = p.raw.lower = fmt::format("{:.17g}", *p.number);
    if (drawn)
      drawn(fmt::format("{}{}.{}", nominal.name.lower, device.empty() ? "" : "@" + device,
                        p.name.lower),
            *p.number);
  }
  return card;
}

void warn_nominal(const netlist::ModelCard& m, const std::vector<Tolerance>& tols,
                  netlist::Diagnostics& diags) {
  for (const auto& t : tols) {
    const netlist::Param& p = m.params[t.param];
    diags.warning(t.span, fmt::format("'{}' of '{}' in model '{}': {} keeps its nominal value "
                                      "{:g} (no Monte Carlo run: use --runs N to draw it)",
                                      t.written, p.name.text, m.name.text, p.name.text, *p.number));
  }
}

}  // namespace

void apply_model_tolerances(netlist::Netlist& flat, const std::function<double(bool)>& draw,
                            netlist::Diagnostics& diags,
                            const std::function<void(const std::string&, double)>& drawn) {
  Draws draws(draw);
  std::vector<netlist::Card> copies;  // the DEV copies of the models, one per device
  std::set<std::string> replaced;     // the cards whose every element now names a copy
  std::set<std::string> named;        // the models elements name (the others are not read)
  for (const auto& card : flat.cards)
    if (const auto* e = std::get_if<netlist::ElementCard>(&card); e && e->model)
      named.insert(e->model->lower);
  for (auto& card : flat.cards) {
    auto* m = std::get_if<netlist::ModelCard>(&card);
    if (m == nullptr) continue;
    const std::vector<Tolerance> tols = take_tolerances(*m, diags);
    if (tols.empty()) continue;
    if (!draw) {
      if (named.contains(m->name.lower)) warn_nominal(*m, tols, diags);
      continue;
    }
    const netlist::ModelCard nominal = *m;
    *m = deviated(nominal, tols, "", draws, drawn);
    if (std::none_of(tols.begin(), tols.end(), [](const Tolerance& t) { return !t.lot; })) continue;
    for (auto& other : flat.cards) {
      auto* e = std::get_if<netlist::ElementCard>(&other);
      if (e == nullptr || !e->model || e->model->lower != nominal.name.lower) continue;
      netlist::ModelCard copy = deviated(nominal, tols, e->name.lower, draws, drawn);
      copy.name.text += "@" + e->name.text;
      copy.name.lower += "@" + e->name.lower;
      e->model->text = copy.name.text;
      e->model->lower = copy.name.lower;
      copies.emplace_back(std::move(copy));
      replaced.insert(nominal.name.lower);
    }
  }
  std::erase_if(flat.cards, [&](const netlist::Card& c) {
    const auto* m = std::get_if<netlist::ModelCard>(&c);
    return m != nullptr && replaced.contains(m->name.lower);
  });
  for (auto& c : copies) flat.cards.push_back(std::move(c));
}

}  // namespace nsspice::app
