#pragma once
// Times on a uniform grid, t_k = t0 + k·h, as the double nearest to the exact decimal value.
//
// t0 + k·h in floating point rounds h first and the product next: 10 · 1e-6 gives
// 9.999999999999999e-06, not 1e-05. When t0 and h are short decimals, t0 = A/10^p and h = H/10^p
// with integers A, H (|A + kH| < 2^53) and 10^p exact (p ≤ 22), so
//     t_k = (A + k·H) / 10^p
// is one IEEE division of exact operands: correctly rounded, the double nearest to the decimal
// t0 + k·h, and its shortest text is that decimal ("1e-05"). Otherwise t_k = t0 + k·h.
namespace nsspice::solvers {

class DecimalGrid {
 public:
  DecimalGrid() = default;
  DecimalGrid(double t0, double h);
  double at(long k) const;
  double origin() const { return t0_; }
  double step() const { return h_; }
  bool exact() const { return scale_ > 0; }  // the decimal form applies

 private:
  double t0_ = 0, h_ = 0;
  double a_ = 0, step_units_ = 0, scale_ = 0;  // t0 = a_/scale_, h = step_units_/scale_
};

}  // namespace nsspice::solvers
