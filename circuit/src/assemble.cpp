#include "circuit/assemble.hpp"

#include <algorithm>
#include <limits>

namespace nsspice::circuit {
namespace {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

class Stamper {
 public:
  // Row/column of node k (−1 for ground).
  static int row(int node) { return node - 1; }
  void conductance(Triplets& t, int a, int b, double g) {
    if (a > 0) t.emplace_back(row(a), row(a), g);
    if (b > 0) t.emplace_back(row(b), row(b), g);
    if (a > 0 && b > 0) {
      t.emplace_back(row(a), row(b), -g);
      t.emplace_back(row(b), row(a), -g);
    }
  }
  // Branch current unknown `col` flowing a → b: +1 in KCL row a, −1 in row b; the branch row
  // gets branch_sign·(v_a − v_b).
  void branch(int a, int b, int col, double branch_sign) {
    if (a > 0) g.emplace_back(row(a), col, 1.0), g.emplace_back(col, row(a), branch_sign);
    if (b > 0) g.emplace_back(row(b), col, -1.0), g.emplace_back(col, row(b), -branch_sign);
  }
  // Complementarity pair j with λ = current a → k and w = v_k − v_a + ...
  void pair(int a, int k, int j) {
    if (a > 0) this->b.emplace_back(row(a), j, -1.0), c.emplace_back(j, row(a), -1.0);
    if (k > 0) this->b.emplace_back(row(k), j, 1.0), c.emplace_back(j, row(k), 1.0);
  }
  void source(int r, int src, double sign) {
    if (r >= 0) s.emplace_back(r, src, sign);
  }

  Triplets e, g, b, c, d, s;
};

solvers::SparseMatrix to_sparse(int rows, int cols, const Triplets& t) {
  solvers::SparseMatrix m(rows, cols);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}

}  // namespace

Assembled assemble(const Circuit& circuit, const AssembleOptions& options) {
  Assembled out;
  const int nodes = circuit.node_count();
  out.node_count = nodes;
  for (int k = 1; k <= nodes; ++k) out.unknown_names.push_back("v(" + circuit.nodes[k] + ")");
  Stamper st;
  int next = nodes;  // next branch-current unknown
  int pair = 0;
  std::vector<double> vf;
  auto new_source = [&](const Waveform& w) {
    out.sources.push_back(w);
    return static_cast<int>(out.sources.size()) - 1;
  };
  for (size_t idx = 0; idx < circuit.devices.size(); ++idx) {
    std::visit(Overloaded{[&](const Resistor& r) { st.conductance(st.g, r.a, r.b, 1.0 / r.r); },
                          [&](const Capacitor& c) { st.conductance(st.e, c.a, c.b, c.c); },
                          [&](const Inductor& l) {
                            const int col = next++;
                            out.unknown_names.push_back("i(" + l.name + ")");
                            st.branch(l.a, l.b, col, -1.0);  // L i' − (v_a − v_b) = 0
                            st.e.emplace_back(col, col, l.l);
                          },
                          [&](const VoltageSource& v) {
                            const int col = next++;
                            out.unknown_names.push_back("i(" + v.name + ")");
                            st.branch(v.p, v.n, col, 1.0);  // v_p − v_n = V(t)
                            st.source(col, new_source(v.wave), 1.0);
                          },
                          [&](const CurrentSource& i) {
                            const int src = new_source(i.wave);
                            st.source(Stamper::row(i.p), src, -1.0);
                            st.source(Stamper::row(i.n), src, 1.0);
                          },
                          [&](const Diode& dd) {
                            const int j = pair++;
                            out.pair_names.push_back(dd.name);
                            out.pair_device.push_back(static_cast<int>(idx));
                            st.pair(dd.a, dd.k, j);
                            st.d.emplace_back(j, j, dd.model.ron);
                            vf.push_back(dd.model.vf);
                            if (dd.model.goff > 0) st.conductance(st.g, dd.a, dd.k, dd.model.goff);
                          }},
               circuit.devices[idx]);
  }
  if (options.hold_ic_nodes) {
    for (const auto& [node, value] : circuit.ic) {
      const int col = next++;
      out.unknown_names.push_back("i(.ic " + circuit.nodes[node] + ")");
      st.branch(node, 0, col, 1.0);
      st.source(col, new_source(Dc{value}), 1.0);
    }
  }
  solvers::Mlcs& m = out.mlcs;
  m.n = next;
  m.m = pair;
  m.E = to_sparse(m.n, m.n, st.e);
  m.G = to_sparse(m.n, m.n, st.g);
  m.B = to_sparse(m.n, m.m, st.b);
  m.C = to_sparse(m.m, m.n, st.c);
  m.D = to_sparse(m.m, m.m, st.d);
  m.d = Eigen::Map<Eigen::VectorXd>(vf.data(), static_cast<Eigen::Index>(vf.size()));
  m.S = to_sparse(m.n, static_cast<int>(out.sources.size()), st.s);
  m.source_values = [waves = out.sources](double t, Eigen::Ref<Eigen::VectorXd> s) {
    for (size_t k = 0; k < waves.size(); ++k)
      s[static_cast<Eigen::Index>(k)] = waveform_value(waves[k], t);
  };
  m.next_breakpoint = [waves = out.sources](double t) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto& w : waves) best = std::min(best, waveform_next_breakpoint(w, t));
    return best;
  };
  return out;
}

}  // namespace nsspice::circuit
