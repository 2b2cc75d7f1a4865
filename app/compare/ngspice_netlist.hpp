#pragma once
// circuit::Circuit → an ngspice netlist in which every ideal device is a regularized SPICE model:
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
// `.tran TSTEP TSTOP TSTART TMAX [UIC]` with TMAX = nsspice's step, the `.ic` card, one
// `.options` line (default RELTOL=1e-4) and a `.control` block that runs and writes a binary
// raw file. Adding a device = one `emit` overload in ngspice_netlist.cpp.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "circuit/circuit.hpp"

namespace nsspice::app {

struct TranslateOptions {
  std::string diode_model = "IS=1e-14 N=0.05 RS=1m";
  std::string switch_model = "RON=1m ROFF=1e9";
  double comparator_width = 1e-3;       // V
  std::string options = "RELTOL=1e-4";  // the .options line
  double tmax = 0;                      // nsspice's step (0: from .tran)
  std::string raw_path = "ngspice.raw";

  // Empty when valid, else the option out of range and its allowed range.
  std::string validate() const;
};

struct Translation {
  std::string text;  // the ngspice netlist
  // ngspice's raw-file name → nsspice's signal name, for the signals both have.
  std::vector<std::pair<std::string, std::string>> names;
  std::vector<std::string> notes;        // approximations made ("i(m1): level-1 square law")
  std::vector<std::string> unsupported;  // devices without a translation
};

// nullopt with `error` set on a bad --diode-model/--switch-model.
std::optional<Translation> translate_to_ngspice(const circuit::Circuit& circuit,
                                                const TranslateOptions& options,
                                                std::string& error);

}  // namespace nsspice::app
