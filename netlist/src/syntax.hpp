// Internal: generic card syntax (the part of a card grammar common to all card kinds).
//
//   card  := item*                          separators: blanks and ','
//   item  := (word [group] | group) ['=' word]
//   group := '(' item* ')'
//   word  := 1*(any byte except blank , ( ) =)
// Examples: "R1" -> word; "SIN(0 1 1k)" -> word+group; "IC=1.5" -> word '=' word;
// "V(out)=0" -> word+group '=' word. Card parsers give these items their meaning.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "netlist/diagnostics.hpp"
#include "netlist/src/lines.hpp"

namespace nsspice::netlist::detail {

struct Token {
  std::string text;
  std::size_t begin = 0;  // offsets into LogicalCard::text
  std::size_t end = 0;
};

struct Item {
  Token word;  // empty text for a bare group
  bool has_group = false;
  std::vector<Item> args;  // group contents
  bool has_value = false;
  Token value;  // right-hand side of '='
  std::size_t begin = 0;
  std::size_t end = 0;

  bool is_plain() const { return !word.text.empty() && !has_group && !has_value; }
};

// Parses the card; on a syntax error reports it and returns nullopt.
std::optional<std::vector<Item>> parse_card_syntax(const LogicalCard& card, Diagnostics& diags);

}  // namespace nsspice::netlist::detail
