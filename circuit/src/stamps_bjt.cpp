// Stamp of the PWL Ebers–Moll bipolar transistor (docs/devices.md, "Bipolar transistors"),
// injection form, on the internal nodes c, b, e (after RC, RB, RE). Symbols of
// docs/formulation.md: pair j with current λ_j, w_j = C_j x + D_jj λ_j + d_j, 0 ≤ w ⊥ λ ≥ 0.
//
//   i_DE = Σ_k λ_k   (B-E junction pairs: w_k = v_e − v_b + V_k + r_k λ_k, the PWL fit of
//                     v(i) = NF·Vt·ln(1 + α_F i/IS))
//   i_DC = Σ_k λ_k   (B-C junction pairs likewise, NR, α_R)
//   α_F = BF/(1 + BF),  α_R = BR/(1 + BR)
//
//   current into C:  I_C = α_F i_DE − i_DC
//   current into E:  I_E = α_R i_DC − i_DE
//   current into B:  I_B = (1 − α_F) i_DE + (1 − α_R) i_DC   (+ the ISE/NE, ISC/NC leak pairs)
//
// i.e. each junction pair carries (1 − α) λ through its own junction and α λ from the far
// terminal (the transport current α_F i_DE = IS(e^{v_be/NF Vt} − 1) C → E, α_R i_DC E → C).
// With VAF, IKF, ISE, ISC absent this is SPICE's Gummel–Poon model (ngspice bjtload.c with
// q_b = 1): I_C = I_F − I_R/α_R, I_B = I_F/BF + I_R/BR. PNP: every voltage and current reversed
// (the junctions conduct E → B and C → B).
//
// Stored charge (TF, TR): q_F = TF·α_F·i_DE from b to e, q_R = TR·α_R·i_DC from b to c
// (Stamper::stored_charge), SPICE's diffusion charges TF·I_F and TR·I_R, each with the excess of
// its junction's depletion PwlCharge (Stamper::charge_knots; the linear part C_lo is the capacitor
// "<q>.cje" / "<q>.cjc").
//
// GMIN (.options gmin, BjtModel::gmin) is a conductance across each junction, as SPICE's.
//
// Signals: i(q) = I_C (into the collector), ib(q) = I_B, ie(q) = I_E: the junction, GMIN and
// transport currents; the charges' currents (q(<q>.qbe), q(<q>.qbc) and the capacitors <q>.cje,
// <q>.cjc) flow besides them, as a diode's do.
#include <fmt/format.h>

#include <array>

#include "circuit/src/stamper.hpp"

