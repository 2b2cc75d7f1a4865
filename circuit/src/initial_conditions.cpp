// Contradictory initial conditions under UIC (checks.hpp states what is checked and the jumps).
//
// Loops: a spanning forest of the "constraint" branches (capacitors with IC=, voltage sources
// at t = 0, '.ic' node voltages as branches to ground); a branch closing a loop whose tree
// path gives another voltage is a contradiction of size
//   mismatch = (v_a − v_b along the tree) − (the branch's own value).
// The jump: on the nodes joined by capacitors and voltage sources (one group at a time), solve
//   Σ_{caps at node} ±C_k (φ_a − φ_b) + Σ_{sources at node} ±j = Σ_{caps at node} ±C_k IC_k,
//   φ_p − φ_n = V(0)                        (φ of ground, or of one node of a floating group, 0)
// and report v_k⁺ = φ_a − φ_b (only when every capacitor of the group has IC= and no node of
// it has '.ic': otherwise the starting charges depend on the UIC start-up rules).
// Cut-sets: node groups joined by everything but inductors and current sources; across the
// boundary of each group the initial currents must add up to 0. The jump: flux potentials ψ
// (ground's group 0) with Σ over the boundary of group K of ±(i_k(0) + (ψ_A − ψ_B)/L_k) ± I = 0.
#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "circuit/src/checks.hpp"
#include "circuit/src/graph.hpp"

