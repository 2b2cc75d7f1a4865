#pragma once
// circuit::Circuit → an ngspice netlist. Two kinds of device:
//
//  * With `user_models` (question 1 of compare.md): every diode and MOSFET made from a SPICE
//    card runs the user's card unchanged (user_models.hpp), with its instance parameters; the
//    pieces nsspice adds for its PWL form (the junction capacitor '<d>.cj', the RD/RS resistors
//    '<m>.rd', '<m>.rs' and internal nodes) are left out, the MOSFET joined to its own nodes.
//  * Every ideal device (and, without `user_models`, every device) is a regularized SPICE model:
//
//   diode (VF, RON, GOFF, BV, RZ)  D with the user's model (default IS=1e-14 N=0.05 RS=1m),
//                                  RS += RON; VF as a series DC source; GOFF as a parallel
//                                  resistor; BV → BV=.. IBV=IS NBV=N (RZ added to RS when the
//                                  diode has no RON); a 0 V probe source in series gives i(d)
//   switch S / W                   SW / CSW model: VT VH from the device, RON and ROFF from
//                                  the device when finite and non-zero, else from the user's
//                                  model (default RON=1m ROFF=1e9); a probe gives i(s)
//   comparator                     B source: vlow + (vhigh−vlow)/2·(1 + tanh((v+ − v−)/w)),
//                                  w = its EPS if > 0, else the user's width (default 1 mV)
//   MOS (PWL square law)           level-1 MOSFET with the same KP, VTO, W, L (LAMBDA = 0)
//   R C L V I E F G H K            as they are
//
// Nodes named like ngspice's source keywords (`ac`, `dc`, `sin`, ...: `vnsp_d1 ac p DC 0` is
// read as an AC specification) are nsp_n_<name> in the deck, mapped back. Every node the
// translation makes (a probe's far side; a VF source's, minus VF) gets the .ic of the node it
// sits at: under UIC ngspice starts a node without one at 0 V.
//
// `.tran TSTEP TSTOP TSTART TMAX [UIC]` with TMAX = `tmax` (compare passes nsspice's fixed
// step, or under error control the .tran TMAX, else ngspice's own default; TSTEP = 0, LTspice's
// `.tran TSTOP`, becomes TMAX), the `.ic` card, one
// `.options` line (default RELTOL=1e-4) and a `.control` block that runs and writes a binary
// raw file. Adding a device = one `emit` overload in ngspice_netlist.cpp.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/compare/user_models.hpp"
#include "circuit/circuit.hpp"

namespace nsspice::app {

struct TranslateOptions {
  std::string diode_model = "IS=1e-14 N=0.05 RS=1m";
  std::string switch_model = "RON=1m ROFF=1e9";
  double comparator_width = 1e-3;       // V
  std::string options = "RELTOL=1e-4";  // the .options line
  double tmax = 0;                      // ngspice's TMAX [s] (0: from .tran)
  std::string raw_path = "ngspice.raw";
  // Question 1: the netlist's own SPICE cards for its SPICE diodes and MOSFETs (null:
  // question 2, every device regularized). Not owned.
  const UserModels* user_models = nullptr;

  // Empty when valid, else the option out of range and its allowed range.
  std::string validate() const;
};

struct Translation {
  std::string text;  // the ngspice netlist
  // ngspice's raw-file name → nsspice's signal name, for the signals both have.
  std::vector<std::pair<std::string, std::string>> names;
  std::vector<std::string> notes;        // approximations made ("i(m1): level-1 square law")
  std::vector<std::string> unsupported;  // devices without a translation
  std::vector<std::string> user_cards;   // models passed through unchanged (their names)
  std::vector<std::string> regularized;  // devices given a regularized model
  // nsspice's elements not in the deck (question 1: the parts of its PWL forms that the
  // user's cards hold: "d1.cj", "q1.rb").
  std::vector<std::string> left_out;
};

// nullopt with `error` set on a bad --diode-model/--switch-model.
std::optional<Translation> translate_to_ngspice(const circuit::Circuit& circuit,
                                                const TranslateOptions& options,
                                                std::string& error);

}  // namespace nsspice::app