namespace nsspice::circuit::detail {
namespace {

enum Terminal { kC = 0, kB = 1, kE = 2 };

// One junction: its own pairs p → n (current (1 − α) λ), the transport α λ from tp to tn.
struct Junction {
  Terminal p, n, tp, tn;
  double alpha;
  const std::vector<PwlSegment>* segments;
  const char* label;
};

using TerminalSignals = std::array<DerivedSignal, 3>;

// Adds the pairs of `j` (with gains for every terminal current) and returns them.
std::vector<int> junction_pairs(Stamper& st, const Bjt& q, int index, const Junction& j,
                                const std::array<int, 3>& node, TerminalSignals& signals) {
  std::vector<int> pairs;
  const auto& segs = *j.segments;
  for (std::size_t k = 0; k < segs.size(); ++k) {
    const int pair = st.new_pair(
        q.name, index, segs[k].threshold, false,
        segs.size() == 1 ? j.label : fmt::format("{} {}/{}", j.label, k + 1, segs.size()));
    st.pair_voltage(node[j.p], node[j.n], pair);
    st.d.emplace_back(pair, pair, segs[k].resistance);
    st.pair_current(node[j.p], node[j.n], pair, 1 - j.alpha);
    st.pair_current(node[j.tp], node[j.tn], pair, j.alpha);
    // Current into each terminal: +(1 − α) at p, −(1 − α) at n, +α at tp, −α at tn.
    std::array<double, 3> into{};
    into[j.p] += 1 - j.alpha, into[j.n] -= 1 - j.alpha, into[j.tp] += j.alpha,
        into[j.tn] -= j.alpha;
    for (int t = 0; t < 3; ++t)
      if (into[t] != 0) signals[t].lambda_terms.push_back({pair, into[t]});
    pairs.push_back(pair);
  }
  return pairs;
}

// SPICE's GMIN across the junction p → n (BjtModel::gmin): a conductance, whose current
// g (v_p − v_n) enters terminal p and leaves terminal n.
void junction_gmin(Stamper& st, double g, Terminal p, Terminal n, const std::array<int, 3>& node,
                   TerminalSignals& signals) {
  if (!(g > 0)) return;
  st.conductance(st.g, node[p], node[n], g);
  for (const auto& [t, sign] : {std::pair{p, 1.0}, std::pair{n, -1.0}}) {
    if (node[p] > 0) signals[t].x_terms.push_back({Stamper::row(node[p]), sign * g});
    if (node[n] > 0) signals[t].x_terms.push_back({Stamper::row(node[n]), -sign * g});
  }
}

// A leak diode (ISE/NE from B to E, ISC/NC from B to C; PNP reversed): pairs p → n, all base
// current.
void leak_pairs(Stamper& st, const Bjt& q, int index, Terminal p, Terminal n,
                const std::vector<PwlSegment>& segs, const std::array<int, 3>& node,
                const char* label, TerminalSignals& signals) {
  const Junction j{p, n, p, n, 0.0, &segs, label};
  junction_pairs(st, q, index, j, node, signals);
}

// The charge of a junction: τ·α·i (TF, TR) plus the excess of its depletion PwlCharge.
void charge(Stamper& st, const Bjt& q, int index, const std::vector<int>& pairs, double tau,
            double alpha, const PwlCharge& depletion, Terminal p, Terminal n,
            const std::array<int, 3>& node, const char* label, Assembled& out) {
  std::vector<std::pair<int, double>> terms;
  if (tau > 0)
    for (int j : pairs) terms.emplace_back(j, tau * alpha);
  const std::string name = q.name + "." + label;
  for (const auto& t : st.charge_knots(depletion, q.name, index, node[p], node[n], name))
    terms.push_back(t);
  st.stored_charge(name, node[p], node[n], terms, out);
}

}  // namespace

void stamp_bjt(Stamper& st, const Bjt& q, int index, Assembled& out) {
  const BjtModel& m = q.model;
  const std::array<int, 3> node = {q.c, q.b, q.e};
  const double af = m.bf / (1 + m.bf), ar = m.br / (1 + m.br);
  TerminalSignals signals = {DerivedSignal{"i(" + q.name + ")", {}, {}},
                             DerivedSignal{"ib(" + q.name + ")", {}, {}},
                             DerivedSignal{"ie(" + q.name + ")", {}, {}}};
  const bool npn = !m.pnp;
  const Junction be =
      npn ? Junction{kB, kE, kC, kE, af, &m.be, "B-E"} : Junction{kE, kB, kE, kC, af, &m.be, "E-B"};
  const Junction bc =
      npn ? Junction{kB, kC, kE, kC, ar, &m.bc, "B-C"} : Junction{kC, kB, kC, kE, ar, &m.bc, "C-B"};
  const std::vector<int> fwd = junction_pairs(st, q, index, be, node, signals);
  const std::vector<int> rev = junction_pairs(st, q, index, bc, node, signals);
  junction_gmin(st, m.gmin, be.p, be.n, node, signals);
  junction_gmin(st, m.gmin, bc.p, bc.n, node, signals);
  if (m.ise > 0) leak_pairs(st, q, index, be.p, be.n, m.be_leak.forward, node, "ISE", signals);
  if (m.isc > 0) leak_pairs(st, q, index, bc.p, bc.n, m.bc_leak.forward, node, "ISC", signals);
  charge(st, q, index, fwd, m.tf, af, m.cbe, be.p, be.n, node, "qbe", out);
  charge(st, q, index, rev, m.tr, ar, m.cbc, bc.p, bc.n, node, "qbc", out);
  for (DerivedSignal& s : signals) out.derived.push_back(std::move(s));
}

}  // namespace nsspice::circuit::detail
