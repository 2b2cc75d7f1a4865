// DecimalGrid (decimal_grid.hpp): t_k = (A + k·H)/10^p, correctly rounded.
#include "solvers/time/decimal_grid.hpp"

#include <cmath>

namespace nsspice::solvers {
namespace {

constexpr double kExactInteger = 9007199254740992.0;  // 2^53
constexpr int kMaxDigits = 22;                        // 10^22 is the largest exact power of ten

// x·10^p when it is an integer N with N/10^p == x (x is that decimal), else NaN.
double decimal_units(double x, double scale) {
  const double n = std::nearbyint(x * scale);
  return std::abs(n) < kExactInteger && n / scale == x ? n : NAN;
}

}  // namespace

DecimalGrid::DecimalGrid(double t0, double h) : t0_(t0), h_(h) {
  if (!std::isfinite(t0) || !std::isfinite(h) || !(h > 0)) return;
  double scale = 1;
  for (int p = 0; p <= kMaxDigits; ++p, scale *= 10) {
    const double a = decimal_units(t0, scale), s = decimal_units(h, scale);
    if (std::isnan(a) || std::isnan(s) || s == 0) continue;
    a_ = a, step_units_ = s, scale_ = scale;
    return;
  }
}

double DecimalGrid::at(long k) const {
  const double kd = static_cast<double>(k);
  if (scale_ > 0) {
    const double units = a_ + kd * step_units_;  // exact while below 2^53
    if (std::abs(kd) < kExactInteger && std::abs(units) < kExactInteger &&
        std::abs(kd * step_units_) < kExactInteger)
      return units / scale_;
  }
  return t0_ + kd * h_;
}

}  // namespace nsspice::solvers
