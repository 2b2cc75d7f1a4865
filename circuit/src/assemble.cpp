#include "circuit/assemble.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "circuit/src/stamper.hpp"

namespace nsspice::circuit {
namespace {

using detail::Stamper;
using detail::Triplets;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;  // (clang 14 needs the guide)

solvers::SparseMatrix to_sparse(int rows, int cols, const Triplets& t) {
  solvers::SparseMatrix m(rows, cols);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}

// Columns of the branch-current unknowns, in netlist order: L, V, E, H and comparator outputs.
std::map<std::string, int> branch_columns(const Circuit& circuit, Stamper& st) {
  std::map<std::string, int> col;
  for (const Device& dev : circuit.devices) {
    const bool has_branch =
        std::holds_alternative<Inductor>(dev) || std::holds_alternative<VoltageSource>(dev) ||
        std::holds_alternative<Vcvs>(dev) || std::holds_alternative<Ccvs>(dev) ||
        std::holds_alternative<Comparator>(dev);
    if (has_branch) {
      const std::string& name = device_name(dev);
      col[name] = st.new_branch("i(" + name + ")");
    }
  }
  return col;
}

void stamp_linear(Stamper& st, const Device& dev, const std::map<std::string, int>& col) {
  std::visit(Overloaded{[&](const Resistor& r) { st.conductance(st.g, r.a, r.b, 1.0 / r.r); },
                        [&](const Capacitor& c) { st.conductance(st.e, c.a, c.b, c.c); },
                        [&](const Inductor& l) {
                          const int k = col.at(l.name);
                          st.branch(l.a, l.b, k, -1.0);  // L i' − (v_a − v_b) = 0
                          st.e.emplace_back(k, k, l.l);
                        },
                        [&](const VoltageSource& v) {
                          const int k = col.at(v.name);
                          st.branch(v.p, v.n, k, 1.0);  // v_p − v_n = V(t)
                          st.s.emplace_back(k, st.new_source(v.wave, v.dc), 1.0);
                        },
                        [&](const CurrentSource& i) {
                          const int src = st.new_source(i.wave, i.dc);
                          if (i.p > 0) st.s.emplace_back(Stamper::row(i.p), src, -1.0);
                          if (i.n > 0) st.s.emplace_back(Stamper::row(i.n), src, 1.0);
                        },
                        [&](const Vcvs& e) {
                          const int k = col.at(e.name);
                          st.branch(e.p, e.n, k, 1.0);
                          if (e.cp > 0) st.g.emplace_back(k, Stamper::row(e.cp), -e.gain);
                          if (e.cn > 0) st.g.emplace_back(k, Stamper::row(e.cn), e.gain);
                        },
                        [&](const Vccs& g) { st.transconductance(g.p, g.n, g.cp, g.cn, g.gm); },
                        [&](const Cccs& f) {
                          const int kc = col.at(f.control);
                          if (f.p > 0) st.g.emplace_back(Stamper::row(f.p), kc, f.gain);
                          if (f.n > 0) st.g.emplace_back(Stamper::row(f.n), kc, -f.gain);
                        },
                        [&](const Ccvs& h) {
                          const int k = col.at(h.name);
                          st.branch(h.p, h.n, k, 1.0);
                          st.g.emplace_back(k, col.at(h.control), -h.r);
                        },
                        [](const auto&) {}},
             dev);
}

void stamp_mutuals(const Circuit& circuit, Stamper& st, const std::map<std::string, int>& col) {
  std::map<std::string, double> inductance;
  for (const Device& dev : circuit.devices)
    if (const auto* l = std::get_if<Inductor>(&dev)) inductance[l->name] = l->l;
  for (const Device& dev : circuit.devices) {
    const auto* k = std::get_if<Mutual>(&dev);
    if (k == nullptr) continue;
    const double m = k->k * std::sqrt(inductance.at(k->l1) * inductance.at(k->l2));
    st.e.emplace_back(col.at(k->l1), col.at(k->l2), m);
    st.e.emplace_back(col.at(k->l2), col.at(k->l1), m);
  }
}

// The seven sparse matrices of an assembly, in a fixed order (MatrixShapes, AssemblyPattern).
struct MatrixShapes {
  int n, m, sources;
};
constexpr int kMatrices = 7;  // E, G, B, C, D, C_off, S
std::array<std::pair<int, int>, kMatrices> shapes(const MatrixShapes& s) {
  return {
      {{s.n, s.n}, {s.n, s.n}, {s.n, s.m}, {s.m, s.n}, {s.m, s.m}, {s.m, s.n}, {s.n, s.sources}}};
}
std::array<const Triplets*, kMatrices> triplets(const Stamper& st) {
  return {&st.e, &st.g, &st.b, &st.c, &st.d, &st.c_off, &st.s};
}
std::array<solvers::SparseMatrix*, kMatrices> matrices(solvers::Mlcs& m) {
  return {&m.E, &m.G, &m.B, &m.C, &m.D, &m.C_off, &m.S};
}
MatrixShapes shapes_of(const Assembled& out, const Stamper& st) {
  return {st.next_column, static_cast<int>(st.offsets.size()),
          static_cast<int>(out.sources.size())};
}

// The matrices from the triplets, or (with `pattern`) restamped on its patterns; false when the
// stamps do not fit the pattern (nothing is changed then).
bool build_matrices(Assembled& out, const Stamper& st, const AssemblyPattern* pattern) {
  const MatrixShapes s = shapes_of(out, st);
  const auto t = triplets(st);
  const auto dims = shapes(s);
  const auto m = matrices(out.mlcs);
  if (pattern == nullptr) {
    for (int k = 0; k < kMatrices; ++k) *m[k] = to_sparse(dims[k].first, dims[k].second, *t[k]);
    return true;
  }
  if (!pattern->fits(s.n, s.m, s.sources, t)) return false;
  for (int k = 0; k < kMatrices; ++k) pattern->restamp(k, *t[k], *m[k]);
  return true;
}

void finish(Assembled& out, Stamper& st) {
  solvers::Mlcs& m = out.mlcs;
  m.n = st.next_column;
  m.m = static_cast<int>(st.offsets.size());
  m.forced = st.forced;
  for (int j : st.smooth_knots)
    if (st.kink[static_cast<size_t>(j)] == 1) st.kink[static_cast<size_t>(j)] = 2;
  if (std::find_if(st.kink.begin(), st.kink.end(), [](char k) { return k != 0; }) != st.kink.end())
    m.kink = st.kink;
  m.d =
      Eigen::Map<Eigen::VectorXd>(st.offsets.data(), static_cast<Eigen::Index>(st.offsets.size()));
  for (const SwitchInfo& info : out.switch_info) {
    solvers::Mlcs::SwitchControl sc;
    sc.pair = info.pair;
    sc.c.resize(m.n);
    for (const auto& [column, coef] : info.control) sc.c.coeffRef(column) += coef;
    sc.on_above = info.on_above;
    sc.off_below = info.off_below;
    sc.initially_on = info.initially_on;
    m.switches.push_back(std::move(sc));
  }
  m.source_values = [waves = out.sources](double t, Eigen::Ref<Eigen::VectorXd> s) {
    for (size_t k = 0; k < waves.size(); ++k)
      s[static_cast<Eigen::Index>(k)] = waveform_value(waves[k], t);
  };
  m.next_breakpoint = [waves = out.sources](double t) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto& w : waves) best = std::min(best, waveform_next_breakpoint(w, t));
    return best;
  };
}

