#pragma once
// A progress bar on stderr, shown only on a terminal and only once a run has lasted a second.
#include <chrono>

namespace nsspice::app {

class Progress {
 public:
  Progress(double t_stop, bool enabled);
  void update(double t);
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  double t_stop_;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_, last_;
  long calls_ = 0;
};

}  // namespace nsspice::app
