// Netlist parsing entry points: text -> Netlist (the PARSED tree, see ast.hpp) + diagnostics.
// Call flatten() (netlist/flatten.hpp) next to expand includes, parameters and subcircuits.
//
// Line 1 is the title. Then cards, one per line, '+' lines continuing the previous card;
// '*' lines, and ';' / " $ " / "//" tails are comments; everything after .end is ignored.
// Errors never stop the parse: a bad card is reported and skipped.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "netlist/ast.hpp"
#include "netlist/diagnostics.hpp"
#include "netlist/source.hpp"

namespace nsspice::netlist {

struct ParseOptions {
  bool has_title = true;  // false for included files: their line 1 is a card
  std::string location;   // real path of the text (for .include); empty = the shown name
};

// A missing/unreadable file gives one error without a file:
// "cannot open netlist 'x.cir': No such file or directory". `display_name` (default: the
// path) is the name shown in diagnostics; includes are resolved relative to `path`.
Netlist parse_file(const std::filesystem::path& path, SourceManager& sources, Diagnostics& diags,
                   std::string display_name = {});

// `name` is the path shown in diagnostics.
Netlist parse_string(std::string_view text, std::string name, SourceManager& sources,
                     Diagnostics& diags, ParseOptions options = {});

// Reads a whole file; returns 0 or an errno value.
int read_text_file(const std::filesystem::path& path, std::string& text);

}  // namespace nsspice::netlist
