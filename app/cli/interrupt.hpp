#pragma once
// SIGINT and SIGTERM during `run` and `compare`: the first one asks the run to stop after the
// current row (the writer is drained, the file closed, the report printed, exit 128 + signal:
// 130 for SIGINT, 143 for SIGTERM); a second one ends the process at once (_exit(128 + signal),
// the file then possibly ending inside a row). docs/output.md, "Signals and partial files".
//
// THE SINGLE PROCESS-WIDE STATE OF NSSPICE. A signal handler can only talk to the program
// through an object of static storage: here one lock-free std::atomic<int> holding the signal
// received (0: none), in interrupt.cpp and nowhere else. Everything else reads it through an
// InterruptScope, and what the libraries see is a stop predicate (a std::function<bool()>)
// handed down by the command, never the flag itself: the circuit and solver layers stay free
// of global state, and tests can run simulations in parallel in one process.
#include <csignal>

namespace nsspice::app {

class InterruptScope {
 public:
  // Installs the handlers of SIGINT and SIGTERM (clearing any signal recorded before).
  InterruptScope();
  // Restores the handlers that were installed before.
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  // The signal received since construction (SIGINT or SIGTERM), 0 if none.
  int signal() const;
  bool requested() const { return signal() != 0; }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// The exit status for a run stopped by `signal`: 128 + signal (130 for SIGINT, 143 for SIGTERM).
constexpr int interrupted_exit_code(int signal) { return 128 + signal; }

// "SIGINT", "SIGTERM" (else "signal N").
const char* signal_name(int signal);

}  // namespace nsspice::app
