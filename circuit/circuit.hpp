#pragma once
// The elaborated circuit: nodes numbered (0 = ground), devices with their values checked and
// source waveforms completed with SPICE defaults. Built from the syntax tree by elaborate();
// turned into matrices by assemble(). Adding a device = one struct in `Device` plus one stamp.
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "circuit/pwl_diode.hpp"
#include "circuit/pwl_mos.hpp"
#include "circuit/waveform.hpp"
#include "netlist/source.hpp"
#include "solvers/lcp/policy.hpp"

namespace nsspice::circuit {

// A model parameter that was not given (NaN).
inline constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();

// A convex PWL charge from a to k (docs/devices.md, "Capacitances"; circuit/junction_charge.hpp):
//   q(v) = c_lo·v + Σ_k dc_k·max(0, v − v_k),   v = v_a − v_k,
// i.e. a linear capacitor c_lo (a device of its own) and, per knot v_k (ascending), one
// complementarity pair λ_k = max(0, v − v_k) of the owning device with the stored charge dc_k·λ_k.
struct PwlCharge {
  struct Knot {
    double v = 0, dc = 0;  // [V], [F]
  };
  double c_lo = 0;          // [F]: the capacitor of the charge
  std::vector<Knot> knots;  // each one complementarity pair of its device
  double c_hi() const {     // the slope above the last knot
    double c = c_lo;
    for (const Knot& k : knots) c += k.dc;
    return c;
  }
  double excess() const { return c_hi() - c_lo; }
  void scale(double f) {
    c_lo *= f;
    for (Knot& k : knots) k.dc *= f;
  }
};

struct Resistor {
  std::string name;  // lower case, as every name here
  int a = 0, b = 0;
  double r = 0;  // Ω, > 0
};
struct Capacitor {
  std::string name;
  int a = 0, b = 0;
  double c = 0;              // F, > 0
  std::optional<double> ic;  // initial v_a − v_b (UIC)
};
struct Inductor {
  std::string name;
  int a = 0, b = 0;
  double l = 0;              // H, > 0
  std::optional<double> ic;  // initial current a → b (UIC)
};
// `dc`: a DC value written beside a transient function (`V1 in 0 DC 0 PULSE(0.1 0.2 ...)`). As
// in SPICE, .op, .dc and the operating point of .ac use it; .tran starts from the transient
// function's value at t = 0 (static_source_values in circuit/assemble.hpp).
struct VoltageSource {
  std::string name;
  int p = 0, n = 0;  // v_p − v_n = V(t); branch current p → n through the source
  Waveform wave;
  double ac_mag = 0, ac_phase_deg = 0;  // AC mag [phase]: the .ac excitation
  std::optional<double> dc = std::nullopt;
};
struct CurrentSource {
  std::string name;
  int p = 0, n = 0;  // current I(t) flows from p through the source to n
  Waveform wave;
  double ac_mag = 0, ac_phase_deg = 0;  // AC mag [phase]: the .ac excitation
  std::optional<double> dc = std::nullopt;
};
// A SPICE diode's RS goes into a resistor of its own, with the junction behind it, when RS·CJO is
// at least this share of the print step (DiodeModel::series_r).
inline constexpr double kSeriesSplitShare = 0.1;
struct DiodeModel {
  std::string name;
  double vf = 0;    // forward voltage [V] ≥ 0
  double ron = 0;   // on resistance [Ω] ≥ 0
  double goff = 0;  // off conductance [S] ≥ 0 (a resistor in parallel)
  double bv = 0;    // reverse breakdown voltage [V] > 0 makes it a Zener; 0: none
  double rz = 0;    // resistance in breakdown [Ω] ≥ 0
  // LTspice idealized diode: current limits [A] (0: none), each one more pair (a box).
  double ilimit = 0, rev_ilimit = 0;
  // SPICE level-1 parameters (ngspice defaults), used when `spice` (docs/devices.md).
  bool spice = false;
  double is = 1e-14, n = 1, rs = 0, ibv = 1e-3, nbv = 0;  // nbv 0: N
  double cjo = 0, vj = 1, m = 0.5, fc = 0.5, tt = 0;
  double isr = 0, nr = 2, ikf = 0;  // recombination current, its N, high-injection knee
  double eg = 1.11, xti = 3;        // temperature: IS(T) (circuit/spice_temperature.hpp)
  double tnom = kUnset;             // [°C]; unset: .options tnom
  double tcv = 0, trs1 = 0, trs2 = 0;  // BV(T) = BV − TCV·ΔT, RS(T) = RS·(1 + TRS1 ΔT + TRS2 ΔT²)
  // The PWL pairs made from them (circuit/pwl_diode.hpp); empty: the ideal pairs VF/RON, BV/RZ.
  std::vector<PwlSegment> forward = {}, reverse = {};
  double stored_charge = 0;  // TT as stamped [s]: q = TT·i through the pairs (0: none)
  PwlCharge cj = {};         // the depletion charge as stamped (CJO VJ M at .temp)
  // RS(T) as the resistor "<d>.rs" to the internal node "<d>.j", the pairs and charges from
  // there (RS·CJO ≥ kSeriesSplitShare·TSTEP: the junction's charge behind RS, as in SPICE);
  // 0: RS inside the PWL branch (pwl_models.cpp).
  double series_r = 0;
  // The instance scaling this copy of the card carries (Elaborator::diode_instance_model): AREA
  // and M of the instances that use it; 1, 1: the card as written. `card`: the .model card's
  // name (a MOSFET's "<card>.bulk"/".body"), empty when `name` is that card.
  double area = 1, mult = 1;
  std::string card = {};
  const std::string& card_name() const { return card.empty() ? name : card; }
};
struct Diode {
  std::string name;
  int a = 0, k = 0;  // anode, cathode
  DiodeModel model;
};
struct SwitchModel {
  std::string name;
  bool current_controlled = false;  // CSW (W element) rather than SW (S element)
  double threshold = 0;             // VT [V] or IT [A]
  double hysteresis = 0;            // VH [V] or IH [A]: on above VT + VH, off below VT − VH
  double ron = 0;                   // [Ω] ≥ 0; 0 = ideal
  double goff = 0;                  // 1/ROFF [S] ≥ 0; 0 = ideal (ROFF = ∞)
  bool inverted = false;  // on below VT − VH (PSpice's VSWITCH with VON < VOFF): an S element
                          // is elaborated with its control nodes swapped and −VT
};
struct Switch {
  std::string name;
  int a = 0, b = 0;     // switched branch, current a → b
  int cp = 0, cn = 0;   // S: control voltage v(cp) − v(cn)
  std::string control;  // W: the voltage source whose current controls it
  SwitchModel model;
  bool initially_on = false;  // state while the control is inside the hysteresis band
};
struct ComparatorModel {
  std::string name;
  double vlow = 0, vhigh = 1;  // output levels [V]
  double eps = 0;              // half-width of the linear band [V]; 0 = ideal relay
};
struct Comparator {  // E name out+ out- in+ in- COMPMODEL
  std::string name;
  int op = 0, on = 0, ip = 0, in = 0;
  ComparatorModel model;
};
struct Vcvs {  // E: v(p) − v(n) = gain (v(cp) − v(cn))
  std::string name;
  int p = 0, n = 0, cp = 0, cn = 0;
  double gain = 0;
};
struct Vccs {  // G: current gm (v(cp) − v(cn)) from p through the source to n
  std::string name;
  int p = 0, n = 0, cp = 0, cn = 0;
  double gm = 0;
};
struct Cccs {  // F: current gain·i(control) from p through the source to n
  std::string name;
  int p = 0, n = 0;
  std::string control;
  double gain = 0;
};
struct Ccvs {  // H: v(p) − v(n) = r·i(control)
  std::string name;
  int p = 0, n = 0;
  std::string control;
  double r = 0;
};
struct Mutual {  // K: M = k sqrt(L1 L2)
  std::string name;
  std::string l1, l2;
  double k = 0;
};
struct MosModel {
  std::string name;
  bool pmos = false;
  double kp = 2e-5;  // transconductance parameter [A/V²]
  double vto = 0;    // threshold [V] (negative for PMOS, as in SPICE)
  int segments = 6;  // PWL segments of f(x) ≈ x² (6: the AB08 §14.4.3 table)
  double vmax = 5;   // for segments ≠ 6: breakpoints spread on [0, vmax]
  // SPICE level 1 (docs/devices.md): knots of f from PWLTOL (circuit/pwl_mos.hpp) when SEGMENTS
  // is not given; RD, RS: series resistors to internal nodes; LAMBDA: K times lambda_factor =
  // 1 + λ·|v_ds| at the initial point (pwl_mos_bias.cpp); IS: the bulk diodes (`body`).
  bool spice = false;
  double lambda = 0, rd = 0, rs = 0;
  double lambda_factor = 1;
  double bias_x = 0;               // the bias overdrive x0 of a bias knot (0: none)
  SquareLawPairs bias_law = {};    // with a bias knot (pwl_mos_bias.cpp): f as stamped
  std::vector<double> knots = {};  // secant knots of f(x) ≈ x²; empty: SEGMENTS/VMAX or the table
  // ngspice's VDMOS (docs/devices.md): K = KP (no W/L), RG, RDS, CGS, CGD from CGDMAX CGDMIN A,
  // and the body diode (a SPICE diode from source to drain, `body`).
  bool vdmos = false;
  double rg = 0, rds = 0;                         // [Ω]; 0: none
  double cgs = 0, cgdmax = 0, cgdmin = 0, a = 1;  // [F], A [1/V]
  PwlCharge cgd = {};                             // CGD as stamped (pwl_transistors.cpp)
  double mu = -1.5, tcvth = 0, tnom = kUnset;     // KP(T) = KP (T/TNOM)^MU, VTO − TCVTH ΔT
  double ksubthres = 0.1;  // ngspice's weak-inversion rounding width [V] (reported, not modelled)
  DiodeModel body = {};
  // The instance multiplier M this copy of the card carries (Elaborator::mos_instance_model):
  // KP, CGS, CGD and the body diodes times M, RD, RS, RG, RDS over it; 1: the card as written.
  // `card`: the .model card's name, empty when `name` is that card.
  double mult = 1;
  std::string card = {};
  const std::string& card_name() const { return card.empty() ? name : card; }
  // KP or VTO derived from the card's process parameters (UO TOX, NSUB PHI NSS TPG GAMMA), as
  // ngspice's MOS1 does; said in the conversion summary ("KP 8.633e-05 A/V² from ..."); empty:
  // none (circuit/src/elaborate_transistor_models.cpp).
  std::string derived = {};
};
struct Mosfet {
  std::string name;
  int d = 0, g = 0, s = 0, b = 0;  // bulk: no body effect in the PWL model
  MosModel model;
  double w = 100e-6, l = 100e-6;  // [m] (SPICE defaults)
};
// Bipolar transistor, PWL Ebers–Moll (docs/devices.md, "Bipolar transistors"): two junctions,
// each a PWL diode (circuit/pwl_diode.hpp), and the transport currents α_F i_F, α_R i_R.
struct BjtModel {
  std::string name;
  bool pnp = false;
  double is = 1e-16, bf = 100, br = 1, nf = 1, nr = 1;  // Gummel–Poon names, ngspice defaults
  double rb = 0, rc = 0, re = 0;                        // [Ω], to internal nodes
  double ise = 0, ne = 1.5, isc = 0, nc = 2;            // base leakage diodes (0: none)
  double cje = 0, vje = 0.75, mje = 0.33, cjc = 0, vjc = 0.75, mjc = 0.33, fc = 0.5;
  double tf = 0, tr = 0;  // transit times: stored charge [s]
  double gmin = 0;  // SPICE's GMIN across each junction [S] (.options gmin, set by the conversion)
  double vaf = 0;   // forward Early voltage [V]: not modelled, measured after a run (0: none)
  double eg = 1.11, xti = 3, tnom = kUnset;  // IS(T); tnom unset: .options tnom
  // The PWL pairs of the B-E (i_F/α_F) and B-C (i_R/α_R) junctions, as fitted, and the linear
  // junction capacitances stamped [F].
  std::vector<PwlSegment> be = {}, bc = {};
  PwlCharge cbe = {}, cbc = {};
  DiodeModel be_leak = {}, bc_leak = {};  // ISE/NE, ISC/NC as SPICE diodes (used when ise, isc > 0)
};
struct Bjt {
  std::string name;
  int c = 0, b = 0, e = 0;  // internal nodes (after RC, RB, RE)
  BjtModel model;
  double area = 1;
};

using Device = std::variant<Resistor, Capacitor, Inductor, VoltageSource, CurrentSource, Diode,
                            Switch, Comparator, Vcvs, Vccs, Cccs, Ccvs, Mutual, Mosfet, Bjt>;

struct TranSpec {
  double tstep = 0, tstop = 0, tstart = 0, tmax = 0;  // s; tstep, tmax = 0: not given
  bool uic = false;
};

// How .tran integrates: θ-scheme time stepping, or event-driven (docs/event-driven.md).
enum class TranMethod { kTheta, kEvent };

// .options of the event-driven mode (0: the integrator's default).
struct EventSettings {
  double rtol = 1e-9;       // evrtol: local error per step, relative
  double atol = 1e-12;      // evatol: its absolute floor (V, A)
  double time_tol = 1e-12;  // evtimetol: event times, relative
  double h_max = 0;         // evmaxstep: largest step
};

// .options of the error-controlled θ-scheme, with SPICE's meanings and defaults
// (docs/theory.md, "Step selection"). step > 0 selects the fixed-step θ-scheme instead.
struct StepSettings {
  double reltol = 1e-3;   // RELTOL: the global error aimed at, relative to each unknown's size
  double abstol = 1e-12;  // ABSTOL: absolute floor for currents [A]
  double vntol = 1e-6;    // VNTOL: absolute floor for voltages [V]
  double chgtol = 1e-14;  // CHGTOL: absolute floor for charges and fluxes [C, Wb]
  double trtol = 7;       // TRTOL: SPICE's overestimate factor of the truncation error (unused)
  double step = 0;        // STEP: a fixed step of the θ-scheme [s] (0: error control)
  bool adaptive = true;   // STEPPING=adaptive|fixed: error-controlled steps, or the .tran step
  // PWLKINKS=smooth|switch: a change between segments of a converted SPICE model's PWL curve is
  // a kink taken without location or restart (solvers::ThetaOptions::smooth_kinks), or a switch.
  bool smooth_kinks = false;
  // UNSTABLEOP=kick|keep: a run whose DC operating point is an unstable equilibrium starts
  // VNTOL off it along its growing mode, or on it (circuit/src/unstable_start.hpp).
  bool kick_unstable = true;
};

// A model fitted again over the current range an earlier run of the same netlist met (its
// estimated range was left: pwl_range_check.hpp, the run command's refit; docs/devices.md).
struct PwlRefit {
  double imin = 0, imax = 0;  // the range of its fit [A, at area 1]; imax 0: not refitted
  std::string why;            // what the earlier run met, for the conversion summary
  // Diodes of the model whose junction charge is refitted, and VDMOS transistors whose gate-drain
  // charge CGD is (circuit/src/junction_charge_check.hpp): device (lower-case name) → the lowest
  // junction voltage (v_gd) its charge is fitted down to [V].
  std::map<std::string, double> charge;
  // MOSFETs of the card whose LAMBDA factor F is an earlier run's charge-weighted 1 + λ·|v_ds|
  // (circuit/src/mos_lambda_check.hpp): device (lower-case name) → F.
  std::map<std::string, double> lambda;
};

// .options pwltol pwlqtol pwlimin pwlimax idealize: SPICE diode models → PWL (docs/devices.md).
struct PwlSettings {
  double tol = 0.01;  // PWLTOL T [V]: voltage error ≤ T·max(1, v/1 V) (1 % of the drop or 10 mV)
  double imin = 0;    // PWLIMIN [A]; 0: imax·1e-6
  double imax = 0;    // PWLIMAX [A]; 0: estimated from the circuit's source and impedance scales
  // PWLQTOL: a junction charge's relative error (circuit/junction_charge.hpp); 0: two slopes.
  double qtol = 0;
  bool idealize = false;  // IDEALIZE: every diode the ideal one (VF/RON/BV/RZ only)
  double gmin = 1e-12;    // GMIN [S]: SPICE's conductance across every converted junction
  double temp = 27;       // TEMP (.temp) [°C]: the SPICE models' temperature
  double tnom = 27;       // TNOM [°C]: where their parameters were measured (a model's TNOM wins)
  // Per model (lower-case name): the range of a refit, which wins over PWLIMIN, PWLIMAX and the
  // estimate (elaborate()'s `refit`; never from the netlist).
  std::map<std::string, PwlRefit> refit;
};

// One model's conversion, as `nsspice models` and the run report print it. Diodes: forward
// and breakdown branches; bipolar transistors: the B-E and B-C junctions (labels say which).
struct DiodeConversion {
  std::string model;
  std::string summary;  // "d1n4007: 11 segments over 1 µA–30 A, max error 9.8 mV (drop …)"
  std::string kind;     // "SPICE", "LTspice idealized", "ideal", "idealized (IDEALIZE)"
  ExpBranch forward;
  PwlFit forward_fit;
  std::optional<ExpBranch> reverse;  // with BV
  PwlFit reverse_fit;
  PwlCharge cj;  // the junction charge stamped
  std::string forward_label = "forward", reverse_label = "breakdown";
  // A bipolar transistor's ISE/NE and ISC/NC base-leakage branches (labels "ISE", "ISC").
  struct Leak {
    std::string label;
    ExpBranch branch;
    PwlFit fit;
  };
  std::vector<Leak> leaks;
  // A MOS card's square law (kind "SPICE MOS"): its secant knots in overdrive, VT (NMOS sense),
  // KP [A/V²], for the plot.
  std::vector<double> mos_knots;
  double mos_vt = 0, mos_kp = 0;
};

// .dc: one swept source; Circuit::dc[0] is the inner (fastest) sweep, [1] the outer one.
struct DcSweepSpec {
  std::string source;  // a V or I source of the circuit
  double start = 0, stop = 0, step = 0;
  long points = 0;         // start, start + step, ..., up to stop (within 1e-9 of a step)
  bool parameter = false;  // `source` is a top-level .param (the circuit is rebuilt per value)
};
// .ac DEC|OCT|LIN N FSTART FSTOP
enum class AcVariation { kDec, kOct, kLin };
struct AcSpec {
  AcVariation variation = AcVariation::kDec;
  long points = 0;  // per decade / per octave / in all
  double fstart = 0, fstop = 0;
};

// .pss (docs/netlist.md, ".pss"): a driven circuit's period, or a self-oscillating one's guess
// of it and its trigger; what `nsspice pss` and `nsspice run` take where the command line does
// not say.
struct PssSpec {
  double period = 0;          // T [s], or with a trigger the guess of T
  std::string trigger;        // the trigger's signal, "v(cap)", "i(l1)"; "" none
  bool node_trigger = false;  // ngspice's OSCNOB: the trigger only if every source is constant
  double level = 0;
  bool level_given = false;  // false: the middle of the signal's range
  bool rising = true;
  double stabilization = 0;  // warm-up time [s] (TSTAB)
  long steps = 0;            // steps per period (0: the map's default)
  int periods = 1;           // periods written
  int warmup = -1;           // warm-up periods (−1: the default)
  int max_newton = 0;        // Newton iterations at most (0: the default)
  bool uic = false;          // the initial point from IC= as .tran UIC
};

struct Circuit {
  std::string title;
  std::vector<std::string> nodes;  // nodes[0] = "0" (ground); names in lower case
  std::vector<Device> devices;
  std::vector<netlist::SourceSpan> spans;  // where each device was written
  std::optional<TranSpec> tran;
  std::vector<std::pair<int, double>> ic;  // .ic v(node) = value
  // The inductors (indices into devices) given .ic I(L)=value (LTspice): their Inductor::ic
  // holds the value; under UIC it is their initial current, otherwise the operating point holds
  // it (AssembleOptions::hold_ic_nodes).
  std::vector<int> ic_currents;
  // The internal nodes behind a model's series resistance (RB, RC, RE, RD, RS, RG, a diode's RS
  // split off): (outer terminal, inner node). Under UIC an inner node without data of its own
  // starts at its terminal's voltage (initial_point.cpp).
  std::vector<std::pair<int, int>> series_nodes;
  double theta = 0.5;                                                 // .options theta
  solvers::LcpSolverKind lcp_solver = solvers::LcpSolverKind::kAuto;  // .options lcpsolver
  TranMethod method = TranMethod::kTheta;                             // .options method
  EventSettings event;                                                // .options ev*
  double max_rows = 0;    // .options maxrows: the most rows a waveform file may get (0: 1e8)
  StepSettings stepping;  // .options reltol abstol vntol chgtol trtol step
  PwlSettings pwl;        // .options pwltol pwlimin pwlimax idealize
  // Every model elaborated (those an element uses, or with ModelCards::kAll every card) that
  // has a conversion record, in model-name order.
  std::vector<DiodeConversion> conversions;
  // The .model cards no element uses, in name order, left out (not converted, their parameters
  // not checked); empty with ModelCards::kAll, which elaborates every card (circuit/elaborate.hpp).
  std::vector<std::string> unused_models;
  // What was fitted at the initial point, one line per device part: the bias knots
  // (pwl_bias_knots.cpp: "q1 B-E: bias knot at ...") and LAMBDA (pwl_mos_bias.cpp).
  std::vector<std::string> bias_notes;
  bool op = false;              // a .op card
  std::vector<DcSweepSpec> dc;  // the last .dc card (empty: none)
  std::optional<AcSpec> ac;     // the last .ac card
  std::optional<PssSpec> pss;   // the last .pss card
  int node_count() const { return static_cast<int>(nodes.size()) - 1; }  // without ground
};

const std::string& device_name(const Device& device);

}  // namespace nsspice::circuit
