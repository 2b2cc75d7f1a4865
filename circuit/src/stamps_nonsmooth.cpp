// Stamps of the nonsmooth devices (docs/devices.md, docs/formulation.md §1.2). Symbols: pair j with
// current/multiplier λ_j and complementary w_j = C_j x + D_j λ + d_j, 0 ≤ w ⊥ λ ≥ 0.
//
//   diode (a → k):    w1 = v_k − v_a + RON λ1 + VF,  current a → k = λ1
//   Zener (BV > 0):   w2 = v_a − v_k + RZ λ2 + BV,   reverse current k → a = λ2
//   SPICE diode:      one such pair per PWL segment (V_k, r_k) of each branch (pwl_diode.hpp);
//                     TT: stored charge q = TT·(Σ λ_forward − Σ λ_breakdown), its current
//                     dq/dt a → k (Stamper::stored_charge; not part of i(d), the junction
//                     current, as the capacitor's is not); with the excess
//                     (C_hi − C_lo)·λ_CJ of the depletion charge, λ_CJ = max(0, v_ak − V_k)
//                     (Stamper::charge_knots; C_lo is the capacitor "<d>.cj")
//   current limit:    w1 += λ3,  w3 = ILIMIT − λ1 ⊥ λ3  (LTspice's Ilimit; revIlimit alike)
//   switch (forced):  on: v_a − v_b − RON λ = 0;  off: λ − GOFF (v_a − v_b) = 0;  λ = i(a → b)
//   comparator:       v_o+ − v_o− = VLOW + ΔV λ1,  u = v_i+ − v_i−,
//                     w1 = 2ε λ1 − u − ε + λ2 ⊥ λ1,   w2 = 1 − λ1 ⊥ λ2   (λ1 = sat((u+ε)/2ε))
//   PWL MOS (NMOS):   I_ds = K/2 Σ c_i (λ_gs,i − λ_gd,i),  w = λ − (v_g − v_s|d) + a_i + VT,
//                     K = KP·W/L·(1 + λ·|v_ds|) at the initial point (LAMBDA; PMOS: source
//                     and drain roles mirrored, VT = −VTO)
//   VDMOS CGD:        the excess (C_hi − C_lo)·max(0, v_gd) (PMOS: v_dg) as a stored charge g → d
//                     (C_lo is the capacitor "<m>.cgd")
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "circuit/src/stamper.hpp"

namespace nsspice::circuit::detail {
namespace {

// One pair per PWL segment (V_k, r_k) of a branch (SPICE models), else the single ideal pair
// (threshold, r). Current `from` → `to`; returns the first pair.
int diode_branch(Stamper& st, const Diode& dd, int index, int from, int to,
                 const std::vector<PwlSegment>& segments, double threshold, double r, double sign,
                 DerivedSignal& current, const std::string& label) {
  const std::vector<PwlSegment> ideal = {{threshold, r}};
  const auto& pairs = segments.empty() ? ideal : segments;
  int first = -1;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const PwlSegment& s = pairs[k];
    // The pair's name in the event log: "forward", "breakdown", "forward 2/6" (segment 2 of 6).
    const std::string name = pairs.size() == 1 || label.empty()
                                 ? label
                                 : fmt::format("{} {}/{}", label, k + 1, pairs.size());
    const int j = st.new_pair(dd.name, index, s.threshold, false, name);
    if (first < 0) first = j;
    st.pair_current(from, to, j);
    st.pair_voltage(from, to, j);
    st.d.emplace_back(j, j, s.resistance);
    current.lambda_terms.push_back({j, sign});
  }
  return first;
}

// LTspice's current limit on the single pair j: an auxiliary pair l with
// w_j += λ_l,  w_l = ILIMIT − λ_j ⊥ λ_l  (λ_l = the voltage above the limit line).
void current_limit(Stamper& st, const Diode& dd, int index, int j, double limit,
                   const std::string& label) {
  const int l = st.new_pair(dd.name, index, limit, false, label);
  st.d.emplace_back(j, l, 1.0);
  st.d.emplace_back(l, j, -1.0);
}

}  // namespace

void stamp_diode(Stamper& st, const Diode& dd, int index, Assembled& out) {
  const DiodeModel& m = dd.model;
  DerivedSignal current{"i(" + dd.name + ")", {}, {}};
  const bool several = m.forward.size() > 1 || !m.reverse.empty() || m.bv > 0 || m.ilimit > 0;
  const int j = diode_branch(st, dd, index, dd.a, dd.k, m.forward, m.vf, m.ron, 1.0, current,
                             several ? "forward" : "");
  if (m.forward.empty() && m.ilimit > 0) current_limit(st, dd, index, j, m.ilimit, "limit");
  if (!m.reverse.empty() || m.bv > 0) {
    const int z =
        diode_branch(st, dd, index, dd.k, dd.a, m.reverse, m.bv, m.rz, -1.0, current, "breakdown");
    if (m.reverse.empty() && m.rev_ilimit > 0)
      current_limit(st, dd, index, z, m.rev_ilimit, "reverse limit");
  }
  std::vector<std::pair<int, double>> terms;  // the stored charge: TT·i and the CJ excess
  if (m.stored_charge > 0)
    for (const auto& [j, sign] : current.lambda_terms)
      terms.emplace_back(j, sign * m.stored_charge);
  for (const auto& t : st.charge_knots(m.cj, dd.name, index, dd.a, dd.k, "CJ")) terms.push_back(t);
  st.stored_charge(dd.name + ".q", dd.a, dd.k, terms, out);
  if (m.goff > 0) {
    st.conductance(st.g, dd.a, dd.k, m.goff);
    if (dd.a > 0) current.x_terms.push_back({Stamper::row(dd.a), m.goff});
    if (dd.k > 0) current.x_terms.push_back({Stamper::row(dd.k), -m.goff});
  }
  out.derived.push_back(std::move(current));
}

