// The after-run checks of the converted SPICE junction branches (pwl_range_check.hpp). Each
// branch's current i = Σ λ_j over its pairs (circuit/src/pwl_junctions.hpp) is tracked over the
// accepted points (its peak; and [i_lo, i_hi] over the second half of the run); A is a transistor's
// area, the fit is at area 1.
//
//   range:         peak > A·imax  → the last chord continues, the voltage bound is left
//   below range:   a diode's branch at its largest voltage v̂ over the run (v(a) − v(k), or
//                  v(k) − v(a) for breakdown; a transistor's junction, whose voltage is not
//                  kept: v̂ = v_PWL(peak)). Its PWL current i_p = i_PWL(v̂) below A·imin, the
//                  SPICE current i_s = A·i(v̂) at least kBelowRangeFloor·A·imin and
//                  kBelowRangeShare·(the largest current of all branches), and the drops
//                  |v_PWL(i) − v(i/A)| at i = i_p (i_s when i_p = 0) apart by more than
//                  PWLTOL·max(1, |v̂|) → the branch worked below its fit's range, off the bound
//                  (imax estimated far above the circuit's currents: a diode straight across a
//                  source; ngspice's VDMOS-DIO.sp: 1.63 mA at 0.5 V where SPICE gives 5 mA).
//   pair (DC):     two B-E junctions with PWL currents i1, i2 (emitters at one node) and the
//                  PWL's voltage difference Δv = v_PWL1(i1) − v_PWL2(i2): SPICE's share x of
//                  T = i1 + i2 from v1(x/A1) − v2((T − x)/A2) = Δv (bisection on [0, T]), the
//                  error e = i/x − 1 of each side with x ≥ kPairShareFloor·T; the offset
//                  Δv − (v1(i1/A1) − v2(i2/A2)) at the worst point.
//   saturation (DC): a transistor whose collector and emitter (outside RC, RE) a path of
//                  voltage sources and inductors joins, with PWL junction currents i_DE, i_DC
//                  (both ≥ A·imin) and leakages i_LE, i_LC. Ebers–Moll/Gummel–Poon (q_b = 1)
//                  with SPICE's junction currents at area A:
//                    I_B(v_be, v_bc) = (1 − α_F)·i_DE(v_be) + (1 − α_R)·i_DC(v_bc) + i_LE + i_LC
//                    I_C(v_be, v_bc) = α_F·i_DE(v_be) − i_DC(v_bc) − i_LC(v_bc)
//                  the PWL's are the same linear functions of its junction currents, which are
//                  SPICE's at v_be − δ_BE, v_bc − δ_BC (|δ| ≤ PWLTOL). The circuit holds v_ce
//                  and the base drive holds i_b, so compare at those: v_ce = v_PWL,BE(i_DE) −
//                  v_PWL,BC(i_DC), i_b the PWL's I_B; SPICE's v_be from I_B(v_be, v_be − v_ce) =
//                  i_b (increasing in v_be, bisected), I_C* = I_C(v_be, v_be − v_ce). The PWL's
//                  I_C is I_C*(i_b, v_ce − Δ), Δ = δ_BE − δ_BC. e = (I_C − I_C*)/s, s =
//                  max(|I_C*|, i_b). At v_ce = 0 with equal NF, NR and no leakage,
//                  I_C* = −i_b·BF/(BF + BR) whatever the junction laws (i_F = i_R there).
//                  Suggested PWLTOL Δ*/2: Δ* bisected so max over ± of |I_C*(i_b, v_ce ± Δ*) −
//                  I_C*(i_b, v_ce)| = 0.02·s, the smallest over the saturated points.
#include "circuit/src/pwl_range_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "circuit/src/graph.hpp"
#include "circuit/src/pwl_conversion.hpp"

