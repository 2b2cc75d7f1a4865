// Internal: physical lines -> logical cards.
//
//   file     := title-line { line }
//   line     := blank | comment | '+' continuation | card-start
//   comment  := '*' as first non-blank char;  tails: ';'...  " $ "...  " //"...
// A logical card joins its first line and all '+' continuations with one blank between them;
// every byte of the joined text maps back to its real (line, column) through `segments`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "netlist/diagnostics.hpp"
#include "netlist/source.hpp"

namespace nsspice::netlist::detail {

struct Segment {
  std::size_t offset = 0;  // first byte of this piece in LogicalCard::text
  std::size_t length = 0;
  int line = 0;    // real 1-based line
  int column = 0;  // real 1-based column of the piece's first byte
};

struct LogicalCard {
  int file = -1;
  std::string text;
  std::vector<Segment> segments;  // in text order, separated by one blank in `text`
  bool control = false;           // a command line inside .control ... .endc (no continuations)

  // Span of text[begin, end), clipped to the physical line where it starts.
  SourceSpan span_of(std::size_t begin, std::size_t end) const;
  // One-byte span just past the last byte of the card (where a missing token would go).
  SourceSpan end_span() const;
  // The card's first physical line, from its first non-blank byte.
  SourceSpan card_span() const;
};

struct SplitText {
  std::string title;
  SourceSpan title_span;
  std::vector<LogicalCard> cards;  // stops after a ".end" card (which is included)
};

// Splits the text of `file` into title + logical cards; reports stray continuation lines.
// The lines of a `.control` ... `.endc` block are cards with `control` set (the `.endc` line
// is dropped).
// Without a title (included files) line 1 is an ordinary line.
SplitText split_cards(int file, std::string_view text, Diagnostics& diags, bool has_title = true);

// ASCII lower-case (locale independent, safe for any byte).
std::string ascii_lower(std::string_view s);

}  // namespace nsspice::netlist::detail
