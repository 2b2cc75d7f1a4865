#pragma once
// Runs gnuplot (through gnuplot-iostream): the only file that talks to gnuplot. Its stdout and
// stderr go to a temporary file, never to the terminal: warnings (e.g. "empty y2 range") are
// dropped, errors returned as text for the caller to report (with the plot's file name).
#include <string>

namespace nsspice::app {

// Runs `script` (a whole gnuplot script, terminal and output included); returns gnuplot's errors,
// "" when none. `persist`: a window that outlives gnuplot (--show).
std::string run_gnuplot(const std::string& script, bool persist);

// The errors among gnuplot's output: lines "line N: message" (the message kept) and lines naming
// an error or a file that cannot be opened; warnings and the echoed command lines are not errors.
std::string gnuplot_errors(const std::string& output);

// A file name in a single-quoted gnuplot string: quotes doubled, nothing else.
std::string gnuplot_quoted(const std::string& path);

}  // namespace nsspice::app
