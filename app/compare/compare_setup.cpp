#include "app/compare/compare_setup.hpp"

#include <algorithm>
#include <cerrno>

#include "app/io/file_write.hpp"
#include "app/io/raw_writer.hpp"
#include "app/io/signals.hpp"

namespace nsspice::app {

std::set<std::string> switching_signals(const circuit::Circuit& c) {
  std::set<std::string> out;
  for (const auto& d : c.devices)
    if (std::holds_alternative<circuit::Diode>(d) || std::holds_alternative<circuit::Switch>(d))
      out.insert("i(" + circuit::device_name(d) + ")");
  return out;
}

bool has_spice_diodes(const circuit::Circuit& c) {
  return std::any_of(c.devices.begin(), c.devices.end(), [](const circuit::Device& d) {
    const auto* diode = std::get_if<circuit::Diode>(&d);
    return diode != nullptr && diode->model.spice;
  });
}

bool has_spice_models(const circuit::Circuit& c) {
  return has_spice_diodes(c) ||
         std::any_of(c.devices.begin(), c.devices.end(), [](const circuit::Device& d) {
           const auto* m = std::get_if<circuit::Mosfet>(&d);
           return (m != nullptr && m->model.spice) || std::holds_alternative<circuit::Bjt>(d);
         });
}

std::vector<std::string> default_plot_signals(const Waveforms& ns,
                                              const std::set<std::string>& switching) {
  std::vector<std::string> out;
  int v = 0, i = 0;
  for (const auto& n : ns.names) {
    if (signal_kind(n) == SignalKind::kVoltage && v < 3) out.push_back(n), ++v;
  }
  for (const auto& n : ns.names)
    if (switching.contains(n) && i < 2) out.push_back(n), ++i;
  if (i == 0)
    for (const auto& n : ns.names)
      if (signal_kind(n) == SignalKind::kCurrent && i < 1) out.push_back(n), ++i;
  return out;
}

std::string write_run_raw(const std::string& path, const std::string& title, const Waveforms& ns) {
  RawWriter raw(true);
  if (!raw.open(path, title, ns.names)) return write_failure(path, errno);
  std::vector<double> row(ns.names.size());
  for (size_t i = 0; i < ns.points() && !raw.failed(); ++i) {
    for (size_t k = 0; k < row.size(); ++k) row[k] = ns.columns[k][i];
    raw.row(ns.time[i], row);
  }
  return raw.close() ? std::string() : write_failure(path, raw.error_number());
}

}  // namespace nsspice::app
