#pragma once
// Circuit → MLCS by modified nodal analysis (docs/formulation.md §1; docs/theory.md).
//
// Unknowns x: node voltages v_1..v_N (ground excluded), then one branch current per inductor
// and voltage source (in netlist order). Sign convention (§1.1): row a of KCL holds the sum of
// currents leaving node a through elements; an element current i from a to k adds +i to row a
// and −i to row k of  E x' + G x = B λ + b(t).
//
//   R:  G[a,a] += 1/R, G[k,k] += 1/R, G[a,k] −= 1/R, G[k,a] −= 1/R
//   C:  E likewise with C
//   L (current i, a → b):     KCL ±i;  branch row  L i' − v_a + v_b = 0
//   V (current i, p → n):     KCL ±i;  branch row  v_p − v_n = V(t)     (S[row, src] = 1)
//   I (current I, p → n):     b[p] −= I(t), b[n] += I(t)
//   D (λ = current a → k):    B[a,j] = −1, B[k,j] = +1;  w_j = v_k − v_a + RON λ_j + VF
//                             (C[j,k] = 1, C[j,a] = −1, D[j,j] = RON, d_j = VF); GOFF as a resistor
//   E (VCVS), H (CCVS):       a branch current; row v_p − v_n − gain (v_cp − v_cn) = 0 / − r i_c =
//   0 G (VCCS), F (CCCS):       G[p, ·] += gm (v_cp − v_cn) / gain·i_c, G[n, ·] −= the same K
//   (mutual inductance):    E[br1, br2] = E[br2, br1] = k sqrt(L1 L2) Zener, ideal switch,
//   comparator, PWL MOS: circuit/src/stamps_nonsmooth.cpp
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "circuit/circuit.hpp"
#include "solvers/mlcs.hpp"

namespace nsspice::circuit {

struct AssembleOptions {
  // Adds a voltage source for every `.ic v(node)` so that the operating point honours it
  // (SPICE semantics without UIC), and for every `.ic I(L)` (Circuit::ic_currents, LTspice's
  // semantics) a constraint i_L = value whose unknown u, the voltage that holds the current,
  // enters the inductor's row (−(v_a − v_b) + u = 0 at DC); their unknowns come after the others.
  bool hold_ic_nodes = false;
};

// A signal computed from the solution: Σ coef·λ_j + Σ coef·x_i (a diode or switch current,
// a MOS drain current).
struct DerivedSignal {
  std::string name;
  std::vector<std::pair<int, double>> lambda_terms, x_terms;
};

// An ideal switch's control, as assembled (turned into Mlcs::switches).
struct SwitchInfo {
  int pair = 0;
  std::vector<std::pair<int, double>> control;  // (column of x, coefficient)
  double on_above = 0, off_below = 0;
  bool initially_on = false;
};

struct Assembled {
  solvers::Mlcs mlcs;
  std::vector<std::string> unknown_names;  // "v(out)", "i(l1)", "i(v1)", "i(e1)"
  std::vector<std::string> pair_names;     // device name of each complementarity pair
  std::vector<int> pair_device;            // index into Circuit::devices
  std::vector<Waveform> sources;           // s(t) components
  std::vector<int> source_device;          // index into Circuit::devices of each s(t) component
                                           // (−1: none, the .ic holding sources)
  // The DC value of each s(t) component where its source has one beside its transient function
  // (VoltageSource::dc), NaN elsewhere.
  std::vector<double> source_dc;
  std::vector<DerivedSignal> derived;  // device currents computed from λ (and x)
  std::vector<SwitchInfo> switch_info;
  // Which pair of a multi-pair device ("forward"/"breakdown", "lower"/"upper", "gs1"...);
  // "" for a device of one pair.
  std::vector<std::string> pair_roles;
  int node_count = 0;
  // For each unknown k (row and column k of E and G): the devices (indices into
  // Circuit::devices) whose stamps touch row k or column k of E, G, B, C or S, ascending.
  // Used to name the causes of a singular matrix (circuit/explain.hpp).
  std::vector<std::vector<int>> unknown_devices;
  std::vector<std::string> device_names;  // name of each device of the circuit
};

Assembled assemble(const Circuit& circuit, const AssembleOptions& options = {});

// s for the static analyses (.op, .dc, the operating point of .ac), as SPICE takes it: each
// source's DC value where one is written beside its transient function (Assembled::source_dc),
// else the transient function at t = 0. (.tran's initial point takes every function at t = 0.)
void static_source_values(const Assembled& a, Eigen::VectorXd& s);

// The sparsity of one circuit's assembly, kept to restamp the circuits that differ from it only
// in values (the runs of a sweep or a Monte Carlo): for each of E, G, B, C, D, C_off and S its
// compressed pattern and, for every stamp in stamping order, its (row, column) and its slot in
// the matrix's values. Read-only once built: several threads may restamp on it at once.
class AssemblyPattern {
 public:
  using Triplets = std::vector<Eigen::Triplet<double, int>>;
  explicit AssemblyPattern(const Circuit& circuit, const AssembleOptions& options = {});
  const AssembleOptions& options() const { return options_; }
  int unknowns() const { return n_; }
  int pairs() const { return m_; }
  // (assemble.cpp) The stamps `t` of the seven matrices land where the pattern's do: the same
  // sizes and the same (row, column) in the same order.
  bool fits(int n, int m, int sources, const std::array<const Triplets*, 7>& t) const;
  // (assemble.cpp) Matrix k: the pattern's, its values the sums of `t` slot by slot.
  void restamp(int k, const Triplets& t, solvers::SparseMatrix& out) const;

 private:
  struct Slots {
    solvers::SparseMatrix matrix;
    std::vector<int> rows, cols, slot;
  };
  AssembleOptions options_;
  int n_ = 0, m_ = 0, sources_ = 0;
  std::array<Slots, 7> slots_;
};

// `circuit` assembled on `pattern` (restamped): its stamps are computed as assemble() computes
// them and summed in the same order into the pattern's sparsity (no sort, no new structure), so
// the result equals assemble(circuit, pattern.options()) bit for bit and its matrices have the
// pattern's structure (a symbolic factorization of the pattern's serves them). nullopt when the
// stamps do not fit (another topology, or another number of complementarity pairs: e.g. a model
// parameter that changes a PWL model's segment count): assemble() the circuit then.
std::optional<Assembled> restamp(const Circuit& circuit, const AssemblyPattern& pattern);

}  // namespace nsspice::circuit
