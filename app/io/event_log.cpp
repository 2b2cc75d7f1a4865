#include "app/io/event_log.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iterator>

#include "app/io/file_write.hpp"

namespace nsspice::app {

std::string event_log_path(const std::string& output) {
  std::filesystem::path p(output);
  p.replace_filename(p.stem().string() + ".events.csv");
  return p.string();
}

std::string write_event_log(const std::string& path,
                            const std::vector<circuit::EventLogEntry>& events) {
  std::string text = "time,device,transition,cause,impulse,jump_signal,jump_from,jump_to,pair\n";
  auto out = std::back_inserter(text);
  for (const auto& e : events)
    fmt::format_to(out, "{},{},{},{},{},{},{},{},{}\n", e.t, e.device, e.transition, e.cause,
                   e.impulse, e.jump_signal, e.jump_from, e.jump_to, e.pair);
  return write_whole_file(path, text);
}

std::string format_event_log(const std::vector<circuit::EventLogEntry>& events, size_t max_rows) {
  std::string out;
  for (size_t k = 0; k < events.size() && k < max_rows; ++k) {
    const auto& e = events[k];
    std::string jump;
    if (!e.jump_signal.empty())
      jump = fmt::format("  jump {} {:.6g} -> {:.6g}", e.jump_signal, e.jump_from, e.jump_to);
    if (e.impulse != 0) jump += fmt::format(" (impulse {:.4g})", e.impulse);
    out += fmt::format("    t = {:<20.12g} {:<10} {:<8} ({}){}\n", e.t,
                       e.device.empty() ? "-"
                       : e.pair.empty() ? e.device
                                        : fmt::format("{} ({})", e.device, e.pair),
                       e.transition, e.cause, jump);
  }
  if (events.size() > max_rows)
    out += fmt::format("    ... {} more in the event log\n", events.size() - max_rows);
  return out;
}

}  // namespace nsspice::app
