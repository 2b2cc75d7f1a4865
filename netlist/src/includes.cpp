// Internal: .include / .lib expansion.
//
//   body := { card }     card := IncludeCard -> cards of the file (or of its section)
// The included text is parsed without a title line; its diagnostics are forwarded with
// "included from here" notes. Paths: shown name = directory of the includer's shown name /
// FILE; real location = directory of the includer's location / FILE (FILE absolute: as is).
// Cycle key: canonical location (+ "#section" for .lib), compared along the include chain.
// Definitions of an included file join the including body, so their nesting adds to the
// body's: beyond kMaxSubcktNesting in total the include is an error (the syntax tree stays at
// most that deep whatever the files, as the parser keeps each file).
#include "netlist/src/includes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "netlist/parse.hpp"
#include "netlist/src/lines.hpp"
#include "netlist/src/suggest.hpp"

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
};

bool Includer::read(const IncludeCard& inc, const std::string& location, std::string& text) {
  std::string why;
  if (options_.read_file) {
    const int err = options_.read_file(location, text);
    if (err != 0) {
      why = error_text(err);
    } else if (text.size() > options_.max_file_bytes) {
      why = fmt::format("{} is more than the limit of {} for a netlist file",
                        byte_size_text(text.size()), byte_size_text(options_.max_file_bytes));
    }
  } else {
    why = read_netlist_file(fs::path(location), text, options_.max_file_bytes);
  }
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
  const int from = inc.span.file;
  const fs::path name = include_name(inc.path.text);
  const fs::path location =
      name.is_absolute() ? name : fs::path(sources_.location(from)).parent_path() / name;
  const fs::path shown =
      name.is_absolute() ? name : fs::path(sources_.path(from)).parent_path() / name;
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

void Includer::body(std::vector<Card>& cards, std::vector<SubcktDef>& subckts, std::size_t depth) {
  for (SubcktDef& def : subckts) body(def.cards, def.subckts, depth + 1);
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
