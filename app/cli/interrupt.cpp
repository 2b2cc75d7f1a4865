// SIGINT / SIGTERM handling (app/cli/interrupt.hpp): the one process-wide flag of nsspice.
#include "app/cli/interrupt.hpp"

#include <unistd.h>

#include <atomic>

namespace nsspice::app {
namespace {

// The signal received (0: none). The only object of static storage that a signal handler may
// write, hence the only mutable global of the program (see the header).
std::atomic<int> g_received{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler needs a lock-free flag");

// Only async-signal-safe calls here: write(2) and _exit(2).
void on_signal(int sig) {
  int expected = 0;
  if (!g_received.compare_exchange_strong(expected, sig)) {
    constexpr char kNow[] = "\nnsspice: second signal: exiting at once\n";
    [[maybe_unused]] const auto n = ::write(STDERR_FILENO, kNow, sizeof kNow - 1);
    ::_exit(interrupted_exit_code(sig));
  }
  constexpr char kFirst[] =
      "\nnsspice: interrupted: finishing the current row and closing the files (signal again to "
      "exit at once)\n";
  [[maybe_unused]] const auto n = ::write(STDERR_FILENO, kFirst, sizeof kFirst - 1);
}

void install(int sig, struct sigaction* old) {
  struct sigaction action {};
  action.sa_handler = &on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and writes in progress resume; the flag is polled
  sigaction(sig, &action, old);
}

}  // namespace

InterruptScope::InterruptScope() {
  g_received.store(0);
  install(SIGINT, &old_int_);
  install(SIGTERM, &old_term_);
}

InterruptScope::~InterruptScope() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

int InterruptScope::signal() const { return g_received.load(std::memory_order_relaxed); }

const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

}  // namespace nsspice::app
