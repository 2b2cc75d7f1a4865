// Internal: .include / .lib expansion.
//
//   body := { card }     card := IncludeCard -> cards of the file (or of its section)
// The included text is parsed without a title line; its diagnostics are forwarded with
// "included from here" notes. Paths: shown name = directory of the includer's shown name /
// FILE; real location = directory of the includer's location / FILE (FILE absolute: as is).
// Cycle key: canonical location (+ "#section" for .lib), compared along the include chain.
// PWL file=NAME (LTspice) and FILE NAME (PSpice) are read here too, relative to the card's file:
// its points (blank- or comma-separated numbers, "+t" a time relative to the previous point,
// lines starting with * ; or # comments, a first line that is not numbers a header) become
// the function's args.
// Definitions of an included file join the including body, so their nesting adds to the
// body's: beyond kMaxSubcktNesting in total the include is an error (the syntax tree stays at
// most that deep whatever the files, as the parser keeps each file).
#include "netlist/src/includes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

#include "netlist/parse.hpp"
#include "netlist/src/lines.hpp"
#include "netlist/src/suggest.hpp"
#include "netlist/units.hpp"

namespace nsspice::netlist::detail {
namespace {

namespace fs = std::filesystem;

std::string error_text(int err) { return std::error_code(err, std::generic_category()).message(); }

// ".lib standard.dio" and its siblings: LTspice's built-in model libraries.
bool is_ltspice_standard_library(const IncludeCard& inc) {
  // The file's name after the last '/' or '\\': LTspice writes the library's whole Windows path
  // (.lib C:\Users\...\LTspice\lib\cmp\standard.dio), which is one file name to POSIX paths.
  const std::string& text = inc.path.text;
  const auto slash = text.find_last_of("/\\");
  const std::string name = slash == std::string::npos ? text : text.substr(slash + 1);
  return inc.keyword.lower == ".lib" && !inc.section && ascii_lower(name).starts_with("standard.");
}

std::string canonical_key(const std::string& location) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::path(location), ec);
  if (ec) p = fs::path(location).lexically_normal();
  return p.generic_string();
}

// The file name as written, with "~/" the home directory (as ngspice reads it) and, in a
// relative name written with backslashes only, '\\' a directory separator (LTspice on Windows:
// ".lib models\\diodes.lib").
fs::path include_name(const std::string& written) {
  std::string name = written;
  if (name.starts_with("~/"))
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
      name = std::string(home) + name.substr(1);
  const bool windows_absolute = name.size() > 1 && name[1] == ':';
  if (name.find('/') == std::string::npos && !windows_absolute)
    std::replace(name.begin(), name.end(), '\\', '/');
  return fs::path(name);
}

class Includer {
 public:
  Includer(SourceManager& sources, Reporter& reporter, const FlattenOptions& options)
      : sources_(sources), reporter_(reporter), options_(options) {}

  void push_root(int file) {
    if (file < 0) return;
    chain_.push_back(Level{canonical_key(sources_.location(file)), sources_.path(file)});
  }
  // `depth`: how deep in .subckt definitions this body is (0: the netlist).
  void body(std::vector<Card>& cards, std::vector<SubcktDef>& subckts, std::size_t depth);

 private:
  struct Level {
    std::string key;
    std::string shown;
  };
  SourceManager& sources_;
  Reporter& reporter_;
  const FlattenOptions& options_;
  std::vector<Level> chain_;

  // Parses the file named by `inc` and appends its cards / definitions to the output.
  void include(const IncludeCard& inc, std::vector<Card>& out, std::vector<SubcktDef>& subckts,
               std::size_t depth);
  bool read(const IncludeCard& inc, const std::string& location, std::string& text);
  std::string read_text(const std::string& location, std::string& text) const;  // "" or why not
  // The file named `written` in a card of file `from`: where it really is, and its name as
  // shown (both relative to that file's, unless absolute).
  std::pair<fs::path, fs::path> resolve(const std::string& written, int from) const {
    const fs::path name = include_name(written);
    if (name.is_absolute()) return {name, name};
    return {fs::path(sources_.location(from)).parent_path() / name,
            fs::path(sources_.path(from)).parent_path() / name};
  }
  // PWL file=NAME of the body's sources: the file's points become the function's args.
  void pwl_files(std::vector<Card>& cards);
  void pwl_file(const Param& file, SourceFunction& fn);
};

std::string Includer::read_text(const std::string& location, std::string& text) const {
  if (!options_.read_file)
    return read_netlist_file(fs::path(location), text, options_.max_file_bytes);
  const int err = options_.read_file(location, text);
  if (err != 0) return error_text(err);
  if (text.size() > options_.max_file_bytes)
    return fmt::format("{} is more than the limit of {} for a netlist file",
                       byte_size_text(text.size()), byte_size_text(options_.max_file_bytes));
  return {};
}