// Records `device` against every unknown its triplets (added since `marks`) touch.
// The device's pairs are segments of continuous PWL characteristics (SPICE models converted,
// the PWL MOS and BJT), whose mode changes are kinks (solvers::Mlcs::kink); an ideal diode's
// are switches.
bool pwl_characteristics(const Device& dev) {
  if (const auto* d = std::get_if<Diode>(&dev)) return !d->model.forward.empty();
  return std::holds_alternative<Mosfet>(dev) || std::holds_alternative<Bjt>(dev);
}

struct StampMarks {
  std::size_t e, g, b, c, s;
};
StampMarks marks(const Stamper& st) {
  return {st.e.size(), st.g.size(), st.b.size(), st.c.size(), st.s.size()};
}
void record(Assembled& out, const Stamper& st, const StampMarks& from, int device) {
  auto touch = [&](int k) {
    if (k < 0) return;
    if (out.unknown_devices.size() <= static_cast<std::size_t>(k))
      out.unknown_devices.resize(static_cast<std::size_t>(k) + 1);
    auto& list = out.unknown_devices[static_cast<std::size_t>(k)];
    if (list.empty() || list.back() != device) list.push_back(device);
  };
  for (std::size_t i = from.e; i < st.e.size(); ++i) touch(st.e[i].row()), touch(st.e[i].col());
  for (std::size_t i = from.g; i < st.g.size(); ++i) touch(st.g[i].row()), touch(st.g[i].col());
  for (std::size_t i = from.b; i < st.b.size(); ++i) touch(st.b[i].row());
  for (std::size_t i = from.c; i < st.c.size(); ++i) touch(st.c[i].col());
  for (std::size_t i = from.s; i < st.s.size(); ++i) touch(st.s[i].row());
}

