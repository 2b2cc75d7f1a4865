#pragma once
// Every file nsspice writes is checked to the end: fopen, each fwrite, fflush and fclose. A
// write that fails (disk full, quota, a read-only or vanished folder, an I/O error) is reported
// with the file and the reason (strerror), and the command exits with code 3
// (docs/output.md, "Exit codes").
#include <string>
#include <string_view>

namespace nsspice::app {

// "cannot write 'PATH': REASON", REASON = strerror(error_number).
std::string write_failure(const std::string& path, int error_number);

// Writes `text` as the whole content of `path` (created or truncated). "" on success, else
// write_failure(path, errno of the step that failed).
std::string write_whole_file(const std::string& path, std::string_view text);

}  // namespace nsspice::app
