// Diagnostics collection and clang/gcc-style rendering.
//
//   <path>:<line>:<col>: <severity>: <message>
//   <source line>
//   <blanks to column-1>^<'~' x (length-1)>
// Blanks copy tabs from the source line so the caret lines up in a terminal. Control bytes
// of the source line other than tabs (NUL, ESC, ...) are shown as '?' so that the terminal
// (or a log) gets only printable text and the caret still lines up.
#include "netlist/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace nsspice::netlist {
namespace {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

void render(const Diagnostic& d, const SourceManager& sources, std::string& out) {
  const char* sev = severity_name(d.severity);
  if (d.span.file < 0 || d.span.file >= sources.file_count()) {
    out += fmt::format("nsspice: {}: {}\n", sev, d.message);
  } else if (d.span.line < 1) {
    out += fmt::format("{}: {}: {}\n", sources.path(d.span.file), sev, d.message);
  } else {
    const int column = std::max(d.span.column, 1);
    out += fmt::format("{}:{}:{}: {}: {}\n", sources.path(d.span.file), d.span.line, column, sev,
                       d.message);
    const std::string_view line = sources.line_text(d.span.file, d.span.line);
    for (const char c : line) {
      const auto u = static_cast<unsigned char>(c);
      out += (u < 0x20 && c != '\t') || u == 0x7f ? '?' : c;
    }
    out += '\n';
    for (std::size_t i = 0; i + 1 < static_cast<std::size_t>(column); ++i) {
      out += (i < line.size() && line[i] == '\t') ? '\t' : ' ';
    }
    out += '^';
    for (int i = 1; i < d.span.length; ++i) out += '~';
    out += '\n';
  }
  for (const Diagnostic& note : d.notes) render(note, sources, out);
}

}  // namespace

void Diagnostics::error(SourceSpan span, std::string message) {
  add(Diagnostic{Severity::kError, span, std::move(message), {}});
}

void Diagnostics::warning(SourceSpan span, std::string message) {
  add(Diagnostic{Severity::kWarning, span, std::move(message), {}});
}

void Diagnostics::add(Diagnostic d) {
  if (d.severity == Severity::kError) ++error_count_;
  if (d.severity == Severity::kWarning) ++warning_count_;
  all_.push_back(std::move(d));
}

std::string format_diagnostic(const Diagnostic& d, const SourceManager& sources) {
  std::string out;
  render(d, sources, out);
  return out;
}

std::string Diagnostics::format(const SourceManager& sources) const {
  std::string out;
  for (const Diagnostic& d : all_) render(d, sources, out);
  return out;
}

}  // namespace nsspice::netlist
