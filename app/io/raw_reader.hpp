#pragma once
// Reads SPICE raw files: ngspice's (`write`, `-r`; ASCII and binary, real and complex data),
// ours, and LTspice's (UTF-16 header, float32 values, the "double" and "fastaccess" variants,
// compressed files' negative times; see ltspice_raw.hpp). Names are normalised to nsspice's
// spelling: lower case, a node "out" of type voltage becomes "v(out)", a branch "v1#branch"
// becomes "i(v1)". The first variable is the scale (Waveforms::scale, by its type): the time of a
// transient, the frequency of an AC analysis (complex data: Waveforms::imag), or a DC sweep's
// source, in any order (a descending sweep), started again for each outer value of a nested
// sweep: all its points are read. Several runs in one plot are split only where that is what the
// file holds: a stepped LTspice run ("stepped" among the Flags: a new run where the scale is back
// at its first value) or a time that goes back; the first run is read and Waveforms::note says
// so with the points left out. A file cut short (a crashed run) yields its complete points. With
// several plots in one file the first "Transient Analysis" is returned (else the first plot).
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
