// Netlist parsing driver: file -> SourceManager -> logical cards -> syntax items -> AST cards.
//
//   netlist := [title] { card } [.end]
//   card    := element (first letter) | X instance | '.' keyword ...
//   body    := { card | .subckt ... .ends | .lib NAME ... .endl }
//   (".lib FILE" with a '.', '/' or '"' in FILE: LTspice's include of a whole library file)
// Cards go to the innermost open body: the netlist, a .subckt definition (nested definitions
// are local to their parent) or a .lib section (top level only). Definitions nest at most
// kMaxSubcktNesting deep: a deeper .subckt is an error and everything up to its matching
// .ends is skipped unread (so no syntax tree ever gets deeper than that, and copying or
// destroying it cannot exhaust the stack). Control cards inside a
// .subckt are warned about and dropped. Each bad card is reported and skipped; parsing always
// continues to the end (or .end).
#include "netlist/parse.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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

// Nesting depth of .subckt definitions (parse.hpp: kMaxSubcktNesting).
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
  int skipping_ = 0;  // > 0: inside a too deep .subckt, this many .ends to go

  // True when the card was consumed by skipping a too deep definition.
  bool skip(const detail::LogicalCard& card);
  void too_deep(const CardReader& r, const Word& keyword);

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
  for (const char* c : {".tran",    ".op",     ".dc",      ".ac",     ".pss",   ".ic",   ".nodeset",
                        ".options", ".option", ".opt",     ".temp",   ".print", ".plot", ".save",
                        ".probe",   ".meas",   ".measure", ".global", ".title", ".step"}) {
    if (k == c) return true;
  }
  return false;
}

bool is_other_analysis(const std::string& k) {
  for (const char* c : {".noise", ".tf", ".pz", ".sens", ".disto", ".four", ".fourier", ".sp"}) {
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
  } else if (k == ".dc") {
    push(detail::parse_dc(r, items));
  } else if (k == ".ac") {
    push(detail::parse_ac(r, items));
  } else if (k == ".pss") {
    push(detail::parse_pss(r, items));
  } else if (k == ".ic") {
    push(detail::parse_ic(r, items));
  } else if (k == ".nodeset") {
    push(detail::parse_nodeset(r, items));
  } else if (k == ".options" || k == ".option" || k == ".opt") {
    push(detail::parse_options(r, items));
  } else if (k == ".print" || k == ".plot" || k == ".save" || k == ".probe") {
    push(detail::parse_save(r, items));
  } else if (k == ".meas" || k == ".measure") {
    push(detail::parse_meas(r, items));
  } else if (k == ".param") {
    push(detail::parse_param(r, items));
  } else if (k == ".step") {
    push(detail::parse_step(r, items));
  } else if (k == ".include" || k == ".inc") {
    push(detail::parse_include(r, items));
  } else if (k == ".lib") {
    lib(r, items);
  } else if (k == ".global") {
    push(detail::parse_global(r, items));
  } else if (k == ".subckt" && stack_.size() > kMaxSubcktNesting) {
    too_deep(r, keyword);
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
    push(detail::parse_temp(r, items));
  } else if (k == ".title") {
    net_.title.clear();
    for (std::size_t i = 1; i < items.size(); ++i) {
      net_.title += (i > 1 ? " " : "") + r.text(items[i]);
    }
  } else if (k == ".control") {
    // Its lines follow as control cards (Parser::control).
  } else if (is_other_analysis(k)) {
    r.warning(keyword.span, fmt::format("unsupported control card '{}' ignored (only .tran, .op, "
                                        ".dc, .ac and .pss analyses exist)",
                                        keyword.text));
  } else {
    r.warning(keyword.span, fmt::format("unsupported control card '{}' ignored", keyword.text));
  }
}

void Parser::too_deep(const CardReader& r, const Word& keyword) {
  std::string chain;
  for (std::size_t i = 1; i < stack_.size(); ++i) {
    if (stack_.size() > 9 && i == 4) {
      chain += " -> ...";
      i = stack_.size() - 3;
    }
    chain += (chain.empty() ? "" : " -> ") + stack_[i].name->text;
  }
  r.error(keyword.span, fmt::format("subcircuit definitions nested more than {} levels deep "
                                    "({}); this definition is skipped up to its '.ends'",
                                    kMaxSubcktNesting, chain));
  skipping_ = 1;
}

