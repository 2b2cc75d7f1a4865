#pragma once
// The elaborator's state, shared by elaborate.cpp (driver, nodes, controls),
// elaborate_models.cpp (.model cards) and elaborate_elements.cpp (element cards).
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "circuit/circuit.hpp"
#include "circuit/elaborate.hpp"
#include "circuit/src/behavioural.hpp"
#include "netlist/ast.hpp"
#include "netlist/diagnostics.hpp"

namespace nsspice::circuit::detail {

// A resistor model card (.model NAME R|RES, elaborate_resistor.cpp): the value when the instance
// has none, RSH·(L − 2·SHORT)/(W − 2·NARROW) from the instance's L and W (defaults DEFL, DEFW:
// ngspice's 10 µm), or R; and the temperature coefficients. NaN: not given.
struct ResistorModel {
  std::string name;
  bool pspice = false;  // RES (PSpice): R multiplies the instance value; R (ngspice): R is one
  double r = kUnset, rsh = 0, defw = 10e-6, defl = 10e-6, narrow = 0, shorten = 0;  // Ω, Ω/□, m
  double tc1 = 0, tc2 = 0, tce = kUnset;            // [1/K], [1/K²], [%/K]
  double tnom = kUnset, t_abs = kUnset, t_rel = 0;  // [°C]
};

using Model =
    std::variant<DiodeModel, SwitchModel, ComparatorModel, MosModel, BjtModel, ResistorModel>;

// The circuit's source and impedance scales, for the PWL ranges (pwl_models.cpp).
struct Scales {
  double volts = 0,
         amps = 0;  // Σ max|V(t)| of the voltage sources, Σ max|I(t)| of the current ones
  double r_min = std::numeric_limits<double>::infinity();  // the smallest resistor
  bool reactive = false;  // a capacitor or inductor: its voltage can sit across a diode
};

// A diode card as AREA·M junctions (docs/devices.md, "Area and M"; Elaborator::
// diode_instance_model): the SPICE parameters as ngspice's level-1 diode scales them, a PWL card's
// RON, ROFF, RZ and current limits as M devices in parallel.
DiodeModel scaled_diode(const DiodeModel& m, double area, double mult);

class Elaborator {
 public:
  Elaborator(Circuit& circuit, netlist::Diagnostics& diags, ModelCards which)
      : c_(circuit), diags_(diags), all_models_(which == ModelCards::kAll) {
    c_.nodes = {"0"};
  }
  // Collects the .model cards (duplicate names are errors); with ModelCards::kAll elaborates
  // every one, else each when an instance first uses it (model_of).
  void models(const std::vector<netlist::Card>& cards);
  void controls(const std::vector<netlist::Card>& cards);
  void lcp_solver_option(const netlist::Param& p);
  void spice_method(const netlist::Param& p);
  // The target of an event-driven .option (evrtol, evatol, evtimetol, evmaxstep), else nullptr.
  double* event_option(const std::string& name);
  double* step_option(const std::string& name);
  void elements(const std::vector<netlist::Card>& cards);
  void references();  // F, H, W, K: their controlling / coupled elements exist and fit
  // .options pwltol pwlimin pwlimax idealize (pwl_models.cpp); false: not one of them.
  bool pwl_option(const netlist::Param& p);
  // SPICE diode models → PWL pairs and junction capacitors, after the elements (pwl_models.cpp).
  void pwl_models();
  // After pwl_models: a level-1 card's KP or VTO derived from its process parameters
  // (MosModel::derived) said in its conversion summaries (elaborate_models.cpp).
  void derived_summaries();
  // Circuit::unused_models: the .model cards no element names (ModelCards::kUsed), after the
  // elements.
  void unused_models();

 private:
  Circuit& c_;
  netlist::Diagnostics& diags_;
  bool all_models_;
  std::map<std::string, const netlist::ModelCard*> model_cards_;  // every .model card, by name
  std::set<std::string> tried_models_;   // the cards elaborated (into models_ unless in error)
  std::set<std::string> used_models_;    // the cards an instance names
  std::map<std::string, Model> models_;  // the elaborated models: those used (or kAll: every one)
  // Diode and MOSFET cards some instance uses as written (the others only through scaled copies,
  // whose conversions alone are made and reported unless kAll).
  std::set<std::string> plain_cards_;
  bool used_only_scaled(const std::string& card) const;
  std::map<std::string, netlist::SourceSpan> element_spans_;
  std::map<std::string, int> node_index_;
  std::set<std::string> netlist_nodes_;                       // every node named by an element card
  std::map<std::string, const netlist::ElementCard*> cards_;  // by element name
  std::set<std::string> model_resistors_;  // RD RS RG RDS RB RC RE of transistors (not scales)

