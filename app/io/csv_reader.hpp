#pragma once
// Reads a CSV of waveforms: a header "time,<signal>,..." then numeric rows (as `run` writes).
#include <optional>
#include <string>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

std::optional<Waveforms> read_csv(const std::string& path, std::string& error);

}  // namespace nsspice::app
