#include "circuit/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>
#include <set>

namespace nsspice::circuit {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;  // (clang 14 needs the guide)

enum class Kind { kVoltage, kSwitchShort, kCurrent, kInductor, kDcPath, kCapacitive, kNone };

struct Edge {
  int a, b;
  Kind kind;
  size_t device;
};

// The branches of a device and what each is, for the graph checks.
void device_edges(const Device& dev, size_t index, std::vector<Edge>& out) {
  auto add = [&](int a, int b, Kind k) { out.push_back({a, b, k, index}); };
  std::visit(Overloaded{[&](const Resistor& r) { add(r.a, r.b, Kind::kDcPath); },
                        [&](const Capacitor& c) { add(c.a, c.b, Kind::kCapacitive); },
                        [&](const Inductor& l) { add(l.a, l.b, Kind::kInductor); },
                        [&](const VoltageSource& v) { add(v.p, v.n, Kind::kVoltage); },
                        [&](const CurrentSource& i) { add(i.p, i.n, Kind::kCurrent); },
                        [&](const Diode& d) { add(d.a, d.k, Kind::kDcPath); },
                        [&](const Switch& s) {
                          add(s.a, s.b, s.model.ron == 0 ? Kind::kSwitchShort : Kind::kDcPath);
                          if (!s.model.current_controlled) add(s.cp, s.cn, Kind::kNone);
                        },
                        [&](const Comparator& c) {
                          add(c.op, c.on, Kind::kVoltage);
                          add(c.ip, c.in, Kind::kNone);
                        },
                        [&](const Vcvs& e) {
                          add(e.p, e.n, Kind::kVoltage);
                          add(e.cp, e.cn, Kind::kNone);
                        },
                        [&](const Vccs& g) {
                          add(g.p, g.n, Kind::kCurrent);
                          add(g.cp, g.cn, Kind::kNone);
                        },
                        [&](const Cccs& f) { add(f.p, f.n, Kind::kCurrent); },
                        [&](const Ccvs& h) { add(h.p, h.n, Kind::kVoltage); },
                        [&](const Mosfet& m) {
                          add(m.d, m.s, Kind::kDcPath);
                          add(m.g, m.b, Kind::kNone);
                        },
                        [](const Mutual&) {}},
             dev);
}

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(static_cast<size_t>(n)) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int find(int x) {
    while (parent_[static_cast<size_t>(x)] != x)
      x = parent_[static_cast<size_t>(x)] =
          parent_[static_cast<size_t>(parent_[static_cast<size_t>(x)])];
    return x;
  }
  bool unite(int a, int b) {
    a = find(a), b = find(b);
    if (a == b) return false;
    parent_[static_cast<size_t>(a)] = b;
    return true;
  }

 private:
  std::vector<int> parent_;
};

// Devices on the path from a to b in the forest `tree` (adjacency: node → (node, device)).
std::vector<size_t> tree_path(const std::vector<std::vector<std::pair<int, size_t>>>& tree, int a,
                              int b) {
  std::vector<std::pair<int, size_t>> from(tree.size(), {-1, 0});
  std::queue<int> q;
  q.push(a);
  from[static_cast<size_t>(a)] = {a, 0};
  while (!q.empty()) {
    const int u = q.front();
    q.pop();
    if (u == b) break;
    for (const auto& [v, dev] : tree[static_cast<size_t>(u)]) {
      if (from[static_cast<size_t>(v)].first >= 0) continue;
      from[static_cast<size_t>(v)] = {u, dev};
      q.push(v);
    }
  }
  std::vector<size_t> path;
  for (int v = b; v != a && from[static_cast<size_t>(v)].first >= 0;
       v = from[static_cast<size_t>(v)].first)
    path.push_back(from[static_cast<size_t>(v)].second);
  return path;
}

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
    if (any_inductor) {
      diags.warning(c.spans[devices.front()],
                    fmt::format("cut-set of inductors and current sources: {} (their "
                                "currents are tied; initial currents that disagree jump at t = 0)",
                                names(c, devices)));
    } else {
      diags.error(c.spans[devices.front()],
                  fmt::format("cut-set made only of current sources: {} (their currents "
                              "cannot all flow)",
                              names(c, devices)));
    }
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
    if (dc.find(v) != dc.find(0) && !(c.tran && c.tran->uic))
      diags.warning(
          span,
          fmt::format("node '{}' has no DC path to ground (only capacitors or current sources "
                      "reach it): its operating point is undetermined; give '.ic' values and "
                      "use '.tran ... UIC'",
                      c.nodes[static_cast<size_t>(v)]));
  }
}

}  // namespace

void check_topology(const Circuit& circuit, netlist::Diagnostics& diags) {
  std::vector<Edge> edges;
  for (size_t i = 0; i < circuit.devices.size(); ++i) device_edges(circuit.devices[i], i, edges);
  voltage_loops(circuit, edges, diags);
  cut_sets(circuit, edges, diags);
  node_checks(circuit, edges, diags);
}

}  // namespace nsspice::circuit
