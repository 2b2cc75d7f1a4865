// SourceManager: stores file texts and an index of line starts.
//
// line_starts[0] = 0 and line_starts[i] = 1 + position of the i-th '\n'; line L (1-based) spans
// [line_starts[L-1], next '\n' or end), minus one trailing '\r'.
#include "netlist/source.hpp"

#include <utility>

namespace nsspice::netlist {

int SourceManager::add(std::string path, std::string text, std::string location) {
  File f;
  f.path = std::move(path);
  f.location = std::move(location);
  f.text = std::move(text);
  f.line_starts.push_back(0);
  for (std::size_t i = 0; i < f.text.size(); ++i) {
    if (f.text[i] == '\n') f.line_starts.push_back(i + 1);
  }
  files_.push_back(std::move(f));
  return static_cast<int>(files_.size()) - 1;
}

const SourceManager::File* SourceManager::find(int file) const {
  if (file < 0 || file >= static_cast<int>(files_.size())) return nullptr;
  return &files_[static_cast<std::size_t>(file)];
}

const std::string& SourceManager::path(int file) const {
  static const std::string kEmpty;
  const File* f = find(file);
  return f ? f->path : kEmpty;
}

const std::string& SourceManager::location(int file) const {
  const File* f = find(file);
  if (f == nullptr) return path(file);
  return f->location.empty() ? f->path : f->location;
}

std::string_view SourceManager::text(int file) const {
  const File* f = find(file);
  return f ? std::string_view(f->text) : std::string_view();
}

int SourceManager::line_count(int file) const {
  const File* f = find(file);
  return f ? static_cast<int>(f->line_starts.size()) : 0;
}

std::string_view SourceManager::line_text(int file, int line) const {
  const File* f = find(file);
  if (!f || line < 1 || line > static_cast<int>(f->line_starts.size())) return {};
  const std::size_t begin = f->line_starts[static_cast<std::size_t>(line - 1)];
  std::size_t end = f->text.find('\n', begin);
  if (end == std::string::npos) end = f->text.size();
  if (end > begin && f->text[end - 1] == '\r') --end;
  return std::string_view(f->text).substr(begin, end - begin);
}

}  // namespace nsspice::netlist
