#pragma once
// Reads a table of waveforms: a header of column names, then numeric rows (as `run` writes:
// "time,<signal>,..."). Also tables written elsewhere: the delimiter is a tab (LTspice's
// "Export data as text"), a semicolon or a comma, whichever the header uses; the time axis is
// the column named "time" (any case, "time [s]" too), else the first column; blanks around
// values are skipped; names are lower-cased. The files of `run`'s other analyses are read with
// their scale (Waveforms::scale): "frequency" (an AC analysis: dB and phase columns), a DC sweep's
// "v-sweep"/"i-sweep" (and a first column that goes back: no time does).
#include <optional>
#include <string>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

std::optional<Waveforms> read_csv(const std::string& path, std::string& error);

}  // namespace nsspice::app