// Every stamp of `circuit` into `st` (and the rest of `out` but the matrices).
void stamp_circuit(const Circuit& circuit, const AssembleOptions& options, Assembled& out,
                   Stamper& st) {
  const int nodes = circuit.node_count();
  out.node_count = nodes;
  st.charge_scale = circuit.stepping.chgtol / circuit.stepping.abstol;
  for (int k = 1; k <= nodes; ++k) st.new_branch("v(" + circuit.nodes[k] + ")");
  const std::map<std::string, int> col = branch_columns(circuit, st);
  for (size_t idx = 0; idx < circuit.devices.size(); ++idx) {
    const Device& dev = circuit.devices[idx];
    const int index = static_cast<int>(idx);
    out.device_names.push_back(device_name(dev));
    const StampMarks before = marks(st);
    const std::size_t first_pair = st.offsets.size(), first_d = st.d.size();
    stamp_linear(st, dev, col);
    std::visit(
        Overloaded{[&](const Diode& d) { detail::stamp_diode(st, d, index, out); },
                   [&](const Switch& s) {
                     const int control = s.model.current_controlled ? col.at(s.control) : -1;
                     detail::stamp_switch(st, s, index, control, out);
                   },
                   [&](const Comparator& c) {
                     detail::stamp_comparator(st, c, index, col.at(c.name), out);
                   },
                   [&](const Mosfet& m) { detail::stamp_mosfet(st, m, index, out); },
                   [&](const Bjt& q) { detail::stamp_bjt(st, q, index, out); }, [](const auto&) {}},
        dev);
    if (pwl_characteristics(dev)) st.mark_kinks(first_pair, first_d);
    record(out, st, before, index);
    out.source_device.resize(out.sources.size(), index);
  }
  stamp_mutuals(circuit, st, col);
  for (size_t idx = 0; idx < circuit.devices.size(); ++idx) {
    if (const auto* k = std::get_if<Mutual>(&circuit.devices[idx])) {
      for (const std::string& l : {k->l1, k->l2}) {
        auto& list = out.unknown_devices[static_cast<size_t>(col.at(l))];
        list.push_back(static_cast<int>(idx));
        std::sort(list.begin(), list.end());
      }
    }
  }
  if (options.hold_ic_nodes) {
    for (const auto& [node, value] : circuit.ic) {
      const int k = st.new_branch("i(.ic " + circuit.nodes[node] + ")");
      st.branch(node, 0, k, 1.0);
      st.s.emplace_back(k, st.new_source(Dc{value}), 1.0);
    }
    for (const int index : circuit.ic_currents) {
      const auto& l = std::get<Inductor>(circuit.devices[static_cast<size_t>(index)]);
      const int current = col.at(l.name);
      const int k = st.new_branch("v(.ic i(" + l.name + "))");
      st.g.emplace_back(k, current, 1.0);  // i_L = value
      st.g.emplace_back(current, k, 1.0);  // the holding voltage in the inductor's row
      st.s.emplace_back(k, st.new_source(Dc{*l.ic}), 1.0);
    }
  }
  out.source_device.resize(out.sources.size(), -1);
}

