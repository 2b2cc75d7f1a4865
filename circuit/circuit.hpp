#pragma once
// The elaborated circuit: nodes numbered (0 = ground), devices with their values checked and
// source waveforms completed with SPICE defaults. Built from the syntax tree by elaborate();
// turned into matrices by assemble(). Adding a device = one struct in `Device` plus one stamp.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "circuit/waveform.hpp"
#include "netlist/source.hpp"

namespace nsspice::circuit {

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
struct VoltageSource {
  std::string name;
  int p = 0, n = 0;  // v_p − v_n = V(t); branch current p → n through the source
  Waveform wave;
};
struct CurrentSource {
  std::string name;
  int p = 0, n = 0;  // current I(t) flows from p through the source to n
  Waveform wave;
};
struct DiodeModel {
  std::string name;
  double vf = 0;    // forward voltage [V] ≥ 0
  double ron = 0;   // on resistance [Ω] ≥ 0
  double goff = 0;  // off conductance [S] ≥ 0 (a resistor in parallel)
};
struct Diode {
  std::string name;
  int a = 0, k = 0;  // anode, cathode
  DiodeModel model;
};

using Device = std::variant<Resistor, Capacitor, Inductor, VoltageSource, CurrentSource, Diode>;

struct TranSpec {
  double tstep = 0, tstop = 0, tstart = 0, tmax = 0;  // s; tmax = 0: not given
  bool uic = false;
};

struct Circuit {
  std::string title;
  std::vector<std::string> nodes;  // nodes[0] = "0" (ground); names in lower case
  std::vector<Device> devices;
  std::vector<netlist::SourceSpan> spans;  // where each device was written
  std::optional<TranSpec> tran;
  std::vector<std::pair<int, double>> ic;                                // .ic v(node) = value
  double theta = 0.5;                                                    // .options theta
  int node_count() const { return static_cast<int>(nodes.size()) - 1; }  // without ground
};

const std::string& device_name(const Device& device);

}  // namespace nsspice::circuit
