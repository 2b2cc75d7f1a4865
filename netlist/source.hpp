// Source text ownership and location spans.
//
// A SourceSpan names a half-open run of `length` bytes starting at (line, column) of one file;
// lines and columns are 1-based and count bytes (a tab is one column). Line i of a file is the
// text between the (i-1)-th and i-th '\n', with a trailing '\r' removed (CRLF files).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nsspice::netlist {

struct SourceSpan {
  int file = -1;   // index in SourceManager, -1 = no file
  int line = 0;    // 1-based
  int column = 0;  // 1-based
  int length = 0;
};

// Owns the text of every file read; spans refer to files by the index returned from add().
// `path` is the name shown in diagnostics; `location` is where the file really is (used to
// resolve .include paths relative to it); an empty location means "same as path".
class SourceManager {
 public:
  int add(std::string path, std::string text, std::string location = {});
  const std::string& path(int file) const;               // "" for an unknown index
  const std::string& location(int file) const;           // location, else path
  std::string_view text(int file) const;                 // whole text, "" for an unknown index
  std::string_view line_text(int file, int line) const;  // without newline; "" if out of range
  int line_count(int file) const;
  int file_count() const { return static_cast<int>(files_.size()); }

 private:
  struct File {
    std::string path;
    std::string text;
    std::string location;
    std::vector<std::size_t> line_starts;  // byte offset of the first char of each line
  };
  const File* find(int file) const;
  std::vector<File> files_;
};

}  // namespace nsspice::netlist