namespace nsspice::circuit::detail {
namespace {

constexpr int kMaxJumpSystem = 400;  // larger groups: the mismatch without the jump values

double start_value(const Waveform& w) { return waveform_value(w, 0.0); }

// Relative test of a sum of terms against 0.
bool disagree(double sum, double scale) { return std::fabs(sum) > 1e-9 * scale + 1e-15; }

// ---- loops of capacitors and voltage sources ----

struct Branch {
  int a, b;
  double value;   // v_a − v_b (or current a → b)
  size_t device;  // index into devices; devices.size() for an '.ic' branch
  std::string text;
};

std::string branch_list(const std::vector<const Branch*>& loop) {
  std::string out;
  for (const Branch* b : loop) out += (out.empty() ? "" : ", ") + b->text;
  return out;
}

// Voltages of the capacitors after the jump at t = 0, for the group of `node`; nullopt when
// they cannot be computed (see the file comment).
std::optional<std::map<size_t, double>> capacitor_jump(const Circuit& c, int node) {
  const int n = static_cast<int>(c.nodes.size());
  UnionFind groups(n);
  for (const Device& d : c.devices) {
    if (const auto* cap = std::get_if<Capacitor>(&d)) groups.unite(cap->a, cap->b);
    if (const auto* v = std::get_if<VoltageSource>(&d)) groups.unite(v->p, v->n);
  }
  const int group = groups.find(node);
  std::map<int, int> index;  // node → unknown
  const bool grounded = groups.find(0) == group;
  int reference = grounded ? 0 : -1;
  for (int v = 0; v < n; ++v) {
    if (groups.find(v) != group) continue;
    if (reference < 0) reference = v;
    if (v != reference) index.emplace(v, static_cast<int>(index.size()));
  }
  for (const auto& [ic_node, value] : c.ic) {
    if (groups.find(ic_node) == group) return std::nullopt;
  }
  std::vector<size_t> caps, sources;
  for (size_t k = 0; k < c.devices.size(); ++k) {
    if (const auto* cap = std::get_if<Capacitor>(&c.devices[k]);
        cap && groups.find(cap->a) == group) {
      if (!cap->ic) return std::nullopt;
      caps.push_back(k);
    }
    if (const auto* v = std::get_if<VoltageSource>(&c.devices[k]); v && groups.find(v->p) == group)
      sources.push_back(k);
  }
  const int size = static_cast<int>(index.size() + sources.size());
  if (size == 0 || size > kMaxJumpSystem) return std::nullopt;
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(size, size);
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(size);
  auto at = [&](int v) { return v == reference ? -1 : index.at(v); };
  for (size_t k : caps) {
    const auto& cap = std::get<Capacitor>(c.devices[k]);
    const int a = at(cap.a), b = at(cap.b);
    for (auto [row, sign] : {std::pair{a, 1.0}, std::pair{b, -1.0}}) {
      if (row < 0) continue;
      if (a >= 0) m(row, a) += sign * cap.c;
      if (b >= 0) m(row, b) -= sign * cap.c;
      rhs[row] += sign * cap.c * *cap.ic;
    }
  }
  for (size_t s = 0; s < sources.size(); ++s) {
    const auto& v = std::get<VoltageSource>(c.devices[sources[s]]);
    const int row = static_cast<int>(index.size() + s);
    const int p = at(v.p), q = at(v.n);
    if (p >= 0) m(p, row) += 1, m(row, p) += 1;
    if (q >= 0) m(q, row) -= 1, m(row, q) -= 1;
    rhs[row] = start_value(v.wave);
  }
  Eigen::FullPivLU<Eigen::MatrixXd> lu(m);
  if (lu.rank() < size) return std::nullopt;
  const Eigen::VectorXd x = lu.solve(rhs);
  auto phi = [&](int v) { return v == reference ? 0.0 : x[at(v)]; };
  std::map<size_t, double> out;
  for (size_t k : caps) {
    const auto& cap = std::get<Capacitor>(c.devices[k]);
    out[k] = phi(cap.a) - phi(cap.b);
  }
  return out;
}

// Calls found(loop, mismatch, scale) for every branch that closes a loop in the spanning
// forest of the branches before it: loop = tree path + the branch, mismatch = (v_a − v_b along
// the tree) − its value, scale = Σ |values| on the loop.
template <class Found>
void for_each_loop(int nodes, const std::vector<Branch>& branches, Found found) {
  UnionFind uf(nodes);
  std::vector<std::vector<std::pair<int, const Branch*>>> tree(static_cast<size_t>(nodes));
  for (const Branch& br : branches) {
    if (uf.unite(br.a, br.b)) {
      tree[static_cast<size_t>(br.a)].push_back({br.b, &br});
      tree[static_cast<size_t>(br.b)].push_back({br.a, &br});
      continue;
    }
    std::vector<std::pair<int, const Branch*>> from(static_cast<size_t>(nodes), {-1, nullptr});
    std::queue<int> q;
    q.push(br.a);
    from[static_cast<size_t>(br.a)] = {br.a, nullptr};
    while (!q.empty()) {
      const int u = q.front();
      q.pop();
      for (const auto& [v, edge] : tree[static_cast<size_t>(u)]) {
        if (from[static_cast<size_t>(v)].first >= 0) continue;
        from[static_cast<size_t>(v)] = {u, edge};
        q.push(v);
      }
    }
    std::vector<const Branch*> loop;
    double implied = 0;  // v_a − v_b
    double scale = std::fabs(br.value);
    for (int v = br.b; v != br.a; v = from[static_cast<size_t>(v)].first) {
      const int u = from[static_cast<size_t>(v)].first;
      const Branch* e = from[static_cast<size_t>(v)].second;
      implied += e->a == u ? e->value : -e->value;  // v_u − v_v
      scale += std::fabs(e->value);
      loop.push_back(e);
    }
    loop.push_back(&br);
    found(loop, implied - br.value, scale, uf.find(br.a));
  }
}

// Voltage sources (value at t = 0) as branches; with `caps`, capacitors with IC= too; then
// the '.ic' node voltages as branches to ground.
std::vector<Branch> voltage_branches(const Circuit& c, bool caps) {
  std::vector<Branch> branches;
  for (size_t k = 0; k < c.devices.size(); ++k) {
    if (const auto* cap = std::get_if<Capacitor>(&c.devices[k]); caps && cap && cap->ic) {
      branches.push_back(
          {cap->a, cap->b, *cap->ic, k, fmt::format("{} IC={:g} V", cap->name, *cap->ic)});
    } else if (const auto* v = std::get_if<VoltageSource>(&c.devices[k])) {
      const double v0 = start_value(v->wave);
      branches.push_back({v->p, v->n, v0, k, fmt::format("{} = {:g} V at t = 0", v->name, v0)});
    }
  }
  for (const auto& [node, value] : c.ic) {
    branches.push_back({node, 0, value, c.devices.size(),
                        fmt::format(".ic v({})={:g}", c.nodes[static_cast<size_t>(node)], value)});
  }
  return branches;
}

bool only_sources(const Circuit& c, const std::vector<const Branch*>& loop) {
  return std::all_of(loop.begin(), loop.end(), [&](const Branch* e) {
    return e->device < c.devices.size() &&
           std::holds_alternative<VoltageSource>(c.devices[e->device]);
  });
}

// The loop's first device (its card is where the warning points).
size_t first_device(const std::vector<const Branch*>& loop) {
  size_t where = loop.back()->device;
  for (const Branch* e : loop) where = std::min(where, e->device);
  return where;
}

void capacitor_loops(const Circuit& c, netlist::Diagnostics& diags) {
  const std::vector<Branch> branches = voltage_branches(c, true);
  std::vector<char> reported_group(c.nodes.size(), 0);
  for_each_loop(
      static_cast<int>(c.nodes.size()), branches,
      [&](const std::vector<const Branch*>& loop, double mismatch, double scale, int root) {
        // Loops of voltage sources alone are errors of their own (topology.cpp).
        if (only_sources(c, loop) || !disagree(mismatch, scale) ||
            reported_group[static_cast<size_t>(root)])
          return;
        reported_group[static_cast<size_t>(root)] = 1;
        std::string jump =
            "; the start-up values decide which one holds at t = 0 and the state "
            "jumps at the first step";
        if (const auto after = capacitor_jump(c, loop.back()->a)) {
          std::string list;
          for (const Branch* e : loop) {
            if (e->device >= c.devices.size()) continue;
            const auto* cap = std::get_if<Capacitor>(&c.devices[e->device]);
            if (cap == nullptr) continue;
            list += fmt::format("{}{} {:g} V -> {:.6g} V", list.empty() ? "" : ", ", cap->name,
                                *cap->ic, after->at(e->device));
          }
          jump =
              "; the capacitor voltages jump at t = 0 to the charge-conserving "
              "values: " +
              list;
        }
        diags.warning(c.spans[first_device(loop)],
                      fmt::format("contradictory initial conditions (UIC) around the "
                                  "loop {}: the initial voltages add up to {:g} V "
                                  "instead of 0{}",
                                  branch_list(loop), mismatch, jump));
      });
}

// Without UIC the operating point holds every '.ic' node with a voltage source
// (AssembleOptions::hold_ic_nodes): an '.ic' on a node that voltage sources already fix closes
// a loop of sources, and the operating point's equations are singular even if the values agree.
void ic_holds(const Circuit& c, netlist::Diagnostics& diags) {
  const std::vector<Branch> branches = voltage_branches(c, false);
  for_each_loop(static_cast<int>(c.nodes.size()), branches,
                [&](const std::vector<const Branch*>& loop, double mismatch, double scale, int) {
                  if (only_sources(c, loop)) return;  // reported by topology.cpp
                  const std::string values =
                      disagree(mismatch, scale)
                          ? fmt::format(" (and the values disagree by {:g} V)", mismatch)
                          : "";
                  diags.warning(
                      c.spans[first_device(loop)],
                      fmt::format("'{}' holds a node that voltage sources already fix (loop {}){}: "
                                  "without UIC the operating point holds each .ic node with a "
                                  "source, and this loop makes its equations singular; drop the "
                                  ".ic entry or use '.tran ... UIC'",
                                  loop.back()->text, branch_list(loop), values));
                });
}

// ---- cut-sets of inductors and current sources ----

void inductor_cut_sets(const Circuit& c, const std::vector<Edge>& edges,
                       netlist::Diagnostics& diags) {
  const int n = static_cast<int>(c.nodes.size());
  UnionFind uf(n);
  for (const Edge& e : edges)
    if (e.kind != Kind::kCurrent && e.kind != Kind::kInductor && e.kind != Kind::kNone)
      uf.unite(e.a, e.b);
  // Crossing branches (a, b, initial current a → b) and each group's net outflow.
  struct Crossing {
    int a, b;
    double i0;
    size_t device;
    double l;  // 0 for a current source
  };
  std::vector<Crossing> crossing;
  for (const Edge& e : edges) {
    if ((e.kind != Kind::kCurrent && e.kind != Kind::kInductor) || uf.find(e.a) == uf.find(e.b))
      continue;
    const Device& d = c.devices[e.device];
    if (const auto* l = std::get_if<Inductor>(&d)) {
      crossing.push_back({uf.find(l->a), uf.find(l->b), l->ic.value_or(0.0), e.device, l->l});
    } else if (const auto* i = std::get_if<CurrentSource>(&d)) {
      crossing.push_back({uf.find(i->p), uf.find(i->n), start_value(i->wave), e.device, 0.0});
    } else {
      return;  // a controlled current source: its initial current is not known here
    }
  }
  std::map<int, double> net, scale;
  std::map<int, std::vector<size_t>> members;
  for (size_t k = 0; k < crossing.size(); ++k) {
    const Crossing& x = crossing[k];
    net[x.a] += x.i0, net[x.b] -= x.i0;
    scale[x.a] += std::fabs(x.i0), scale[x.b] += std::fabs(x.i0);
    members[x.a].push_back(k);
    members[x.b].push_back(k);
  }
  const int ground = uf.find(0);
  // Flux potentials of the groups (ground's is 0): Laplacian with weights 1/L.
  std::map<int, int> index;
  for (const auto& [group, sum] : net)
    if (group != ground) index.emplace(group, static_cast<int>(index.size()));
  std::optional<Eigen::VectorXd> psi;
  const int size = static_cast<int>(index.size());
  if (size > 0 && size <= kMaxJumpSystem) {
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(size, size);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(size);
    for (const auto& [group, sum] : net)
      if (group != ground) rhs[index.at(group)] = -sum;
    for (const Crossing& x : crossing) {
      if (x.l == 0) continue;
      const int a = x.a == ground ? -1 : index.at(x.a), b = x.b == ground ? -1 : index.at(x.b);
      // outflow of group a grows by (ψ_a − ψ_b)/L, that of group b falls by as much
      if (a >= 0) m(a, a) += 1 / x.l;
      if (b >= 0) m(b, b) += 1 / x.l;
      if (a >= 0 && b >= 0) m(a, b) -= 1 / x.l, m(b, a) -= 1 / x.l;
    }
    Eigen::FullPivLU<Eigen::MatrixXd> lu(m);
    if (lu.rank() == size) psi = lu.solve(rhs);
  }
  auto potential = [&](int g) { return g == ground ? 0.0 : (*psi)[index.at(g)]; };
  for (const auto& [group, sum] : net) {
    if (group == ground || !disagree(sum, scale[group])) continue;
    std::string list, jump;
    for (size_t k : members[group]) {
      const Crossing& x = crossing[k];
      const Device& d = c.devices[x.device];
      list += fmt::format("{}{} {}{:g} A{}", list.empty() ? "" : ", ", device_name(d),
                          x.l > 0 ? "IC=" : "= ", x.i0, x.l > 0 ? "" : " at t = 0");
      if (psi && x.l > 0) {
        jump += fmt::format("{}{} {:g} A -> {:.6g} A", jump.empty() ? "" : ", ", device_name(d),
                            x.i0, x.i0 + (potential(x.a) - potential(x.b)) / x.l);
      }
    }
    diags.warning(c.spans[crossing[members[group].front()].device],
                  fmt::format("contradictory initial conditions (UIC) across the cut-set {}: "
                              "the initial currents leave the node group with a net {:g} A "
                              "instead of 0; {}",
                              list, sum,
                              jump.empty() ? std::string("the inductor currents jump at t = 0")
                                           : "the inductor currents jump at t = 0 to the "
                                             "flux-conserving values: " +
                                                 jump));
  }
}

}  // namespace

void check_initial_conditions(const Circuit& circuit, netlist::Diagnostics& diags) {
  if (!circuit.tran || !circuit.tran->uic) {
    ic_holds(circuit, diags);
    return;
  }
  capacitor_loops(circuit, diags);
  std::vector<Edge> edges;
  for (size_t i = 0; i < circuit.devices.size(); ++i) device_edges(circuit.devices[i], i, edges);
  inductor_cut_sets(circuit, edges, diags);
}

}  // namespace nsspice::circuit::detail
