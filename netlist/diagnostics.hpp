// Error/warning collection and clang-style rendering.
//
// format():  <path>:<line>:<col>: <severity>: <message>\n<source line>\n<caret line>\n
// where the caret line holds column-1 blanks (tabs copied from the source line so the caret
// aligns), '^' under span.column and '~' for the remaining span.length-1 bytes. A diagnostic
// without a file renders as "nsspice: <severity>: <message>\n". Notes follow their parent.
#pragma once

#include <string>
#include <vector>

#include "netlist/source.hpp"

namespace nsspice::netlist {

enum class Severity { kError, kWarning, kNote };

struct Diagnostic {
  Severity severity = Severity::kError;
  SourceSpan span;
  std::string message;
  std::vector<Diagnostic> notes;
};

class Diagnostics {
 public:
  void error(SourceSpan span, std::string message);
  void warning(SourceSpan span, std::string message);
  void add(Diagnostic d);
  bool has_errors() const { return error_count_ > 0; }
  int error_count() const { return error_count_; }
  int warning_count() const { return warning_count_; }
  const std::vector<Diagnostic>& all() const { return all_; }
  std::string format(const SourceManager& sources) const;

 private:
  std::vector<Diagnostic> all_;
  int error_count_ = 0;
  int warning_count_ = 0;
};

// Renders one diagnostic (and its notes) in the format described above.
std::string format_diagnostic(const Diagnostic& d, const SourceManager& sources);

}  // namespace nsspice::netlist