  // Diagnostics about a card carry its subcircuit/include chain as notes.
  void error(const netlist::ElementCard& e, netlist::SourceSpan span, std::string message);
  void warning(const netlist::ElementCard& e, netlist::SourceSpan span, std::string message);
  int node(const netlist::Word& w);
  bool nodes_ok(const netlist::ElementCard& e, size_t count, const char* what);
  bool positive(const netlist::ElementCard& e, const char* what, const char* unit, double& out);
  bool number(const netlist::ElementCard& e, const char* what, double& out);
  std::optional<double> param(const netlist::ElementCard& e, std::string_view name);
  template <class M>
  const M* model_of(const netlist::ElementCard& e, const char* what, const char* type);
  void element(const netlist::ElementCard& e);
  void inductor_ic(const netlist::IcEntry& entry);  // .ic I(L)=value
  // The model a diode instance uses: the card's, or a copy scaled by the instance's AREA and M
  // (kept in models_ under "<card>(area=A,m=M)"); nullptr after an error.
  const DiodeModel* diode_instance_model(const netlist::ElementCard& e, const DiodeModel& m);
  // The same for a MOSFET's M (kept in models_ under "<card>(m=M)").
  const MosModel* mos_instance_model(const netlist::ElementCard& e, const MosModel& m);
  void passive(const netlist::ElementCard& e, char letter);
  // R with a model or temperature coefficients (elaborate_resistor.cpp); false: a plain one.
  bool resistor(const netlist::ElementCard& e, double m);
  // R_0 of a resistor with a model (or none), and how it was found; nullopt after an error.
  std::optional<std::pair<double, std::string>> resistor_nominal(const netlist::ElementCard& e,
                                                                 const ResistorModel& q);
  std::vector<std::string> model_names() const;  // of every .model card, for did_you_mean
  int parasitics(const netlist::ElementCard& e, int a, int b);
  void controlled(const netlist::ElementCard& e, char letter);
  void poly1(const netlist::ElementCard& e, char letter);
  static const netlist::Param* behavioural_expression(const netlist::ElementCard& e);
  void behavioural(const netlist::ElementCard& e);
  int named_node(const netlist::ElementCard& e, const std::string& lower);
  void voltage_chain(const netlist::ElementCard& e, const AffineExpr& x, int from, int to,
                     const std::string& name);
  void nonsmooth(const netlist::ElementCard& e, char letter);
  // M and Q cards (elaborate_transistors.cpp): the PWL transistor with its series resistors,
  // capacitances and diodes as devices of their own.
  void mosfet(const netlist::ElementCard& e);
  void bjt(const netlist::ElementCard& e);
  int series_resistor(const netlist::ElementCard& e, int outer, double r, const char* key);
  std::optional<Waveform> waveform(const netlist::ElementCard& e);
  std::optional<Waveform> source_function(const netlist::ElementCard& e,
                                          const netlist::SourceFunction& f);
  void add(const netlist::ElementCard& e, Device device);
  // A .model card → models_ (elaborate_models.cpp); its diagnostics go to `diags`.
  void model(const netlist::ModelCard& m, netlist::Diagnostics& diags);
  // The model card `e` names, elaborated at its first use; its diagnostics carry a note at `e`.
  const Model* used_model(const netlist::ElementCard& e, const char* what);
  // keep_r_min: imax estimated with the smallest resistor kept (a MOSFET's bulk diodes).
  DiodeConversion convert_diode(DiodeModel& d, const Scales& scales, bool keep_r_min = false) const;
  void convert_mos(MosModel& q, const Scales& scales);
  // A diode's junction charge from an earlier run's refit (PwlRefit::charge), if it has one.
  void refit_charge(Diode& d);
  // A VDMOS's CGD below v_gd = 0 from an earlier run's refit (PwlRefit::charge), if it has one;
  // `swing`: the sources' swing V its forward slope was fitted up to.
  void refit_cgd(Mosfet& m, double swing);
  void bulk_diodes(const netlist::ElementCard& e, const Mosfet& q);
  // pwl_transistors.cpp: a VDMOS's CGD and its report; the junctions of a bipolar transistor
  // (at area 1), then per device at its area.
  std::string vdmos_summary(MosModel& q, const Scales& scales) const;
  void convert_bjt(BjtModel& q, const Scales& scales);
  void bjt_area(Bjt& q) const;
};

// .op, .dc and .ac cards into Circuit::op, dc, ac (after the elements: a .dc names a source).
// The last .dc / .ac card counts (a warning for the earlier ones).
void elaborate_analyses(const std::vector<netlist::Card>& cards, Circuit& circuit,
                        netlist::Diagnostics& diags);
// A .pss card into Circuit::pss (elaborate_pss.cpp); nullopt after an error at its place.
std::optional<PssSpec> pss_spec(const netlist::PssCard& card, const Circuit& circuit,
                                netlist::Diagnostics& diags);

}  // namespace nsspice::circuit::detail
