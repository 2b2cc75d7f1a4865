#pragma once
// Triplet accumulation for the MLCS matrices (circuit/assemble.hpp states the stamps), shared
// by the linear stamps (assemble.cpp) and the nonsmooth ones (stamps_nonsmooth.cpp).
#include <Eigen/SparseCore>
#include <optional>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"

namespace nsspice::circuit::detail {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

class Stamper {
 public:
  explicit Stamper(Assembled& out) : out_(out) {}

  // Row/column of node k (−1 for ground).
  static int row(int node) { return node - 1; }
  void conductance(Triplets& t, int a, int b, double g);
  // Transconductance: current gm (v(cp) − v(cn)) leaving node p, entering node n.
  void transconductance(int p, int n, int cp, int cn, double gm);
  // Branch current unknown `col` flowing a → b: +1 in KCL row a, −1 in row b; the branch row
  // gets branch_sign·(v_a − v_b).
  void branch(int a, int b, int col, double branch_sign);
  // Current λ_j flowing a → k through a device: B[a,j] −= g, B[k,j] += g.
  void pair_current(int a, int k, int j, double g = 1.0);
  // w_j += sign·(v_k − v_a) (C row of pair j).
  void pair_voltage(int a, int k, int j, double sign = 1.0);
  // New complementarity pair (or forced pair): returns its index.
  int new_pair(const std::string& device_name, int device_index, double d, bool forced = false,
               const std::string& role = "");
  // New s(t) component (its DC value for .op/.dc: Assembled::source_dc): returns its index.
  int new_source(const Waveform& w, std::optional<double> dc = std::nullopt);
  int new_branch(const std::string& signal_name);
  // A stored charge q = Σ c_j λ_j (a diode's TT·i, a BJT's TF·i_F, the excess of a PwlCharge),
  // whose current dq/dt flows a → k, as the new unknown u = q/s "qs(<name>)", s = charge_scale:
  // the error control's floor ABSTOL on the unknown is then CHGTOL on the charge (SPICE's), and
  // the column's entries s/(θh) stay far from the 1e-12-against-1e10 spread of q in coulombs,
  // which KLU's condition estimate calls singular:
  //   row u:   u − Σ (c_j/s) λ_j = 0    (G[u,u] = 1, B[u,j] = c_j/s)
  //   KCL:     +s u' at a, −s u' at k   (E[a,u] = s, E[k,u] = −s)
  // u is algebraic and enters KCL through E as a capacitor's charge does; its current is not an
  // unknown (an unknown i_q = q' would ring under the trapezoidal rule wherever q follows a stiff
  // branch, and the error control would chase it). The charge itself is the signal "q(<name>)"
  // = s u (Assembled::derived).
  void stored_charge(const std::string& name, int a, int k,
                     const std::vector<std::pair<int, double>>& terms, Assembled& out);
  // The knots of a PwlCharge (circuit.hpp) from a to k: per knot a pair λ = max(0, v_a − v_k −
  // V_k), w = λ − (v_a − v_k) + V_k (D = 1), with no current of its own; its charge dc·λ is added
  // to the device's stored charge. Returns the pairs with their dc (none without knots).
  std::vector<std::pair<int, double>> charge_knots(const PwlCharge& q, const std::string& device,
                                                   int index, int a, int k,
                                                   const std::string& role);

  // Marks as kinks (solvers::Mlcs::kink) the pairs from `first_pair` on that have D_jj > 0 and
  // no D entry with another pair among the D triplets from `first_d` on: the segments of one
  // device's continuous PWL characteristics (its LTspice-style limit pairs are coupled, not
  // marked).
  void mark_kinks(std::size_t first_pair, std::size_t first_d);

  Triplets e, g, b, c, d, s, c_off;
  std::vector<double> offsets;
  std::vector<char> forced;
  std::vector<char> kink;
  std::vector<int> smooth_knots;  // charge knots below 0 V: Mlcs::kink = 2 where they are kinks
  int next_column = 0;
  double charge_scale = 0.01;  // s of stored_charge: CHGTOL/ABSTOL [s] (assemble sets it)

 private:
  Assembled& out_;
};

// Stamps of the nonsmooth devices (diode, Zener, switch, comparator, PWL MOS, PWL BJT).
void stamp_diode(Stamper& st, const Diode& d, int index, Assembled& out);
void stamp_bjt(Stamper& st, const Bjt& q, int index, Assembled& out);
void stamp_switch(Stamper& st, const Switch& sw, int index, int control_column, Assembled& out);
void stamp_comparator(Stamper& st, const Comparator& cmp, int index, int column, Assembled& out);
void stamp_mosfet(Stamper& st, const Mosfet& m, int index, Assembled& out);

// f(x) = Σ_i c_i max(0, x − a_i) ≈ x² for x ≥ 0 (AB08 §14.4.3): breakpoints a_i and slopes c_i.
struct PwlSquare {
  std::vector<double> a, c;
};
PwlSquare pwl_square(int segments, double vmax);
// Secants of x² through the given knots 0 = x_0 < x_1 < …, extended linearly.
PwlSquare pwl_square_knots(const std::vector<double>& x);

}  // namespace nsspice::circuit::detail
