#include "app/cli/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace nsspice::app {

Progress::Progress(double t_stop, bool enabled)
    : t_stop_(t_stop),
      enabled_(enabled && isatty(STDERR_FILENO) != 0),
      start_(Clock::now()),
      last_(start_) {}

void Progress::update(double t) {
  if (!enabled_ || (++calls_ & 255) != 0) return;  // look at the clock every 256 points
  const auto now = Clock::now();
  if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100))
    return;
  last_ = now;
  shown_ = true;
  const double frac = std::clamp(t / t_stop_, 0.0, 1.0);
  constexpr int kWidth = 40;
  const int filled = static_cast<int>(frac * kWidth);
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0.0;
  fmt::print(stderr, "\r[{:#<{}}{:<{}}] {:5.1f}%  t = {:.4g} s  ETA {:.0f} s ", "", filled, "",
             kWidth - filled, 100 * frac, t, eta);
  std::fflush(stderr);
}

void Progress::finish() {
  if (shown_) fmt::print(stderr, "\r{:<80}\r", "");
}

}  // namespace nsspice::app