bool Includer::read(const IncludeCard& inc, const std::string& location, std::string& text) {
  const std::string why = read_text(location, text);
  if (why.empty()) return true;
  text.clear();
  if (is_ltspice_standard_library(inc)) {
    reporter_.report(Severity::kWarning, inc.path.span,
                     fmt::format("LTspice's standard library '{}' is not available ({}); '.lib' "
                                 "ignored: give the models the netlist uses with .model cards",
                                 inc.path.text, why),
                     nullptr);
    return false;
  }
  reporter_.error(inc.path.span,
                  fmt::format("cannot open {} file '{}': {}", inc.section ? "library" : "include",
                              inc.path.text, why),
                  nullptr);
  return false;
}

// Nesting depth of the definitions (1 for definitions without nested ones; the parser keeps
// it at most kMaxSubcktNesting, which bounds this recursion).
std::size_t nesting(const std::vector<SubcktDef>& defs) {
  std::size_t deepest = 0;
  for (const SubcktDef& d : defs) deepest = std::max(deepest, 1 + nesting(d.subckts));
  return deepest;
}

void Includer::include(const IncludeCard& inc, std::vector<Card>& out,
                       std::vector<SubcktDef>& subckts, std::size_t depth) {
  if (!options_.allow_includes) {
    reporter_.error(
        inc.keyword.span,
        fmt::format("'{}' is not allowed here (includes are disabled)", inc.keyword.lower),
        nullptr);
    return;
  }
  if (chain_.size() > static_cast<std::size_t>(kMaxIncludeDepth)) {
    reporter_.error(inc.keyword.span,
                    fmt::format("includes nested more than {} levels deep", kMaxIncludeDepth),
                    nullptr);
    return;
  }
  const auto [location, shown] = resolve(inc.path.text, inc.span.file);
  std::string key = canonical_key(location.string());
  if (inc.section) key += "#" + inc.section->lower;
  for (std::size_t i = 0; i < chain_.size(); ++i) {
    if (chain_[i].key != key) continue;
    std::string cycle;
    for (std::size_t j = i; j < chain_.size(); ++j) cycle += chain_[j].shown + " -> ";
    reporter_.error(inc.path.span,
                    fmt::format("include cycle: {}{}", cycle, shown.lexically_normal().string()),
                    nullptr);
    return;
  }
  std::string text;
  if (!read(inc, location.string(), text)) return;
  Diagnostics local;
  Netlist sub = parse_string(text, shown.lexically_normal().string(), sources_, local,
                             ParseOptions{false, location.string()});
  const int file = sources_.file_count() - 1;
  reporter_.set_included_from(file, inc.span);
  for (const Diagnostic& d : local.all()) reporter_.forward(d);
  std::vector<Card>* cards = &sub.cards;
  std::vector<SubcktDef>* defs = &sub.subckts;
  if (inc.section) {
    LibSection* section = nullptr;
    std::vector<std::string> names;
    for (LibSection& s : sub.libs) {
      names.push_back(s.name.lower);
      if (s.name.lower == inc.section->lower) section = &s;
    }
    if (section == nullptr) {
      reporter_.error(inc.section->span,
                      fmt::format("library '{}' has no section '{}'{}", inc.path.text,
                                  inc.section->text, did_you_mean(inc.section->lower, names)),
                      nullptr);
      return;
    }
    cards = &section->cards;
    defs = &section->subckts;
  }
  // Definitions of an included file join the including body: their nesting adds up.
  if (const std::size_t inner = nesting(*defs); depth + inner > kMaxSubcktNesting) {
    reporter_.error(inc.keyword.span,
                    fmt::format("subcircuit definitions nested more than {} levels deep through "
                                "this include ({} levels in '{}' included {} levels deep); its "
                                "cards are not used",
                                kMaxSubcktNesting, inner, inc.path.text, depth),
                    nullptr);
    return;
  }
  chain_.push_back(Level{key, shown.lexically_normal().string()});
  body(*cards, *defs, depth);
  chain_.pop_back();
  for (Card& c : *cards) out.push_back(std::move(c));
  for (SubcktDef& d : *defs) subckts.push_back(std::move(d));
}

