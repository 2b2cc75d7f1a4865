#pragma once
// The measurements of a .dc or an .ac run (.meas dc / .meas ac cards, --meas): measure.hpp's
// MeasureSet fed with the sweep's value as its scale (MeasureScale: the swept source's value,
// or the frequency). An .ac signal is complex; a measurement reads it through ngspice's vector
// forms (ac_part.hpp): v(out) its real part, vdb(out), vm(out), vp(out), vr(out), vi(out).
#include <complex>
#include <span>
#include <string>
#include <vector>

#include "app/measure/ac_part.hpp"
#include "app/measure/measure.hpp"

namespace nsspice::app {

class SweepMeasures {
 public:
  // `names`: the run's signals; `complex`: an .ac run (the forms above are columns too).
  SweepMeasures(MeasureScale scale, const std::vector<std::string>& names, bool complex);
  // Binds one measurement; false with `error` set as MeasureSet::add (an unknown signal).
  bool add(const MeasureSpec& spec, std::string& error);
  bool empty() const { return set_.empty(); }
  // The run's signals the measurements read (indices into `names`): feed() takes their values
  // in this order.
  const std::vector<size_t>& signals() const { return signals_; }
  // One point of the sweep: the values of signals() (.ac: real and imaginary parts).
  void feed(double scale, std::span<const double> re, std::span<const double> im = {});
  std::vector<MeasureResult> results() const { return set_.results(); }

 private:
  struct Column {
    size_t signal;  // into the run's names
    AcPart part;
  };
  MeasureSet set_;
  bool complex_;
  size_t signal_count_;
  std::vector<std::string> names_;  // the run's names, then the .ac forms read
  std::vector<Column> columns_;     // of names_
  std::vector<size_t> signals_;     // the run's signals read, in order
  std::vector<size_t> slot_;        // names_ index → its signal's place in signals_ (or npos)
  std::vector<double> values_;      // a row of names_
};

}  // namespace nsspice::app
