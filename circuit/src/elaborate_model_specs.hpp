#pragma once
// The parameter tables of .model cards (elaborate_models.cpp, elaborate_transistor_models.cpp):
// each parameter's name, where its value goes and the range it must be in.
#include <set>
#include <string>
#include <vector>

#include "circuit/circuit.hpp"
#include "netlist/ast.hpp"
#include "netlist/diagnostics.hpp"

namespace nsspice::circuit::detail {

enum class Range { kAny, kNonNegative, kPositive };

struct Spec {
  const char* name;
  double* target;
  Range range;
};

bool in_range(double v, Range r);
const char* range_text(Range r);

// ngspice's VDMOS (MosModel::vdmos) and its body diode; `sink` takes the parameters that are
// accepted and reported but not used (LAMBDA's is kept in the model for the report).
std::vector<Spec> vdmos_specs(MosModel& q, double& sink);
void vdmos_defaults(MosModel& q);
// PCHAN/NCHAN, checks, and one warning naming what the PWL MOS does not model; false on error.
bool finish_vdmos(const netlist::ModelCard& card, MosModel& q,
                  const std::vector<const netlist::Param*>& given, netlist::Diagnostics& diags);

// ngspice's MOS1 process parameters of a level-1 card: KP from UO and TOX when KP is not given,
// VTO from NSUB (PHI NSS TPG GAMMA, TNOM) and TOX when VTO is not given. Sets q.kp, q.vto and
// q.derived, adds the parameters it used (lower case) to `used`; false on error. `tnom`: the
// card's TNOM unless given [°C].
bool mos_process(const netlist::ModelCard& card, MosModel& q,
                 const std::vector<const netlist::Param*>& given, double tnom,
                 std::set<std::string>& used, netlist::Diagnostics& diags);

// NPN/PNP (Gummel–Poon names) as the PWL Ebers–Moll model.
std::vector<Spec> bjt_specs(BjtModel& q, double& sink);
bool finish_bjt(const netlist::ModelCard& card, BjtModel& q,
                const std::vector<const netlist::Param*>& given, netlist::Diagnostics& diags);

// R (ngspice) and RES (PSpice) resistor models (elaborate_resistor.cpp).
struct ResistorModel;
std::vector<Spec> resistor_specs(ResistorModel& q);

}  // namespace nsspice::circuit::detail
