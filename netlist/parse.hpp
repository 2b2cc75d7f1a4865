// Netlist parsing entry points: text -> Netlist + diagnostics.
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

// A missing/unreadable file gives one error without a file:
// "cannot open netlist 'x.cir': No such file or directory".
Netlist parse_file(const std::filesystem::path& path, SourceManager& sources, Diagnostics& diags);

// `name` is the path shown in diagnostics.
Netlist parse_string(std::string_view text, std::string name, SourceManager& sources,
                     Diagnostics& diags);

}  // namespace nsspice::netlist
