#include "app/io/element_columns.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "circuit/element_signals.hpp"
#include "netlist/diagnostics.hpp"
#include "netlist/suggest.hpp"

namespace nsspice::app {
namespace {

// "i(x)" → ('i', "x"); ('\0', "") for another form.
std::pair<char, std::string> element_signal(const std::string& w) {
  if (w.size() < 4 || (w[0] != 'i' && w[0] != 'p') || w[1] != '(' || w.back() != ')' ||
      w.find(',') != std::string::npos)
    return {'\0', ""};
  return {w[0], w.substr(2, w.size() - 3)};
}

// The columns of a linear signal; false if one of its names is not a column.
bool to_columns(const std::vector<std::pair<std::string, double>>& in,
                const std::vector<std::string>& names, std::vector<std::pair<long, double>>& out) {
  for (const auto& [name, coef] : in) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return false;
    out.emplace_back(static_cast<long>(it - names.begin()), coef);
  }
  return true;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

std::vector<DerivedColumn> element_columns(const std::vector<std::string>& wanted,
                                           const std::vector<std::string>& names,
                                           const circuit::Circuit& circuit) {
  std::vector<DerivedColumn> out;
  for (const auto& w : wanted) {
    if (contains(names, w)) continue;
    if (std::any_of(out.begin(), out.end(), [&](const auto& o) { return o.name == w; })) continue;
    const auto [kind, element] = element_signal(w);
    if (kind == '\0') continue;
    const auto q = circuit::element_quantities(circuit, element);
    if (!q) continue;
    DerivedColumn c{w, {}, {}, {}, q->current.wave};
    // du/dt: the simulation's own rate signal ddt(u) when the run has it (the scheme's
    // derivative), else the difference quotient between rows (a file read back).
    std::vector<std::pair<std::string, double>> rate_terms, rates;
    for (const auto& [name, coef] : q->current.rates)
      (contains(names, "ddt(" + name + ")") ? rate_terms : rates)
          .emplace_back("ddt(" + name + ")", coef);
    for (auto& [name, coef] : rates) name = name.substr(4, name.size() - 5);
    if (!to_columns(q->current.terms, names, c.terms) || !to_columns(rate_terms, names, c.terms) ||
        !to_columns(rates, names, c.rates))
      continue;
    if (kind == 'p' && (!to_columns(q->voltage.terms, names, c.factor) || c.factor.empty())) {
      if (!q->voltage.terms.empty()) continue;
      c.factor.emplace_back(-1, 0.0);  // both terminals grounded: no power
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<DerivedColumn> derived_columns(const std::vector<std::string>& wanted,
                                           const std::vector<std::string>& names,
                                           const circuit::Circuit& circuit) {
  std::vector<DerivedColumn> out = differential_columns(wanted, names);
  for (auto& c : element_columns(wanted, names, circuit)) out.push_back(std::move(c));
  return out;
}

std::vector<std::string> card_signals(const LoadedNetlist& loaded,
                                      const std::vector<std::string>& names) {
  const circuit::Circuit& circuit = loaded.circuit;
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (!contains(out, name)) out.push_back(name);
  };
  for (const netlist::Word& w : loaded.saved) {
    if (w.lower == "all" || w.lower == "allv" || w.lower == "alli") {
      for (const auto& name : names)
        if (w.lower == "all" || name[0] == w.lower[3]) add(name);
      if (w.lower == "alli")
        for (const auto& element : circuit::two_terminal_elements(circuit))
          add("i(" + element + ")");
      continue;
    }
    const std::vector<std::string> one{w.lower};
    if (contains(names, w.lower) || !differential_columns(one, names).empty() ||
        !element_columns(one, names, circuit).empty()) {
      add(w.lower);
      continue;
    }
    std::vector<std::string> candidates = names;
    for (const auto& element : circuit::two_terminal_elements(circuit))
      candidates.push_back(std::string(1, w.lower[0]) + "(" + element + ")");
    netlist_warning(loaded, w.span,
                    fmt::format("unknown signal '{}' ignored{}", w.text,
                                netlist::did_you_mean(w.lower, candidates)));
  }
  return out;
}

}  // namespace nsspice::app
