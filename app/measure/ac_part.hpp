#pragma once
// The real quantities an .ac measurement reads from a complex signal, written as ngspice's
// .meas ac vectors: vdb(x) = 20 log10 |v(x)|, vm(x) = |v(x)|, vp(x) = arg v(x) in radians
// (ngspice's default units), vr(x) and vi(x) its real and imaginary parts; v(x) alone is the
// real part (ngspice's get_value in com_measure2.c). The same forms of a current: idb(v1), ....
#include <complex>
#include <optional>
#include <string>
#include <string_view>

namespace nsspice::app {

enum class AcPart { kReal, kImag, kMagnitude, kDb, kPhase };

struct AcForm {
  std::string signal;  // the complex signal: "v(out)", "v(a,b)", "i(v1)"
  AcPart part = AcPart::kReal;
};

// "vdb(out)" → {"v(out)", kDb}; nullopt for a name that is not one of the forms above (a plain
// "v(out)" included: it is a signal of the run, read as its real part).
std::optional<AcForm> ac_form(std::string_view name);
double ac_value(std::complex<double> z, AcPart part);
// "dB", "rad", or the signal's own unit ("V", "A").
std::string ac_unit(const AcForm& form);

}  // namespace nsspice::app
