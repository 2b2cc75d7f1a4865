#pragma once
// The event log of an event-driven run (docs/event-driven.md §5): a CSV next to the waveform
// and a table in the run report.
#include <string>
#include <vector>

#include "circuit/transient.hpp"

namespace nsspice::app {

// `<output stem>.events.csv` beside `output`.
std::string event_log_path(const std::string& output);

// Columns: time,device,transition,cause,impulse,jump_signal,jump_from,jump_to. "" when written,
// else "cannot write 'PATH': REASON" (every write checked, app/io/file_write.hpp).
std::string write_event_log(const std::string& path,
                            const std::vector<circuit::EventLogEntry>& events);

// The first `max_rows` events as an indented table (and how many more there are).
std::string format_event_log(const std::vector<circuit::EventLogEntry>& events, size_t max_rows);

}  // namespace nsspice::app
