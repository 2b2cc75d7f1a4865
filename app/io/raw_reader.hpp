#pragma once
// Reads SPICE raw files: ngspice's (`write`, `-r`; ASCII and binary, real data), ours, and
// LTspice's (UTF-16 header, float32 values, the "double" and "fastaccess" variants, compressed
// files' negative times; see ltspice_raw.hpp). A stepped LTspice run yields its first run
// (Waveforms::note says so). Names are normalised to nsspice's spelling: lower case, a node "out"
// of type voltage becomes "v(out)", a branch "v1#branch" becomes "i(v1)". The first variable is the
// time axis. A file cut short (a crashed run) yields its complete points. With several plots in one
// file the first "Transient Analysis" is returned (else the first plot).
#include <optional>
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

std::optional<Waveforms> read_raw(const std::string& path, std::string& error);
std::optional<Waveforms> parse_raw(const std::string& content, std::string& error);
// Every plot of the file in order (a sweep's multi-plot raw file: one per run), up to the first
// one that cannot be read; nullopt with `error` when not even the first can.
std::optional<std::vector<Waveforms>> read_raw_plots(const std::string& path, std::string& error);

}  // namespace nsspice::app
