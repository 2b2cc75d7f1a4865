// Netlist parsing driver: file -> SourceManager -> logical cards -> syntax items -> AST cards.
//
//   netlist := [title] { card } [.end]
//   card    := element (first letter) | X instance | '.' keyword ...
//   body    := { card | .subckt ... .ends | .lib NAME ... .endl }
//   (".lib FILE" with a '.', '/' or '"' in FILE: LTspice's include of a whole library file)
// Cards go to the innermost open body: the netlist, a .subckt definition (nested definitions
// are local to their parent) or a .lib section (top level only). Control cards inside a
// .subckt are warned about and dropped. Each bad card is reported and skipped; parsing always
// continues to the end (or .end).
#include "netlist/parse.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <set>
#include <system_error>

#include "netlist/src/card_reader.hpp"
#include "netlist/src/lines.hpp"
#include "netlist/src/syntax.hpp"

namespace nsspice::netlist {
namespace {

using detail::ascii_lower;
using detail::CardReader;
using detail::Item;

// Where cards go: the netlist, a subcircuit or a library section.
struct Body {
  std::vector<Card>* cards;
  std::vector<SubcktDef>* subckts;
  const Word* name;  // subckt/section name; null for the netlist
  bool is_lib;
  bool discard = false;  // a .subckt with a bad header: its cards are read and dropped
};

class Parser {
 public:
  Parser(Netlist& net, Diagnostics& diags) : net_(net), diags_(diags) {
    stack_.push_back(Body{&net.cards, &net.subckts, nullptr, false});
  }
  void card(const detail::LogicalCard& card);
  void finish();

 private:
  Netlist& net_;
  Diagnostics& diags_;
  std::vector<Body> stack_;
  std::vector<std::unique_ptr<SubcktDef>> discarded_;  // bodies of bad .subckt headers

