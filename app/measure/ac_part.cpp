#include "app/measure/ac_part.hpp"

#include <cmath>

#include "app/io/analysis_writer.hpp"
#include "app/io/signals.hpp"

namespace nsspice::app {

std::optional<AcForm> ac_form(std::string_view name) {
  if (name.size() < 4 || (name[0] != 'v' && name[0] != 'i') || name.back() != ')') return {};
  const size_t open = name.find('(');
  if (open == std::string_view::npos) return {};
  const std::string_view part = name.substr(1, open - 1);
  AcForm form;
  form.signal.push_back(name[0]);  // "v" + "(out)"
  form.signal.append(name.substr(open));
  if (part == "db")
    form.part = AcPart::kDb;
  else if (part == "m")
    form.part = AcPart::kMagnitude;
  else if (part == "p")
    form.part = AcPart::kPhase;
  else if (part == "r")
    form.part = AcPart::kReal;
  else if (part == "i")
    form.part = AcPart::kImag;
  else
    return {};
  return form;
}

double ac_value(std::complex<double> z, AcPart part) {
  switch (part) {
    case AcPart::kReal:
      return z.real();
    case AcPart::kImag:
      return z.imag();
    case AcPart::kMagnitude:
      return std::abs(z);
    case AcPart::kDb:
      return magnitude_db(z);
    case AcPart::kPhase:
      return std::arg(z);
  }
  return z.real();
}

std::string ac_unit(const AcForm& form) {
  if (form.part == AcPart::kDb) return "dB";
  if (form.part == AcPart::kPhase) return "rad";
  return unit_of(signal_kind(form.signal));
}

}  // namespace nsspice::app
