#pragma once
// After a run, LAMBDA of every converted SPICE MOSFET (level 1, VDMOS; docs/devices.md, "LAMBDA
// along the run"). ngspice's drain current is I_0·(1 + λ·|v_ds|); the PWL one is I_0·F, with F
// constant per device (pwl_mos_bias.cpp: 1 + λ·|v_ds0| at the initial point, or a refit's). Per
// accepted point, with I_0 the square-law current at the point's v_gs, v_ds (ngspice's: the
// lower of drain and source is the source, PMOS mirrored) and f = 1 + λ·|v_ds| where the channel
// conducts, over trapezoidal weights |I_0|·dt:
//
//   conducted = ∫ |I_0| dt
//   mean      = ∫ |I_0|·f dt / conducted            the charge-weighted factor
//   error     = ∫ |I_0|·|f/F − 1| dt / conducted    the charge-weighted current error of F
//   f_lo, f_hi = the extremes of f where |I_0| ≥ kLambdaShare·(the largest |I_0| so far)
//
// error ≤ kLambdaTolerance passes. Otherwise a warning with the numbers, and, when |mean/F − 1|
// > kLambdaTolerance, a LambdaMiss: the caller may run again with F = mean (app refit_ranges),
// which leaves the spread of f about its mean: the half bridge of tests/app/mos_lambda_test.cpp,
// whose high side conducts in saturation at |v_ds| ≈ 14 V, had its inductor current 15 % under
// ngspice's with F from the initial point (off there: F = 1), 3 % after (with a warning of the
// 5.4 % spread). A switch whose |v_ds| is near 0 while it conducts (the bucks of examples/)
// passes: its charge flows at f ≈ F.
#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "circuit/circuit.hpp"
#include "circuit/transient.hpp"

namespace nsspice::circuit::detail {

inline constexpr double kLambdaTolerance = 0.01;
inline constexpr double kLambdaShare = 0.01;

class MosLambdaCheck {
 public:
  explicit MosLambdaCheck(const Circuit& circuit);
  bool empty() const { return watches_.empty(); }
  // One accepted point's unknowns.
  void add(double t, const Eigen::VectorXd& x);
  void warn(std::vector<std::string>& warnings, std::vector<LambdaMiss>& misses) const;

  // The sums of one device (header), for the tests.
  struct Sums {
    double conducted = 0, mean = 1, error = 0, f_lo = 1, f_hi = 1, peak = 0;
  };
  Sums sums(size_t k) const;

 private:
  struct Watch {
    const Mosfet* mos = nullptr;  // in the circuit, which outlives the check
    std::string model;
    double k = 0, factor = 1;  // K = KP·W/L, and F
    bool refitted = false;
    // The last point's weight |I_0|, |I_0|·f and |I_0|·|f/F − 1|, and the integrals.
    double i = 0, i_f = 0, i_e = 0;
    double conducted = 0, weighted = 0, erred = 0, peak = 0;
    double f_lo = 1e300, f_hi = -1e300;
  };
  std::vector<Watch> watches_;
  double t_ = 0;
  bool started_ = false;
};

// The same factor over a .dc sweep of sources (analysis_dc.cpp), whose points share one
// elaborated circuit, so F stays 1 + λ·|v_ds0| at the operating point of the netlist as written
// while the sweep moves v_ds: at each point where the channel conducts (|I_0| ≥ kLambdaShare of
// the largest so far) the PWL current is I_0·F against ngspice's I_0·f. The largest |F/f − 1|
// above kLambdaTolerance is a warning with the point (a .param sweep elaborates every value and
// needs none): a common-source stage swept from 1 to 2 V on its gate had v(d) 3.977 V at 2 V
// against ngspice's 4.545 V, with nothing said.
class MosLambdaSweepCheck {
 public:
  explicit MosLambdaSweepCheck(const Circuit& circuit);
  bool empty() const { return watches_.empty(); }
  // One point's unknowns; `where` names it ("vg = 2"), called only for a new worst point.
  void add(const Eigen::VectorXd& x, const std::function<std::string()>& where);
  void warn(std::vector<std::string>& warnings) const;

 private:
  struct Watch {
    const Mosfet* mos = nullptr;
    std::string model;
    double k = 0, factor = 1, peak = 0;
    double f_lo = 1e300, f_hi = -1e300;
    double worst = 0, worst_f = 1, worst_vds = 0;  // the largest |F/f − 1| and its point
    std::string where;
  };
  std::vector<Watch> watches_;
};

}  // namespace nsspice::circuit::detail
