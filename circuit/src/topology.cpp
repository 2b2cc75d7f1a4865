#include "circuit/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "circuit/src/checks.hpp"
#include "circuit/src/graph.hpp"

namespace nsspice::circuit {
namespace {

using detail::device_edges;
using detail::Edge;
using detail::Kind;
using detail::tree_path;
using detail::UnionFind;

std::string names(const Circuit& c, std::vector<size_t> devices) {
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  std::string out;
  for (size_t d : devices) out += (out.empty() ? "" : ", ") + device_name(c.devices[d]);
  return out;
}

void voltage_loops(const Circuit& c, const std::vector<Edge>& edges, netlist::Diagnostics& diags) {
  const int n = static_cast<int>(c.nodes.size());
  UnionFind uf(n);
  std::vector<std::vector<std::pair<int, size_t>>> tree(static_cast<size_t>(n));
  // Sources first, then the switches: a loop closed by a switch is reported as a warning.
  for (Kind kind : {Kind::kVoltage, Kind::kSwitchShort}) {
    for (const Edge& e : edges) {
      if (e.kind != kind) continue;
      if (uf.unite(e.a, e.b)) {
        tree[static_cast<size_t>(e.a)].push_back({e.b, e.device});
        tree[static_cast<size_t>(e.b)].push_back({e.a, e.device});
        continue;
      }
      std::vector<size_t> loop = tree_path(tree, e.a, e.b);
      loop.push_back(e.device);
      const bool has_switch =
          kind == Kind::kSwitchShort || std::any_of(loop.begin(), loop.end(), [&](size_t d) {
            return std::holds_alternative<Switch>(c.devices[d]);
          });
      if (has_switch) {
        diags.warning(c.spans[e.device],
                      fmt::format("loop of voltage-defined branches {} when the ideal switches "
                                  "in it are on together: the run stops if that happens",
                                  names(c, loop)));
      } else {
        diags.error(c.spans[e.device],
                    fmt::format("loop of voltage-defined branches: {} (their voltages cannot "
                                "be set independently)",
                                names(c, loop)));
      }
    }
  }
}

void cut_sets(const Circuit& c, const std::vector<Edge>& edges, netlist::Diagnostics& diags) {
  const int n = static_cast<int>(c.nodes.size());
  UnionFind uf(n);
  for (const Edge& e : edges)
    if (e.kind != Kind::kCurrent && e.kind != Kind::kInductor && e.kind != Kind::kNone)
      uf.unite(e.a, e.b);
  std::map<int, std::vector<size_t>> crossing;  // component → I/L branches leaving it
  for (const Edge& e : edges) {
    if ((e.kind != Kind::kCurrent && e.kind != Kind::kInductor) || uf.find(e.a) == uf.find(e.b))
      continue;
    crossing[uf.find(e.a)].push_back(e.device);
    crossing[uf.find(e.b)].push_back(e.device);
  }
  for (const auto& [component, devices] : crossing) {
    if (component == uf.find(0)) continue;
    const bool any_inductor = std::any_of(devices.begin(), devices.end(), [&](size_t d) {
      return std::holds_alternative<Inductor>(c.devices[d]);
    });
    // With an inductor in it the cut-set is fine unless the initial currents disagree
    // (check_initial_conditions, initial_conditions.cpp).
    if (any_inductor) continue;
    diags.error(c.spans[devices.front()],
                fmt::format("cut-set made only of current sources: {} (their currents "
                            "cannot all flow)",
                            names(c, devices)));
  }
}

void node_checks(const Circuit& c, const std::vector<Edge>& edges, netlist::Diagnostics& diags) {
  const int n = static_cast<int>(c.nodes.size());
  UnionFind dc(n);
  std::vector<int> terminals(static_cast<size_t>(n), 0);
  std::vector<size_t> some_device(static_cast<size_t>(n), 0);
  for (const Edge& e : edges) {
    for (int v : {e.a, e.b}) {
      ++terminals[static_cast<size_t>(v)];
      some_device[static_cast<size_t>(v)] = e.device;
    }
    if (e.kind == Kind::kDcPath || e.kind == Kind::kVoltage || e.kind == Kind::kSwitchShort ||
        e.kind == Kind::kInductor)
      dc.unite(e.a, e.b);
  }
  for (int v = 1; v < n; ++v) {
    const auto& span = c.spans[some_device[static_cast<size_t>(v)]];
    if (terminals[static_cast<size_t>(v)] == 1)
      diags.warning(span, fmt::format("node '{}' is connected to only one element terminal",
                                      c.nodes[static_cast<size_t>(v)]));
    if (dc.find(v) != dc.find(0) && !(c.tran && c.tran->uic)) {
      std::vector<size_t> reaching;  // the elements at the node
      for (const Edge& e : edges) {
        if ((e.a == v || e.b == v) && e.kind != Kind::kNone) reaching.push_back(e.device);
      }
      diags.warning(
          span,
          fmt::format("node '{}' has no DC path to ground (only capacitors or current sources "
                      "reach it: {}): its operating point is undetermined; give '.ic' values and "
                      "use '.tran ... UIC'",
                      c.nodes[static_cast<size_t>(v)], names(c, reaching)));
    }
  }
}

}  // namespace

void check_topology(const Circuit& circuit, netlist::Diagnostics& diags) {
  std::vector<Edge> edges;
  for (size_t i = 0; i < circuit.devices.size(); ++i) device_edges(circuit.devices[i], i, edges);
  voltage_loops(circuit, edges, diags);
  cut_sets(circuit, edges, diags);
  node_checks(circuit, edges, diags);
  detail::check_initial_conditions(circuit, diags);
  detail::check_source_rates(circuit, diags);
  detail::check_value_ranges(circuit, diags);
  detail::check_inductive_systems(circuit, diags);
}

}  // namespace nsspice::circuit
