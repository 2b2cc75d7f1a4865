#pragma once
// ngspice as compare's peer: the escalation ladder (ngspice_ladder.hpp) run on the netlist,
// its waveforms renamed to nsspice's signal names, the attempts summarized as a PeerRun.
#include <optional>

#include "app/compare/compare_report.hpp"
#include "app/compare/ngspice_ladder.hpp"
#include "app/compare/ngspice_netlist.hpp"
#include "circuit/circuit.hpp"
#include "circuit/transient.hpp"

namespace nsspice::app {

struct NgspicePeer {
  Waveforms data;  // nsspice's names
  PeerRun run;
  Translation translation;  // of the attempt used
};

// `options.on_attempt` empty and `progress` set: each failed attempt is told on stderr.
std::optional<NgspicePeer> run_ngspice_peer(const circuit::Circuit& circuit,
                                            const TranslateOptions& translate,
                                            LadderOptions options, bool progress,
                                            LadderError& error);

// ngspice's TMAX: nsspice's fixed step, so that SPICE never steps over what nsspice resolves;
// under error control (or in event mode) the .tran TMAX, else ngspice's own default
// min(TSTEP, (TSTOP − TSTART) / 50).
double ngspice_tmax(const circuit::Circuit& circuit, const circuit::TransientResult& result);

}  // namespace nsspice::app
