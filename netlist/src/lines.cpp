// Internal: physical lines -> logical cards (comments, continuations, .end, .control blocks).
//
// For each line after the title: cut the comment tail (first of ';', a '$' or "//" preceded by
// a blank or at the line start, '$' also followed by a blank or the end), trim blanks, then
//   ""        -> ignored        '*'... -> comment        '+'... -> append to the current card
//   otherwise -> start a new card; ".end" ends the netlist.
#include "netlist/src/lines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "netlist/units.hpp"

namespace nsspice::netlist::detail {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// Length of the line content before any end-of-line comment.
std::size_t code_length(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const bool after_blank = i == 0 || is_blank(line[i - 1]);
    if (line[i] == ';') return i;
    if (line[i] == '$' && after_blank && (i + 1 == line.size() || is_blank(line[i + 1]))) {
      return i;
    }
    if (line[i] == '/' && after_blank && i + 1 < line.size() && line[i + 1] == '/') return i;
  }
  return line.size();
}

// First word of a card, lower-cased (to spot .end/.control/.endc).
std::string first_word_lower(std::string_view code) {
  std::size_t n = 0;
  while (n < code.size() && !is_blank(code[n]) && code[n] != '(' && code[n] != '=' &&
         code[n] != ',') {
    ++n;
  }
  return ascii_lower(code.substr(0, n));
}

int to_int(std::size_t v) { return static_cast<int>(std::min<std::size_t>(v, 0x7fffffff)); }

}  // namespace

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

SourceSpan LogicalCard::span_of(std::size_t begin, std::size_t end) const {
  if (segments.empty()) return SourceSpan{file, 0, 0, 0};
  // Last segment starting at or before `begin` (the joining blank maps to the previous line).
  auto it = std::upper_bound(segments.begin(), segments.end(), begin,
                             [](std::size_t b, const Segment& s) { return b < s.offset; });
  const Segment& seg = it == segments.begin() ? segments.front() : *(it - 1);
  const std::size_t rel = begin >= seg.offset ? begin - seg.offset : 0;
  const std::size_t seg_end = seg.offset + seg.length;
  const std::size_t clipped_end = std::max(std::min(end, seg_end), begin);
  return SourceSpan{file, seg.line, to_int(seg.column + rel), to_int(clipped_end - begin)};
}

SourceSpan LogicalCard::end_span() const {
  if (segments.empty()) return SourceSpan{file, 0, 0, 0};
  const Segment& seg = segments.back();
  return SourceSpan{file, seg.line, to_int(seg.column + seg.length), 1};
}

SourceSpan LogicalCard::card_span() const {
  if (segments.empty()) return SourceSpan{file, 0, 0, 0};
  const Segment& seg = segments.front();
  return SourceSpan{file, seg.line, seg.column, to_int(seg.length)};
}

