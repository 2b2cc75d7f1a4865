#pragma once
// Internal: the circuit as a graph of branches, for the well-posedness checks (topology.cpp)
// and the initial-condition checks (initial_conditions.cpp).
#include <cstddef>
#include <numeric>
#include <queue>
#include <utility>
#include <vector>

#include "circuit/circuit.hpp"

namespace nsspice::circuit::detail {

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
inline void device_edges(const Device& dev, size_t index, std::vector<Edge>& out) {
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
                        [&](const Bjt& q) {  // two PWL junctions: DC paths B-E and B-C
                          add(q.b, q.e, Kind::kDcPath);
                          add(q.b, q.c, Kind::kDcPath);
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
inline std::vector<size_t> tree_path(const std::vector<std::vector<std::pair<int, size_t>>>& tree,
                                     int a, int b) {
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

}  // namespace nsspice::circuit::detail
