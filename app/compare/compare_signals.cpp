#include "app/compare/compare_signals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "app/io/element_columns.hpp"

namespace nsspice::app {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

int root(std::vector<int>& parent, int n) {
  while (parent[static_cast<size_t>(n)] != n)
    n = parent[static_cast<size_t>(n)] =
        parent[static_cast<size_t>(parent[static_cast<size_t>(n)])];
  return n;
}

}  // namespace

std::set<std::string> source_fixed_voltages(const circuit::Circuit& c) {
  std::vector<int> parent(c.nodes.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (const auto& d : c.devices)
    if (const auto* v = std::get_if<circuit::VoltageSource>(&d))
      parent[static_cast<size_t>(root(parent, v->p))] = root(parent, v->n);
  std::set<std::string> out;
  for (int n = 1; n < static_cast<int>(c.nodes.size()); ++n)
    if (root(parent, n) == root(parent, 0))
      out.insert("v(" + c.nodes[static_cast<size_t>(n)] + ")");
  return out;
}

std::vector<std::string> judged_signals(const std::vector<std::string>& named,
                                        const std::vector<std::string>& names,
                                        const std::set<std::string>& switching,
                                        const circuit::Circuit& c) {
  const std::set<std::string> fixed = source_fixed_voltages(c);
  std::set<std::string> sources;  // the branch currents of voltage sources
  for (const auto& d : c.devices)
    if (std::holds_alternative<circuit::VoltageSource>(d))
      sources.insert("i(" + circuit::device_name(d) + ")");
  std::vector<std::string> out;
  auto add = [&](const std::string& s) {
    if (out.size() < kJudged && contains(names, s) && !fixed.contains(s) && !contains(out, s))
      out.push_back(s);
  };
  for (const auto& s : named) add(s);
  const size_t user = out.size();
  int voltages = 0;
  for (const auto& s : names)
    if (signal_kind(s) == SignalKind::kVoltage && !fixed.contains(s) && voltages < 3)
      add(s), ++voltages;
  int currents = 0;
  for (const auto& s : names)
    if (switching.contains(s) && currents < 2) add(s), ++currents;
  for (const bool source : {false, true})
    for (const auto& s : names)
      if (currents == 0 && signal_kind(s) == SignalKind::kCurrent && sources.contains(s) == source)
        add(s), ++currents;
  if (user == 0 && out.empty())  // every node fixed, no current: the voltages after all
    for (const auto& s : names)
      if (signal_kind(s) == SignalKind::kVoltage && out.size() < 3) out.push_back(s);
  return out;
}

std::vector<DerivedColumn> diode_terminal_currents(const circuit::Circuit& c,
                                                   const UserModels& user,
                                                   const std::vector<std::string>& names,
                                                   std::vector<std::string>& notes) {
  std::vector<DerivedColumn> out;
  const auto column = [&](const std::string& name) -> long {
    const auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? -2 : static_cast<long>(it - names.begin());
  };
  for (const auto& device : c.devices) {
    const auto* d = std::get_if<circuit::Diode>(&device);
    if (d == nullptr || !d->model.spice || !user.cards.contains(d->model.card_name())) continue;
    const std::string id = "i(" + d->name + ")";
    if (column(id) < 0) continue;
    // RS split off: every current of the diode flows through it.
    const auto rs = element_columns({"i(" + d->name + ".rs)"}, names, c);
    if (!rs.empty()) {
      out.push_back(rs.front());
      out.back().name = id;
      notes.push_back(fmt::format(
          "{}: i({}) is its terminal current, i({}.rs) (RS split off: junction, junction "
          "capacitor and stored charge behind it), as ngspice's probe sees it; nsspice's own "
          "i({}) (nsspice.raw, run) is the junction's alone",
          d->name, d->name, d->name, d->name));
      continue;
    }
    DerivedColumn col{id, {{column(id), 1.0}}, {}, {}, {}};
    std::string terms = id;
    if (const auto cj = element_columns({"i(" + d->name + ".cj)"}, names, c); !cj.empty()) {
      for (const auto& t : cj.front().terms) col.terms.push_back(t);
      for (const auto& t : cj.front().rates) col.rates.push_back(t);
      terms += " + i(" + d->name + ".cj)";
    }
    if (const long q = column("q(" + d->name + ".q)"); q >= 0) {
      col.rates.emplace_back(q, 1.0);
      terms += " + dq(" + d->name + ".q)/dt";
    }
    if (col.terms.size() == 1 && col.rates.empty()) continue;  // no charge: i(d) is all of it
    out.push_back(std::move(col));
    notes.push_back(fmt::format(
        "{}: i({}) is its terminal current, {} (Δ/Δt between rows), as ngspice's probe sees it; "
        "nsspice's own i({}) (nsspice.raw, run) is the junction's alone",
        d->name, d->name, terms, d->name));
  }
  return out;
}

void replace_columns(Waveforms& w, const std::vector<DerivedColumn>& columns) {
  const size_t n = w.names.size();
  add_columns(w, columns);
  for (size_t k = n; k < w.names.size(); ++k) {
    const auto it = std::find(w.names.begin(), w.names.begin() + static_cast<long>(n), w.names[k]);
    if (it != w.names.begin() + static_cast<long>(n))
      w.columns[static_cast<size_t>(it - w.names.begin())] = std::move(w.columns[k]);
  }
  w.names.resize(n);
  w.columns.resize(n);
}

}  // namespace nsspice::app