  Body& body() { return stack_.back(); }
  bool in_subckt() const { return stack_.size() > 1 && !stack_.back().is_lib; }
  template <typename T>
  void push(std::optional<T> card) {
    if (card) body().cards->emplace_back(std::move(*card));
  }
  void dot_card(const CardReader& r, const std::vector<Item>& items, const Word& keyword);
  void close(const CardReader& r, const std::vector<Item>& items, const Word& keyword, bool lib);
  void lib(const CardReader& r, const std::vector<Item>& items);
  void control(const detail::LogicalCard& card);
  std::set<std::string> control_warned_;  // commands warned about (once each)
};

bool is_control_card(const std::string& k) {
  for (const char* c : {".tran", ".op", ".ic", ".nodeset", ".options", ".option", ".opt", ".temp",
                        ".print", ".save", ".probe", ".meas", ".measure", ".global", ".title"}) {
    if (k == c) return true;
  }
  return false;
}

bool is_other_analysis(const std::string& k) {
  for (const char* c : {".ac", ".dc", ".noise", ".tf", ".pz", ".sens", ".disto", ".four",
                        ".fourier", ".pss", ".sp"}) {
    if (k == c) return true;
  }
  return false;
}

void Parser::close(const CardReader& r, const std::vector<Item>& items, const Word& keyword,
                   bool lib) {
  const char* opener = lib ? ".lib" : ".subckt";
  if (stack_.size() == 1 || stack_.back().is_lib != lib) {
    r.error(keyword.span, fmt::format("'{}' without a matching '{}'", keyword.lower, opener));
    return;
  }
  if (items.size() > 1 && !body().discard &&
      ascii_lower(items[1].word.text) != body().name->lower) {
    r.warning(r.span(items[1]), fmt::format("'{} {}' closes '{} {}'", keyword.lower,
                                            r.text(items[1]), opener, body().name->text));
  }
  stack_.pop_back();
}

// ".lib NAME" opens a section, unless NAME looks like a file ("standard.dio", "my/models",
// "\"x y.lib\""): LTspice's ".lib FILE" includes the whole file.
bool looks_like_file(const std::string& word) {
  return word.find_first_of("./\\\"") != std::string::npos;
}

void Parser::lib(const CardReader& r, const std::vector<Item>& items) {
  if (items.size() != 2 || (items[1].is_plain() && looks_like_file(items[1].word.text))) {
    push(detail::parse_include(r, items));
    return;
  }
  if (stack_.size() > 1) {
    r.error(r.span(items[0]), "a '.lib' section must be at the top level of a file");
    return;
  }
  auto name = r.name(items[1], "a section name");
  if (!name) return;
  net_.libs.push_back(LibSection{*name, {}, {}, r.card_span()});
  LibSection& s = net_.libs.back();
  stack_.push_back(Body{&s.cards, &s.subckts, &s.name, true});
}

void Parser::dot_card(const CardReader& r, const std::vector<Item>& items, const Word& keyword) {
  const std::string& k = keyword.lower;
  if (in_subckt() && is_control_card(k)) {
    r.warning(keyword.span, fmt::format("'{}' inside subcircuit '{}' ignored (control cards "
                                        "belong at the top level)",
                                        keyword.lower, body().name->text));
    return;
  }
  if (k == ".end") {
    net_.has_end = true;
  } else if (k == ".model") {
    push(detail::parse_model(r, items));
  } else if (k == ".tran") {
    push(detail::parse_tran(r, items));
  } else if (k == ".op") {
    push(detail::parse_op(r, items));
  } else if (k == ".ic") {
    push(detail::parse_ic(r, items));
  } else if (k == ".nodeset") {
    push(detail::parse_nodeset(r, items));
  } else if (k == ".options" || k == ".option" || k == ".opt") {
    push(detail::parse_options(r, items));
  } else if (k == ".print" || k == ".save" || k == ".probe") {
    push(detail::parse_save(r, items));
  } else if (k == ".meas" || k == ".measure") {
    push(detail::parse_meas(r, items));
  } else if (k == ".param") {
    push(detail::parse_param(r, items));
  } else if (k == ".include" || k == ".inc") {
    push(detail::parse_include(r, items));
  } else if (k == ".lib") {
    lib(r, items);
  } else if (k == ".global") {
    push(detail::parse_global(r, items));
  } else if (k == ".subckt") {
    if (auto def = detail::parse_subckt_header(r, items)) {
      body().subckts->push_back(std::move(*def));
      SubcktDef& d = body().subckts->back();
      stack_.push_back(Body{&d.cards, &d.subckts, &d.name, false});
    } else {
      discarded_.push_back(std::make_unique<SubcktDef>());
      SubcktDef& d = *discarded_.back();
      d.name = keyword;
      stack_.push_back(Body{&d.cards, &d.subckts, &d.name, false, true});
    }
  } else if (k == ".ends") {
    close(r, items, keyword, false);
  } else if (k == ".endl") {
    close(r, items, keyword, true);
  } else if (k == ".backanno") {
    // LTspice's back-annotation of schematic pins: no meaning for a simulation, ignored.
  } else if (k == ".temp") {
    r.warning(keyword.span, "'.temp' ignored: nsspice devices do not depend on temperature");
  } else if (k == ".title") {
    net_.title.clear();
    for (std::size_t i = 1; i < items.size(); ++i) {
      net_.title += (i > 1 ? " " : "") + r.text(items[i]);
    }
  } else if (k == ".control") {
    // Its lines follow as control cards (Parser::control).
  } else if (is_other_analysis(k)) {
    r.warning(keyword.span, fmt::format("unsupported control card '{}' ignored (only .tran and "
                                        ".op analyses exist)",
                                        keyword.text));
  } else {
    r.warning(keyword.span, fmt::format("unsupported control card '{}' ignored", keyword.text));
  }
}

// A line of a .control block (ngspice's interpreter), read as nsspice can:
//   tran ...            as a .tran card;       op  as .op
//   option(s) ...       as .options;           save ...  as .save
//   wrdata FILE vec...  write FILE [vec...]: FILE is the output file, the vectors are saved
//   set ...             front-end variables: accepted (they shape ngspice's own output)
//   run                 accepted (nsspice runs the analysis anyway)
//   ac dc noise ...     warned: not supported (only the transient analysis runs)
//   anything else (plot, let, echo, print, quit, loops, ...) warned once per command word.
void Parser::control(const detail::LogicalCard& card) {
  Diagnostics local;
  auto items = detail::parse_card_syntax(card, local);
  const std::string word = detail::ascii_lower(card.text.substr(0, card.text.find_first_of(" \t")));
  const SourceSpan at = card.span_of(0, word.size());
  auto warn_once = [&](const std::string& message) {
    if (control_warned_.insert(word).second) diags_.warning(at, message);
  };
  if (!items || items->empty() || !items->front().is_plain()) {
    warn_once(
        fmt::format("'.control' command '{}' ignored (nsspice does not run ngspice's "
                    "interpreter)",
                    word));
    return;
  }
  for (const Diagnostic& d : local.all()) diags_.add(d);
  const CardReader r(card, diags_);
  if (word == "tran") {
    push(detail::parse_tran(r, *items));
  } else if (word == "op") {
    push(detail::parse_op(r, *items));
  } else if (word == "option" || word == "options" || word == "opt") {
    push(detail::parse_options(r, *items));
  } else if (word == "save") {
    push(detail::parse_save(r, *items));
  } else if (word == "wrdata" || word == "write") {
    if (items->size() < 2 || !(*items)[1].is_plain()) {
      diags_.warning(at, fmt::format("'{}' without a file name ignored", word));
      return;
    }
    Word file = r.word((*items)[1].word);
    if (file.text.size() >= 2 && (file.text.front() == '"' || file.text.front() == '\'')) {
      file.text = file.text.substr(1, file.text.size() - 2);
      file.lower = detail::ascii_lower(file.text);
    }
    net_.output_file = file;
    if (items->size() > 2) {
      std::vector<Item> save{items->front()};  // the command and the vectors after FILE
      save.insert(save.end(), items->begin() + 2, items->end());
      push(detail::parse_save(r, save));
    }
  } else if (word == "set" || word == "run") {
    // accepted: nothing of ngspice's front end to set; the analysis runs anyway
  } else if (word == "ac" || word == "dc" || word == "noise" || word == "tf" || word == "pz" ||
             word == "sens" || word == "disto" || word == "fourier" || word == "pss" ||
             word == "sp") {
    warn_once(
        fmt::format("'.control' analysis '{}' not supported, ignored (only the transient "
                    "analysis runs)",
                    word));
  } else {
    warn_once(
        fmt::format("'.control' command '{}' ignored (nsspice does not run ngspice's "
                    "interpreter; it writes the signals of .save/.print to the output "
                    "file)",
                    word));
  }
}

void Parser::card(const detail::LogicalCard& card) {
  if (card.control) {
    control(card);
    return;
  }
  auto items = detail::parse_card_syntax(card, diags_);
  if (!items || items->empty()) return;
  const CardReader r(card, diags_);
  const Item& first = items->front();
  if (!first.is_plain()) {
    r.error(r.span(first),
            fmt::format("expected an element name or a control card, got '{}'", r.text(first)));
    return;
  }
  const Word keyword = r.word(first.word);
  if (keyword.lower.front() == '.') {
    dot_card(r, *items, keyword);
  } else {
    push(detail::parse_element_or_instance(r, *items));
  }
}

void Parser::finish() {
  for (std::size_t i = stack_.size() - 1; i >= 1; --i) {
    const Body& b = stack_[i];
    if (b.is_lib) {
      diags_.error(b.name->span,
                   fmt::format("library section '{}' has no '.endl' (to use a section of a "
                               "library file, write '.lib FILE SECTION')",
                               b.name->text));
    } else if (!b.discard) {
      diags_.error(b.name->span, fmt::format("subcircuit '{}' has no '.ends'", b.name->text));
    }
  }
}

std::string error_text(int err) { return std::error_code(err, std::generic_category()).message(); }

}  // namespace

Netlist parse_string(std::string_view text, std::string name, SourceManager& sources,
                     Diagnostics& diags, ParseOptions options) {
  const int file = sources.add(std::move(name), std::string(text), std::move(options.location));
  detail::SplitText split = detail::split_cards(file, sources.text(file), diags, options.has_title);
  Netlist net;
  net.title = std::move(split.title);
  net.title_span = split.title_span;
  Parser parser(net, diags);
  for (const detail::LogicalCard& card : split.cards) parser.card(card);
  parser.finish();
  return net;
}

Netlist parse_file(const std::filesystem::path& path, SourceManager& sources, Diagnostics& diags,
                   std::string display_name) {
  const std::string shown = display_name.empty() ? path.string() : display_name;
  auto fail = [&](int err) {
    diags.error(SourceSpan{}, fmt::format("cannot open netlist '{}': {}", shown, error_text(err)));
    return Netlist{};
  };
  std::string text;
  if (const int err = read_text_file(path, text); err != 0) return fail(err);
  return parse_string(text, shown, sources, diags, ParseOptions{true, path.string()});
}

int read_text_file(const std::filesystem::path& path, std::string& text) {
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.string().c_str(), "rb"),
                                                    &std::fclose);
  if (!f) return errno != 0 ? errno : ENOENT;
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f.get())) > 0) text.append(buffer, n);
  if (std::ferror(f.get())) return errno != 0 ? errno : EIO;
  return 0;
}

}  // namespace nsspice::netlist
