#pragma once
// The short human-readable run report printed after a simulation. `wall_seconds`: the whole
// command (parse, assembly, run, files written); `stepping_seconds`: the transient alone (initial
// point and steps, while the output is written alongside on another thread).
#include <string>

#include "circuit/transient.hpp"

namespace nsspice::app {

std::string format_report(const circuit::TransientResult& result, double wall_seconds,
                          double stepping_seconds, const std::string& output, long rows);

}  // namespace nsspice::app
