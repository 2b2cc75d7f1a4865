#pragma once
// The short human-readable run report printed after a simulation.
#include <string>

#include "circuit/transient.hpp"

namespace nsspice::app {

std::string format_report(const circuit::TransientResult& result, double wall_seconds,
                          const std::string& output, long rows);

}  // namespace nsspice::app