namespace nsspice::circuit::detail {

PwlRangeCheck::PwlRangeCheck(const Circuit& circuit, const Assembled& assembled, double settled)
    : settled_(settled), tol_(circuit.pwl.tol), pwl_(&circuit.pwl) {
  for (JunctionBranch& j : junction_branches(circuit, assembled)) {
    PwlCurve curve{junction_segments(circuit, j)};
    Watch w{std::move(j), std::move(curve)};
    if (const auto* d = std::get_if<Diode>(&circuit.devices[w.junction.device])) {
      const bool forward = w.junction.label == "forward";
      w.plus = forward ? d->a : d->k;
      w.minus = forward ? d->k : d->a;
      w.has_voltage = true;
    }
    watches_.push_back(std::move(w));
  }
  if (!std::isfinite(settled)) {  // a DC sweep: the pair and saturation checks, no split check
    add_pairs(circuit);
    add_saturated(circuit);
    return;
  }
  for (size_t m = 0; m < watches_.size(); ++m) {
    const JunctionBranch& a = watches_[m].junction;
    const auto* q = std::get_if<Bjt>(&circuit.devices[a.device]);
    if (q == nullptr) continue;
    const bool be = a.label == "B-E" || a.label == "E-B", bc = a.label == "B-C" || a.label == "C-B";
    if (!be && !bc) continue;
    for (size_t l = 0; l < watches_.size(); ++l)
      if (watches_[l].junction.device == a.device &&
          watches_[l].junction.label == (be ? "ISE" : "ISC"))
        splits_.push_back({m, l, 1 + (be ? q->model.bf : q->model.br)});
  }
}

namespace {

// A transistor's internal node n outside its resistor "<q><suffix>" (".re", ".rc"), else n.
int outer_node(const Circuit& circuit, const Bjt& q, int n, const char* suffix) {
  const std::string name = q.name + suffix;
  for (const Device& d : circuit.devices)
    if (const auto* r = std::get_if<Resistor>(&d); r != nullptr && r->name == name)
      return r->a == n ? r->b : r->a;
  return n;
}

// A transistor's emitter node outside RE (its "<q>.re" resistor), else its own.
int outer_emitter(const Circuit& circuit, const Bjt& q) {
  return outer_node(circuit, q, q.e, ".re");
}

// SPICE's share x of the total t of two junctions (area 1 branches a, b of areas aa, ab) whose
// voltages differ by dv: v_a(x/aa) − v_b((t − x)/ab) = dv, increasing in x, bisected.
double spice_share(const ExpBranch& a, double aa, const ExpBranch& b, double ab, double t,
                   double dv) {
  double lo = 0, hi = t;
  for (int k = 0; k < 200 && hi - lo > kSplitPrecision * 1e-3 * t; ++k) {
    const double x = 0.5 * (lo + hi);
    (a.voltage(x / aa) - b.voltage((t - x) / ab) < dv ? lo : hi) = x;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

void PwlRangeCheck::add_pairs(const Circuit& circuit) {
  std::vector<std::pair<size_t, int>> be;  // B-E watches and their emitter nodes
  for (size_t m = 0; m < watches_.size(); ++m) {
    const JunctionBranch& j = watches_[m].junction;
    const auto* q = std::get_if<Bjt>(&circuit.devices[j.device]);
    if (q == nullptr || (j.label != "B-E" && j.label != "E-B")) continue;
    if (const int e = outer_emitter(circuit, *q); e != 0) be.emplace_back(m, e);
  }
  for (size_t k = 0; k < be.size(); ++k)
    for (size_t l = k + 1; l < be.size(); ++l)
      if (be[k].second == be[l].second &&
          watches_[be[k].first].junction.label == watches_[be[l].first].junction.label)
        pairs_.push_back(
            {be[k].first, be[l].first, circuit.nodes[be[k].second], 0, 0, 0, 0, 0, {}});
}

void PwlRangeCheck::add_saturated(const Circuit& circuit) {
  UnionFind held(static_cast<int>(circuit.nodes.size()));  // nodes joined by sources, inductors
  for (const Device& d : circuit.devices) {
    if (const auto* v = std::get_if<VoltageSource>(&d)) held.unite(v->p, v->n);
    if (const auto* l = std::get_if<Inductor>(&d)) held.unite(l->a, l->b);
  }
  std::vector<Saturated> found(circuit.devices.size());
  for (size_t m = 0; m < watches_.size(); ++m) {
    const JunctionBranch& j = watches_[m].junction;
    const auto* q = std::get_if<Bjt>(&circuit.devices[j.device]);
    if (q == nullptr) continue;
    Saturated& s = found[j.device];
    if (j.label == "B-E" || j.label == "E-B") s.be = m + 1;  // 0: not seen yet
    if (j.label == "B-C" || j.label == "C-B") s.bc = m + 1;
    if (j.label == "ISE") s.be_leak = m;
    if (j.label == "ISC") s.bc_leak = m;
  }
  for (size_t k = 0; k < found.size(); ++k) {
    Saturated& s = found[k];
    const auto* q = std::get_if<Bjt>(&circuit.devices[k]);
    if (q == nullptr || s.be == 0 || s.bc == 0) continue;
    if (held.find(outer_node(circuit, *q, q->c, ".rc")) != held.find(outer_emitter(circuit, *q)))
      continue;
    s.be -= 1, s.bc -= 1;
    s.alpha_f = q->model.bf / (1 + q->model.bf), s.alpha_r = q->model.br / (1 + q->model.br);
    s.node = circuit.nodes[static_cast<size_t>(outer_node(circuit, *q, q->c, ".rc"))];
    saturated_.push_back(std::move(s));
  }
}

void PwlRangeCheck::add(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda) {
  auto node = [&](int n) { return n > 0 ? x[n - 1] : 0.0; };
  for (Watch& w : watches_) {
    double i = 0;
    for (int j : w.junction.pairs) i += lambda[j];
    w.i_now = i;
    w.peak = std::max(w.peak, i);
    if (w.has_voltage) w.v_peak = std::max(w.v_peak, node(w.plus) - node(w.minus));
    if (t < settled_) continue;
    if (w.seen) {
      w.charge += 0.5 * (i + w.i_last) * (t - w.t_last);
      w.span += t - w.t_last;
    }
    w.t_last = t, w.i_last = i;
    w.lo = w.seen ? std::min(w.lo, i) : i;
    w.hi = w.seen ? std::max(w.hi, i) : i;
    w.seen = true;
  }
  for (Split& s : splits_) {
    const JunctionBranch &m = watches_[s.main].junction, &l = watches_[s.leak].junction;
    const double i_m = std::max(0.0, watches_[s.main].i_now);
    const double i_b = i_m / s.k + std::max(0.0, watches_[s.leak].i_now), a = m.area;
    double p = 0;  // e·i_m
    if (i_m > a * m.imin) {
      // SPICE's junction current x for the base current i_b: v_m(x/A) − v_l((i_b − x/k)/A) rises.
      // Newton's method from the PWL's own i_m, kept inside the bracket [lo, hi] that the signs
      // of f(x) = v_m(x/A) − v_l((i_b − x/k)/A) (increasing) narrow, bisecting when a step
      // leaves it; until x moves by less than 1e-6 of itself (e to 1e-6, against
      // kSplitTolerance): a few steps (60 at most).
      double lo = 0, hi = s.k * i_b;
      double x = std::clamp(i_m, 1e-12 * hi, hi);
      for (int k = 0; k < 60; ++k) {
        const double il = (i_b - x / s.k) / a;
        const double f = m.branch.voltage(x / a) - l.branch.voltage(il);
        (f < 0 ? lo : hi) = x;
        const double slope = m.branch.slope(x / a) / a + l.branch.slope(il) / (a * s.k);
        double next = slope > 0 ? x - f / slope : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        const bool done = std::abs(next - x) <= kSplitPrecision * x;
        x = next;
        if (done) break;
      }
      if (x > 0) p = (i_m / x - 1) * i_m;
    }
    if (s.seen) {
      s.weighted += 0.5 * (p + s.p_last) * (t - s.t_last);
      s.weight += 0.5 * (i_m + s.w_last) * (t - s.t_last);
    }
    s.t_last = t, s.p_last = p, s.w_last = i_m, s.seen = true;
  }
  for (Pair& p : pairs_) {
    const Watch &w1 = watches_[p.first], &w2 = watches_[p.second];
    const double i1 = std::max(0.0, w1.i_now), i2 = std::max(0.0, w2.i_now), total = i1 + i2;
    const JunctionBranch &j1 = w1.junction, &j2 = w2.junction;
    if (!(i1 > j1.area * j1.imin) || !(i2 > j2.area * j2.imin)) continue;
    const double dv = w1.curve.voltage(i1) - w2.curve.voltage(i2);
    const double x1 = spice_share(j1.branch, j1.area, j2.branch, j2.area, total, dv);
    const double xs[2] = {x1, total - x1}, is[2] = {i1, i2};
    for (size_t k = 0; k < 2; ++k) {
      if (!(xs[k] >= kPairShareFloor * total)) continue;
      const double e = is[k] / xs[k] - 1;
      if (!(std::abs(e) > std::abs(p.worst))) continue;
      p.worst = e, p.i_pwl = is[k], p.i_spice = xs[k], p.at = k;
      p.where = where_.empty() ? fmt::format("point {:g}", t) : where_;
      // The fits' error in the voltage difference at the PWL's own currents.
      p.offset = dv - (j1.branch.voltage(i1 / j1.area) - j2.branch.voltage(i2 / j2.area));
    }
  }
  for (Saturated& q : saturated_) check_saturated(q, t);
}

namespace {

std::string small_signal_warning(const JunctionBranch& j, const PwlCurve& curve, double lo,
                                 double hi, double mean) {
  const double a = j.area;
  if (!(lo >= a * j.imin) || !(hi <= a * j.imax)) return "";
  const ActiveSegment s_lo = active_segment(curve, lo), s_hi = active_segment(curve, hi);
  if (s_lo.index != s_hi.index) return "";

  const double r = s_lo.resistance, r_spice = j.branch.slope(mean / a) / a;
  if (std::abs(r / r_spice - 1) <= kSmallSignalTolerance) return "";
  // A slope the SPICE curve takes within the excursion (v' falls with i): a large signal that
  // sees the curve's mean slope, not a small one off the bias.
  if (r >= j.branch.slope(hi / a) / a && r <= j.branch.slope(lo / a) / a) return "";
  return fmt::format(
      "{} (model '{}'): over the second half of the run the {} current stayed within one PWL "
      "segment ({}–{}, average {}), whose incremental resistance {} differs from the SPICE "
      "model's {} at that average by {:+.0f} %: small-signal gains through this junction are "
      "off by about as much (the segment at the initial point's current is made tangent, a bias "
      "knot; here the run settled elsewhere: set .options pwltol smaller)",
      j.name, j.model, j.label, si(lo, "A"), si(hi, "A"), si(mean, "A"), si(r, "Ω"),
      si(r_spice, "Ω"), 100 * (r / r_spice - 1));
}

// The SPICE branch's current at v (area 1): v(i) is increasing, bisected in ln i below `hi`.
double spice_current(const ExpBranch& b, double v, double hi) {
  if (!(b.voltage(1e-30) < v)) return 0.0;
  if (!(b.voltage(hi) > v)) return hi;  // at or above `hi`
  double lo = 1e-30;
  for (int k = 0; k < 200 && hi / lo > 1 + 1e-9; ++k) {
    const double mid = std::sqrt(lo * hi);
    (b.voltage(mid) < v ? lo : hi) = mid;
  }
  return lo;
}

// The SPICE branch's current at v (area 1): the closed form of a Shockley branch without RS
// (−I0 below), else spice_current's bisection.
double branch_current(const ExpBranch& b, double v) {
  if (!b.extended() && b.rs == 0) return b.i0 * (std::exp((v - b.v0) / b.nvt) - b.c);
  return spice_current(b, v, 1e6);
}

// SPICE's transistor (header: saturation) from its junction watches' branches.
struct SpiceBjt {
  const JunctionBranch *be, *bc, *le, *lc;  // le, lc: null without ISE, ISC
  double af, ar;
  // I_B and I_C at the junction voltages v_be, v_bc (junction space: v_eb, v_cb for a PNP).
  std::pair<double, double> currents(double vbe, double vbc) const {
    auto i = [](const JunctionBranch* j, double v) {
      return j == nullptr ? 0.0 : j->area * branch_current(j->branch, v);
    };
    const double ide = i(be, vbe), idc = i(bc, vbc), ile = i(le, vbe), ilc = i(lc, vbc);
    return {(1 - af) * ide + (1 - ar) * idc + ile + ilc, af * ide - idc - ilc};
  }
  // I_C at the base current ib and v_ce: v_be from I_B(v_be, v_be − v_ce) = ib (increasing),
  // bisected in [guess − 0.5, guess + 0.5] V to 1 nV.
  double collector(double ib, double vce, double guess) const {
    double lo = guess - 0.5, hi = guess + 0.5;
    for (int k = 0; k < 80 && hi - lo > 1e-9; ++k) {
      const double v = 0.5 * (lo + hi);
      (currents(v, v - vce).first < ib ? lo : hi) = v;
    }
    const double v = 0.5 * (lo + hi);
    return currents(v, v - vce).second;
  }
};

}  // namespace

void PwlRangeCheck::check_saturated(Saturated& q, double t) {
  const Watch &we = watches_[q.be], &wc = watches_[q.bc];
  const double ide = std::max(0.0, we.i_now), idc = std::max(0.0, wc.i_now);
  if (!(ide > we.junction.area * we.junction.imin) || !(idc > wc.junction.area * wc.junction.imin))
    return;  // not saturated
  const size_t none = static_cast<size_t>(-1);
  const Watch* le = q.be_leak == none ? nullptr : &watches_[q.be_leak];
  const Watch* lc = q.bc_leak == none ? nullptr : &watches_[q.bc_leak];
  const double ile = le == nullptr ? 0.0 : std::max(0.0, le->i_now);
  const double ilc = lc == nullptr ? 0.0 : std::max(0.0, lc->i_now);
  const double ib = (1 - q.alpha_f) * ide + (1 - q.alpha_r) * idc + ile + ilc;
  const double ic = q.alpha_f * ide - idc - ilc;
  const double vbe = we.curve.voltage(ide), vce = vbe - wc.curve.voltage(idc);
  const SpiceBjt spice{&we.junction,
                       &wc.junction,
                       le == nullptr ? nullptr : &le->junction,
                       lc == nullptr ? nullptr : &lc->junction,
                       q.alpha_f,
                       q.alpha_r};
  const double ic_spice = spice.collector(ib, vce, vbe);
  const double scale = std::max(std::abs(ic_spice), ib);
  if (!(scale > 0)) return;
  const double e = (ic - ic_spice) / scale;
  if (std::abs(e) > std::abs(q.worst)) {
    q.worst = e, q.i_pwl = ic, q.i_spice = ic_spice, q.i_b = ib, q.v_ce = vce;
    q.where = where_.empty() ? fmt::format("point {:g}", t) : where_;
  }
  // Δ*: the shift of v_ce that moves SPICE's I_C by 2 % of the scale (increasing in Δ).
  auto moved = [&](double d) {
    return std::max(std::abs(spice.collector(ib, vce + d, vbe) - ic_spice),
                    std::abs(spice.collector(ib, vce - d, vbe) - ic_spice));
  };
  double lo = 0, hi = 0.2;
  if (moved(hi) <= 0.02 * scale) {  // insensitive within 200 mV
    q.pwltol = std::min(q.pwltol, 0.5 * hi);
    return;
  }
  for (int k = 0; k < 40 && hi - lo > 1e-3 * hi; ++k) {
    const double d = 0.5 * (lo + hi);
    (moved(d) < 0.02 * scale ? lo : hi) = d;
  }
  q.pwltol = std::min(q.pwltol, 0.5 * lo);
}

PwlRangeCheck::Worst PwlRangeCheck::worst_point(const Watch& w) const {
  const JunctionBranch& j = w.junction;
  Worst p;
  if (w.has_voltage) {
    p.v = w.v_peak;
    p.i_pwl = std::max(0.0, w.curve.current(p.v));
  } else if (w.peak > 0) {
    p.v = w.curve.voltage(w.peak);
    p.i_pwl = w.peak;
  } else {
    return p;  // a junction that never conducted: nothing known of its voltage
  }
  p.i_spice = j.area * spice_current(j.branch, p.v, 1e3 * j.imax);
  return p;
}

namespace {

// A range left: the warning, what the run met and the imin or imax that covers it.
struct Left {
  std::string warning, met;
  double imin = 0, imax = 0;
};

// Empty unless the branch worked below imin (header) with its drop off the bound.
Left below_range(const JunctionBranch& j, const PwlCurve& curve, const PwlRangeCheck::Worst& p,
                 double largest, double pwltol) {
  const double imin = j.area * j.imin;
  if (!(p.i_pwl < imin) || !(p.i_spice >= kBelowRangeFloor * imin) ||
      p.i_spice < kBelowRangeShare * largest)
    return {};
  const double i = p.i_pwl > 0 ? p.i_pwl : p.i_spice;
  const double dv = curve.voltage(i) - j.branch.voltage(i / j.area);
  const double bound = pwltol * std::max(1.0, std::abs(p.v));
  if (!(std::abs(dv) > bound)) return {};
  Left out;
  out.imin = 0.1 * (p.i_pwl > 0 ? std::min(p.i_pwl, p.i_spice) : p.i_spice) / j.area;
  out.imax = j.imax;
  out.warning = fmt::format(
      "{} (model '{}'): at its largest {} voltage, {:.4g} V, the PWL conducts {}, below the "
      "range of its fit (imin = {}), and the SPICE model {}: their drops at {} differ by "
      "{:+.0f} mV, beyond the {:.0f} mV bound; set .options pwlimin={:.2g} and run again",
      j.name, j.model, j.label, p.v, si(p.i_pwl, "A"), si(imin, "A"), si(p.i_spice, "A"),
      si(i, "A"), 1e3 * dv, 1e3 * bound, out.imin);
  out.met = fmt::format("{}'s {} current at {:.4g} V: {} by the SPICE model, below imin {}", j.name,
                        j.label, p.v, si(p.i_spice, "A"), si(imin, "A"));
  return out;
}

// Empty unless the branch's current went above imax.
Left above_range(const JunctionBranch& j, double peak) {
  const double imax = j.area * j.imax;
  if (!(peak > imax)) return {};
  Left out;
  out.imin = j.imin;
  out.imax = 2 * peak / j.area;
  out.warning = fmt::format(
      "{} (model '{}'): the {} current reached {:.3g} A, above the range of its PWL fit "
      "(imax = {:.3g} A), where the voltage error bound does not hold; set .options "
      "pwlimax={:.2g} and run again",
      j.name, j.model, j.label, peak, imax, out.imax);
  out.met = fmt::format("{}'s {} current reached {}, above imax {}", j.name, j.label, si(peak, "A"),
                        si(imax, "A"));
  return out;
}

}  // namespace

void PwlRangeCheck::warn(std::vector<std::string>& warnings,
                         std::vector<PwlRangeMiss>* misses) const {
  std::vector<Worst> worst;
  double largest = 0;
  for (const Watch& w : watches_) {
    worst.push_back(worst_point(w));
    largest = std::max({largest, w.peak, worst.back().i_spice});
  }
  for (size_t k = 0; k < watches_.size(); ++k) {
    const Watch& w = watches_[k];
    const JunctionBranch& j = w.junction;
    const bool above = w.peak > j.area * j.imax;
    Left left = above ? above_range(j, w.peak) : below_range(j, w.curve, worst[k], largest, tol_);
    if (!left.warning.empty()) {
      warnings.push_back(left.warning);
      if (misses == nullptr) continue;
      PwlRangeMiss miss;
      miss.model = j.model;  // lower case, as every name of the circuit
      const bool refit = pwl_->refit.count(miss.model) > 0;
      miss.user_range = !refit && (above ? pwl_->imax > 0 : pwl_->imin > 0);
      miss.warning = std::move(left.warning);
      miss.met = std::move(left.met);
      miss.imin = left.imin;
      miss.imax = left.imax;
      misses->push_back(std::move(miss));
    } else if (w.seen)
      if (std::string s =
              small_signal_warning(j, w.curve, w.lo, w.hi, w.span > 0 ? w.charge / w.span : w.lo);
          !s.empty())
        warnings.push_back(std::move(s));
  }
  for (const Split& s : splits_) {
    if (!(s.weight > 0)) continue;
    const double mean = s.weighted / s.weight;
    if (!(std::abs(mean) > kSplitTolerance)) continue;
    const JunctionBranch &m = watches_[s.main].junction, &l = watches_[s.leak].junction;
    warnings.push_back(fmt::format(
        "{} (model '{}'): its {} junction and its {} leakage share the base current by their PWL "
        "fits, each within PWLTOL ({}) of SPICE's voltage, which moves the share: over the run "
        "the {} current, and with it the collector current, was on average {:+.1f} % off "
        "SPICE's share of the same base current; set .options pwltol={:.2g} and run again (the "
        "error is about proportional to PWLTOL)",
        m.name, m.model, m.label, l.label, si(tol_, "V"), m.label, 100 * mean,
        tol_ * 0.02 / std::abs(mean)));
  }
  for (const Pair& p : pairs_) {
    if (!(std::abs(p.worst) > kSplitTolerance)) continue;
    const JunctionBranch &a = watches_[p.first].junction, &b = watches_[p.second].junction;
    const JunctionBranch& worst = p.at == 0 ? a : b;
    warnings.push_back(fmt::format(
        "{} and {} (emitters joined at node '{}'): their {} junctions share the emitter current "
        "by their PWL fits, each within PWLTOL ({}) of SPICE's voltage: at {}, the fits' "
        "voltage difference is {:+.2g} mV off SPICE's at the same currents, and at the same "
        "difference SPICE's junctions share the same total with {} for {}'s {} current where "
        "the PWL has {} ({:+.1f} %). Where the circuit sets the voltage difference (an open-loop "
        "pair) the collector currents are off by as much; in a feedback loop, which sets the "
        "currents, the pair's offset voltage is off by the {:+.2g} mV instead. Set .options "
        "pwltol={:.2g} and run again (two fits within PWLTOL move the share by at most a factor "
        "e^(2·PWLTOL/(NF·Vt)): 2 % at that PWLTOL)",
        a.name, b.name, p.node, a.label, si(tol_, "V"), p.where, 1e3 * p.offset, si(p.i_spice, "A"),
        worst.name, worst.label, si(p.i_pwl, "A"), 100 * p.worst, 1e3 * p.offset,
        0.5 * std::min(a.branch.nvt, b.branch.nvt) * std::log(1.02)));
  }
  for (const Saturated& q : saturated_) {
    if (!(std::abs(q.worst) > kSplitTolerance)) continue;
    const JunctionBranch& j = watches_[q.be].junction;
    warnings.push_back(fmt::format(
        "{} (model '{}'): saturated with its collector–emitter voltage held by the circuit "
        "(collector at node '{}'): its collector current is the difference of the two "
        "junctions' transport currents, set by their PWL fits, each within PWLTOL ({}) of "
        "SPICE's voltage: at {}, with v_ce = {:.4g} V and base current {}, SPICE's junctions "
        "give I_C = {} where the PWL has {} ({:+.1f} % of max(|I_C|, I_B)). Set .options "
        "pwltol={:.2g} and run again (the fits' errors shift the transistor's v_ce by up to "
        "2·PWLTOL: 2 % of that current at that PWLTOL)",
        j.name, j.model, q.node, si(tol_, "V"), q.where, q.v_ce, si(q.i_b, "A"), si(q.i_spice, "A"),
        si(q.i_pwl, "A"), 100 * q.worst, q.pwltol));
  }
}

}  // namespace nsspice::circuit::detail