namespace {

// (The title line) what it looks like when it is really a card ("V1 in 0 5", ".tran 1u 1m"):
// "element card" or "control card", else "". An element: a first word of an element letter and
// digits or letters, at least four words, the last a number or a source function. A control card:
// one of the cards a netlist cannot do without.
std::string card_like(std::string_view line) {
  std::vector<std::string> words;
  std::string cur;
  for (char c : line) {
    if (c == ' ' || c == '\t') {
      if (!cur.empty()) words.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (!cur.empty()) words.push_back(cur);
  if (words.empty()) return "";
  // Control cards with the arguments they take (a title ".tran without TSTOP" is text).
  const std::string& w0 = words[0];
  const auto number_at = [&](std::size_t k) {
    return k < words.size() && parse_spice_number(words[k]).has_value();
  };
  const auto model_type = [&](std::size_t k) {
    if (k >= words.size()) return false;
    const std::string type = words[k].substr(0, words[k].find('('));
    for (const char* t : {"d", "sw", "csw", "nmos", "pmos", "npn", "pnp", "vdmos", "res"})
      if (type == t) return true;
    return false;
  };
  if (((w0 == ".tran" || w0 == ".ac" || w0 == ".dc") && number_at(1) && number_at(2)) ||
      ((w0 == ".op" || w0 == ".end") && words.size() == 1) || (w0 == ".model" && model_type(2)) ||
      ((w0 == ".include" || w0 == ".inc" || w0 == ".lib") && words.size() >= 2 &&
       words[1].find_first_of("./\"\\") != std::string::npos) ||
      (w0 == ".param" && words.size() >= 2 && words[1].find('=') != std::string::npos))
    return "control card";
  const std::string& first = words[0];
  if (words.size() < 4 || first.size() < 2 || first.size() > 16 ||
      std::string_view("rclvidsqmegfhbwx").find(first[0]) == std::string_view::npos)
    return "";
  if (std::any_of(first.begin(), first.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_';
      }))
    return "";
  if (std::none_of(first.begin(), first.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
    return "";
  const std::string& last = words.back();
  // A source function, however its blanks split it ("pulse(0 5 0 1n 1n 5u 10u)").
  const bool function = std::any_of(words.begin(), words.end(), [](const std::string& w) {
    for (const char* f : {"sin(", "sine(", "pulse(", "pwl(", "exp(", "sffm("})
      if (w.starts_with(f)) return true;
    return false;
  });
  return function || parse_spice_number(last) ? "element card" : "";
}

}  // namespace

SplitText split_cards(int file, std::string_view text, Diagnostics& diags, bool has_title) {
  SplitText out;
  std::size_t pos = 0;
  int line_no = 0;
  bool have_card = false;
  bool in_control = false;
  std::size_t bom = 0;  // bytes of a UTF-8 BOM removed from line 1
  LogicalCard card;
  auto flush = [&] {
    if (have_card) out.cards.push_back(std::move(card));
    card = LogicalCard{};
    have_card = false;
  };
  while (pos < text.size() || line_no == 0) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_no == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") {  // UTF-8 BOM
      line.remove_prefix(3);
      bom = 3;
    }
    if (line_no == 1 && has_title) {
      const std::size_t skip = bom;
      out.title = std::string(line);
      out.title_span = SourceSpan{file, 1, to_int(skip + 1), to_int(line.size())};
      if (const std::string kind = card_like(line); !kind.empty())
        diags.warning(out.title_span,
                      fmt::format("the first line is the title (as in SPICE), so this {} is not "
                                  "read; write a title line above it",
                                  kind));
      continue;
    }
    const std::size_t shift = line_no == 1 ? bom : 0;  // columns count the removed BOM
    std::size_t end = code_length(line);
    std::size_t begin = 0;
    while (begin < end && is_blank(line[begin])) ++begin;
    while (end > begin && is_blank(line[end - 1])) --end;
    if (begin == end || line[begin] == '*') continue;
    if (in_control) {
      const std::string_view code = line.substr(begin, end - begin);
      if (first_word_lower(code) == ".endc") {
        in_control = false;
        continue;
      }
      flush();
      card.file = file;
      card.text = std::string(code);
      card.segments.push_back(Segment{0, code.size(), line_no, to_int(shift + begin + 1)});
      card.control = true;
      have_card = true;
      flush();
      continue;
    }
    if (line[begin] == '+') {
      if (!have_card) {
        diags.error(SourceSpan{file, line_no, to_int(shift + begin + 1), 1},
                    "continuation line without a card to continue");
        continue;
      }
      ++begin;
      card.text += ' ';
      card.segments.push_back(
          Segment{card.text.size(), end - begin, line_no, to_int(shift + begin + 1)});
      card.text.append(line.substr(begin, end - begin));
      continue;
    }
    flush();
    const std::string_view code = line.substr(begin, end - begin);
    card.file = file;
    card.text = std::string(code);
    card.segments.push_back(Segment{0, code.size(), line_no, to_int(shift + begin + 1)});
    have_card = true;
    const std::string word = first_word_lower(code);
    if (word == ".end") break;
    if (word == ".control") {
      flush();
      in_control = true;
    }
  }
  flush();
  return out;
}

}  // namespace nsspice::netlist::detail