// assemble() (pattern == nullptr) or restamp(); nullopt when the stamps do not fit `pattern`.
std::optional<Assembled> assemble_on(const Circuit& circuit, const AssembleOptions& options,
                                     const AssemblyPattern* pattern) {
  Assembled out;
  Stamper st(out);
  stamp_circuit(circuit, options, out, st);
  if (!build_matrices(out, st, pattern)) return std::nullopt;
  finish(out, st);
  out.unknown_devices.resize(static_cast<size_t>(out.mlcs.n));
  return out;
}

}  // namespace

Assembled assemble(const Circuit& circuit, const AssembleOptions& options) {
  return *assemble_on(circuit, options, nullptr);
}

std::optional<Assembled> restamp(const Circuit& circuit, const AssemblyPattern& pattern) {
  return assemble_on(circuit, pattern.options(), &pattern);
}

AssemblyPattern::AssemblyPattern(const Circuit& circuit, const AssembleOptions& options)
    : options_(options) {
  Assembled out;
  Stamper st(out);
  stamp_circuit(circuit, options, out, st);
  const MatrixShapes s = shapes_of(out, st);
  n_ = s.n;
  m_ = s.m;
  sources_ = s.sources;
  const auto t = triplets(st);
  const auto dims = shapes(s);
  for (int k = 0; k < kMatrices; ++k) {
    Slots& p = slots_[static_cast<std::size_t>(k)];
    p.matrix = to_sparse(dims[k].first, dims[k].second, *t[k]);
    for (const auto& e : *t[k]) {
      p.rows.push_back(e.row());
      p.cols.push_back(e.col());
      const int* inner = p.matrix.innerIndexPtr();
      const int begin = p.matrix.outerIndexPtr()[e.col()];
      const int end = p.matrix.outerIndexPtr()[e.col() + 1];
      p.slot.push_back(
          static_cast<int>(std::lower_bound(inner + begin, inner + end, e.row()) - inner));
    }
  }
}

bool AssemblyPattern::fits(int n, int m, int sources,
                           const std::array<const Triplets*, 7>& t) const {
  if (n != n_ || m != m_ || sources != sources_) return false;
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    const Slots& p = slots_[k];
    const auto& tk = *t[k];
    if (tk.size() != p.rows.size()) return false;
    for (std::size_t i = 0; i < tk.size(); ++i)
      if (tk[i].row() != p.rows[i] || tk[i].col() != p.cols[i]) return false;
  }
  return true;
}

void AssemblyPattern::restamp(int k, const Triplets& t, solvers::SparseMatrix& out) const {
  const Slots& p = slots_[static_cast<std::size_t>(k)];
  out = p.matrix;
  double* v = out.valuePtr();
  // setFromTriplets' sums: the first stamp of a slot, then the others added in stamping order.
  std::vector<char> set(static_cast<std::size_t>(out.nonZeros()), 0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    const auto s = static_cast<std::size_t>(p.slot[i]);
    v[s] = set[s] ? v[s] + t[i].value() : t[i].value();
    set[s] = 1;
  }
}

void static_source_values(const Assembled& a, Eigen::VectorXd& s) {
  const solvers::Mlcs& m = a.mlcs;
  s = Eigen::VectorXd::Zero(m.S.cols());
  if (m.S.cols() == 0) return;
  m.source_values(0.0, s);
  for (size_t k = 0; k < a.source_dc.size() && k < static_cast<size_t>(s.size()); ++k)
    if (!std::isnan(a.source_dc[k])) s[static_cast<Eigen::Index>(k)] = a.source_dc[k];
}

}  // namespace nsspice::circuit