void Includer::pwl_file(const Param& file, SourceFunction& fn) {
  if (!options_.allow_includes) {
    reporter_.error(file.span, "PWL file= is not allowed here (includes are disabled)", nullptr);
    return;
  }
  std::string written = file.raw.text;
  if (written.size() >= 2 && (written.front() == '"' || written.front() == '\'') &&
      written.back() == written.front())
    written = written.substr(1, written.size() - 2);
  const auto [location, shown] = resolve(written, file.raw.span.file);
  std::string text;
  if (const std::string why = read_text(location.string(), text); !why.empty()) {
    reporter_.error(file.raw.span, fmt::format("cannot open PWL file '{}': {}", written, why),
                    nullptr);
    return;
  }
  const int index =
      sources_.add(shown.lexically_normal().string(), std::move(text), location.string());
  const std::string_view all = sources_.text(index);
  bool header_seen = false;
  int line_no = 0;
  std::size_t begin = 0;
  SourceSpan last{index, 1, 1, 0};
  while (begin <= all.size()) {
    std::size_t end = all.find('\n', begin);
    if (end == std::string_view::npos) end = all.size();
    ++line_no;
    std::string_view line = all.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    begin = end + 1;
    // The words of the line: separated by blanks and commas.
    std::vector<std::pair<std::size_t, std::string_view>> words;
    for (std::size_t i = 0; i < line.size();) {
      while (i < line.size() &&
             (std::isspace(static_cast<unsigned char>(line[i])) || line[i] == ','))
        ++i;
      std::size_t j = i;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])) &&
             line[j] != ',')
        ++j;
      if (j > i) words.emplace_back(i, line.substr(i, j - i));
      i = j;
    }
    if (words.empty() || words.front().second.front() == '*' ||
        words.front().second.front() == ';' || words.front().second.front() == '#')
      continue;
    const auto span_of = [&](std::size_t col, std::size_t len) {
      return SourceSpan{index, line_no, static_cast<int>(col) + 1, static_cast<int>(len)};
    };
    if (!header_seen && fn.args.empty() && !parse_spice_number(words.front().second)) {
      header_seen = true;
      reporter_.report(Severity::kWarning, span_of(0, line.size()),
                       fmt::format("PWL file '{}': its first line is not numbers, taken as a "
                                   "header and skipped",
                                   written),
                       nullptr);
      continue;
    }
    header_seen = true;
    for (const auto& [col, word] : words) {
      const auto v = parse_spice_number(word);
      if (!v) {
        reporter_.error(span_of(col, word.size()),
                        fmt::format("expected a number in PWL file '{}', got '{}'", written, word),
                        nullptr);
        fn.args.clear();
        return;
      }
      last = span_of(col, word.size());
      if (fn.args.size() % 2 == 0 && word.front() == '+') fn.relative.push_back(fn.args.size());
      fn.args.push_back(Value{*v, last, {}});
    }
  }
  if (fn.args.size() % 2 != 0)
    reporter_.error(last,
                    fmt::format("PWL file '{}' holds an odd count of numbers ({}): the "
                                "last time has no value",
                                written, fn.args.size()),
                    nullptr);
  else if (fn.args.empty())
    reporter_.error(file.raw.span, fmt::format("PWL file '{}' holds no points", written), nullptr);
}

void Includer::pwl_files(std::vector<Card>& cards) {
  for (Card& c : cards) {
    auto* e = std::get_if<ElementCard>(&c);
    if (e == nullptr) continue;
    for (SourceFunction& fn : e->functions) {
      if (fn.kind.lower != "pwl") continue;
      const auto it = std::find_if(fn.params.begin(), fn.params.end(),
                                   [](const Param& p) { return p.name.lower == "file"; });
      if (it == fn.params.end()) continue;
      const Param file = *it;
      fn.params.erase(it);
      if (!fn.args.empty()) {
        reporter_.error(file.span, "PWL: points and a file together; give one of them", nullptr);
        continue;
      }
      pwl_file(file, fn);
    }
  }
}

void Includer::body(std::vector<Card>& cards, std::vector<SubcktDef>& subckts, std::size_t depth) {
  for (SubcktDef& def : subckts) body(def.cards, def.subckts, depth + 1);
  pwl_files(cards);
  bool any = false;
  for (const Card& c : cards) any = any || std::holds_alternative<IncludeCard>(c);
  if (!any) return;
  std::vector<Card> out;
  out.reserve(cards.size());
  for (Card& c : cards) {
    if (const auto* inc = std::get_if<IncludeCard>(&c)) {
      include(*inc, out, subckts, depth);
    } else {
      out.push_back(std::move(c));
    }
  }
  cards = std::move(out);
}

}  // namespace

void expand_includes(Netlist& net, int root_file, SourceManager& sources, Reporter& reporter,
                     const FlattenOptions& options) {
  Includer includer(sources, reporter, options);
  includer.push_root(root_file);
  includer.body(net.cards, net.subckts, 0);
}

}  // namespace nsspice::netlist::detail