void stamp_switch(Stamper& st, const Switch& sw, int index, int control_column, Assembled& out) {
  const int j = st.new_pair(sw.name, index, 0.0, true);
  st.pair_current(sw.a, sw.b, j);
  st.pair_voltage(sw.b, sw.a, j);  // on row: v_a − v_b − RON λ = 0
  st.d.emplace_back(j, j, -sw.model.ron);
  if (sw.model.goff > 0) {  // off row: λ − GOFF (v_a − v_b) = 0
    if (sw.a > 0) st.c_off.emplace_back(j, Stamper::row(sw.a), -sw.model.goff);
    if (sw.b > 0) st.c_off.emplace_back(j, Stamper::row(sw.b), sw.model.goff);
  }
  out.derived.push_back({"i(" + sw.name + ")", {{j, 1.0}}, {}});
  SwitchInfo info{j,
                  {},
                  sw.model.threshold + sw.model.hysteresis,
                  sw.model.threshold - sw.model.hysteresis,
                  sw.initially_on};
  if (sw.model.current_controlled) {
    info.control.push_back({control_column, 1.0});
  } else {
    if (sw.cp > 0) info.control.push_back({Stamper::row(sw.cp), 1.0});
    if (sw.cn > 0) info.control.push_back({Stamper::row(sw.cn), -1.0});
  }
  out.switch_info.push_back(std::move(info));
}

void stamp_comparator(Stamper& st, const Comparator& cmp, int index, int column, Assembled&) {
  const auto& m = cmp.model;
  st.branch(cmp.op, cmp.on, column, 1.0);
  // λ1: the output above its lower level; λ2: the output held at its upper level (λ1 ≤ 1).
  const int j1 = st.new_pair(cmp.name, index, -m.eps, false, "lower");
  const int j2 = st.new_pair(cmp.name, index, 1.0, false, "upper");
  st.b.emplace_back(column, j1, m.vhigh - m.vlow);
  st.s.emplace_back(column, st.new_source(Dc{m.vlow}), 1.0);
  st.pair_voltage(cmp.ip, cmp.in, j1);  // w1 ∋ v_i− − v_i+ = −u
  st.d.emplace_back(j1, j1, 2 * m.eps);
  st.d.emplace_back(j1, j2, 1.0);
  st.d.emplace_back(j2, j1, -1.0);
}

void stamp_mosfet(Stamper& st, const Mosfet& mos, int index, Assembled& out) {
  const auto& m = mos.model;
  const PwlSquare f = !m.bias_law.a.empty() ? PwlSquare{m.bias_law.a, m.bias_law.c}
                      : m.knots.empty()     ? pwl_square(m.segments, m.vmax)
                                            : pwl_square_knots(m.knots);
  const double k_half = 0.5 * m.kp * m.lambda_factor * mos.w / mos.l;
  // NMOS: control terminals (g, s) and (g, d), current d → s. PMOS: (s, g) and (d, g), s → d.
  const int from = m.pmos ? mos.s : mos.d, to = m.pmos ? mos.d : mos.s;
  const double vt = m.pmos ? -m.vto : m.vto;
  const double sign_id = m.pmos ? -1.0 : 1.0;  // drain current into the drain terminal
  DerivedSignal id{"i(" + mos.name + ")", {}, {}};
  for (size_t i = 0; i < f.a.size(); ++i) {
    const double g = k_half * f.c[i];
    for (int side = 0; side < 2; ++side) {
      // side 0: x = v_g − v_s − VT (NMOS) / v_s − v_g − VT (PMOS); side 1: with d for s.
      const int other = side == 0 ? mos.s : mos.d;
      const int j = st.new_pair(mos.name, index, f.a[i] + vt, false,
                                (side == 0 ? "gs" : "gd") + std::to_string(i + 1));
      st.d.emplace_back(j, j, 1.0);
      if (m.pmos) {
        st.pair_voltage(other, mos.g, j);  // −(v_other − v_g)
      } else {
        st.pair_voltage(mos.g, other, j);  // −(v_g − v_other)
      }
      const double gain = side == 0 ? g : -g;
      st.pair_current(from, to, j, gain);
      id.lambda_terms.push_back({j, sign_id * gain});
    }
  }
  const int p = m.pmos ? mos.d : mos.g, n = m.pmos ? mos.g : mos.d;
  if (const auto terms = st.charge_knots(m.cgd, mos.name, index, p, n, "CGD"); !terms.empty())
    st.stored_charge(mos.name + ".cgd", p, n, terms, out);
  out.derived.push_back(std::move(id));
}

}  // namespace nsspice::circuit::detail