bool Parser::skip(const detail::LogicalCard& card) {
  if (skipping_ == 0) return false;
  const std::size_t begin = card.text.find_first_not_of(" \t");
  const std::size_t end = card.text.find_first_of(" \t\r(", begin);
  const std::string first =
      begin == std::string::npos ? "" : ascii_lower(card.text.substr(begin, end - begin));
  if (first == ".subckt") ++skipping_;
  if (first == ".ends") --skipping_;
  return true;
}

// A line of a .control block (ngspice's interpreter), read as nsspice can:
//   tran ...            as a .tran card;       op  as .op;   dc ..., ac ...  as .dc, .ac
//   option(s) ...       as .options;           save ...  as .save
//   wrdata FILE vec...  write FILE [vec...]: FILE is the output file, the vectors are saved
//   set ...             front-end variables: accepted (they shape ngspice's own output)
//   run                 accepted (nsspice runs the analysis anyway)
//   noise tf pz ...     warned: not supported
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
  } else if (word == "dc") {
    push(detail::parse_dc(r, *items));
  } else if (word == "ac") {
    push(detail::parse_ac(r, *items));
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
  } else if (word == "noise" || word == "tf" || word == "pz" || word == "sens" || word == "disto" ||
             word == "fourier" || word == "pss" || word == "sp") {
    warn_once(
        fmt::format("'.control' analysis '{}' not supported, ignored (nsspice runs tran, op, "
                    "dc and ac)",
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
  if (skip(card)) return;
  if (card.control) {
    control(card);
    return;
  }
  if (auto table = detail::parse_table_source(card, diags_)) {
    push(std::move(*table));
    return;
  }
  if (auto func = detail::parse_func_card(card, diags_)) {
    push(std::move(*func));
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
  std::string text;
  if (const std::string why = read_netlist_file(path, text); !why.empty()) {
    diags.error(SourceSpan{}, fmt::format("cannot open netlist '{}': {}", shown, why));
    return Netlist{};
  }
  return parse_string(text, shown, sources, diags, ParseOptions{true, path.string()});
}

std::string byte_size_text(std::uintmax_t bytes) {
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 5) v /= 1024, ++u;
  return v == static_cast<double>(static_cast<std::uintmax_t>(v))
             ? fmt::format("{} {}", static_cast<std::uintmax_t>(v), units[u])
             : fmt::format("{:.1f} {}", v, units[u]);
}

void utf16_to_utf8(std::string& text) {
  // UTF-16 (LTspice on Windows saves netlists so): with a byte-order mark, or little endian
  // without one when the first two characters are ASCII (their high bytes 0).
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  bool little = false, big = false;
  std::size_t k = 0;
  if (text.size() >= 2 && byte(0) == 0xFF && byte(1) == 0xFE) {
    little = true, k = 2;
  } else if (text.size() >= 2 && byte(0) == 0xFE && byte(1) == 0xFF) {
    big = true, k = 2;
  } else if (text.size() >= 4 && byte(0) != 0 && byte(1) == 0 && byte(2) != 0 && byte(3) == 0) {
    little = true;
  }
  if (!little && !big) return;
  std::string out;
  out.reserve(text.size() / 2);
  auto unit = [&](std::size_t at) -> unsigned {
    return little ? byte(at) | (byte(at + 1) << 8) : (byte(at) << 8) | byte(at + 1);
  };
  for (; k + 1 < text.size(); k += 2) {
    unsigned c = unit(k);
    if (c >= 0xD800 && c < 0xDC00 && k + 3 < text.size()) {  // a surrogate pair
      const unsigned low = unit(k + 2);
      if (low >= 0xDC00 && low < 0xE000) {
        c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
        k += 2;
      }
    }
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  text = std::move(out);
}

std::string read_netlist_file(const std::filesystem::path& path, std::string& text,
                              std::uintmax_t max_bytes) {
  // O_NONBLOCK: opening a FIFO that has no writer must not wait for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return error_text(errno != 0 ? errno : ENOENT);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } const closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return error_text(errno);
  if (S_ISDIR(st.st_mode)) return error_text(EISDIR);
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a special file";
    return fmt::format("not a regular file ({})", kind);
  }
  auto too_big = [&](std::uintmax_t size) {
    return fmt::format("{} is more than the limit of {} for a netlist file", byte_size_text(size),
                       byte_size_text(max_bytes));
  };
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  if (size > max_bytes) return too_big(size);
  text.reserve(static_cast<std::size_t>(size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return error_text(errno);
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) return too_big(text.size());  // grew while being read
  }
  utf16_to_utf8(text);
  return {};
}

}  // namespace nsspice::netlist
