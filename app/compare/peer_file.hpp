#pragma once
// `compare NETLIST --against FILE`: a waveform produced elsewhere (ngspice raw, ASCII or
// binary; LTspice raw; a CSV/TSV table with a time column), its signal names mapped to
// nsspice's:
//
//   V(out), v(OUT)            → v(out)          (any case; blanks dropped)
//   I(L1)                     → i(l1)
//   v1#branch, V1#branch      → i(v1)           (ngspice's branch currents)
//   @d1[id], @r1[i]           → i(d1), i(r1)    (ngspice's device vectors)
//   i(v.x1.vs), x1.n3         → i(x1.vs), ...   (ngspice's instance prefix "v." dropped)
//   V(x1:n3), I(x1:r1)        → v(x1.n3), i(x1.r1) (LTspice's hierarchy: ':' → '.', the
//                                              instance first: I(R1:X1) → i(x1.r1))
//   Ix(U1:1)                  → ix(u1:1)        (a subcircuit pin current: no nsspice signal
//                                              has that name; map it with --map)
//   out (a bare name)         → v(out) when nsspice has that node
//
// `--map FILE_NAME=NSSPICE_NAME` (case-insensitive) overrides the rules for one signal.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

// The nsspice spelling of a name read from a file (the rules above, without --map and without
// the bare-name rule).
std::string map_peer_name(const std::string& name);

struct PeerFile {
  Waveforms data;                      // nsspice's names
  std::vector<std::string> unmatched;  // the file's signals nsspice does not have (as read)
};

// Reads `path` and maps its names; `reference` is nsspice's signal list, `map` the --map pairs
// (lower case). nullopt with `error` set when the file cannot be read or has no time axis.
std::optional<PeerFile> read_peer_file(const std::string& path,
                                       const std::vector<std::string>& reference,
                                       const std::vector<std::pair<std::string, std::string>>& map,
                                       std::string& error);

// The file as compare's peer: its points and end; failed when it ends before `t_stop` (the
// run's TSTOP). Adds to `notes` what the reader left out and the signals left unmatched.
struct PeerRun;
PeerRun file_peer_run(const PeerFile& file, const std::string& path, double t_stop,
                      std::vector<std::string>& notes);

// "A=B" → (a, b) lower-cased, blanks dropped; nullopt unless both sides are non-empty.
std::optional<std::pair<std::string, std::string>> parse_map(const std::string& text);

}  // namespace nsspice::app
