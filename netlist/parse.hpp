// Netlist parsing entry points: text -> Netlist (the PARSED tree, see ast.hpp) + diagnostics.
// Call flatten() (netlist/flatten.hpp) next to expand includes, parameters and subcircuits.
//
// Line 1 is the title. Then cards, one per line, '+' lines continuing the previous card;
// '*' lines, and ';' / " $ " / "//" tails are comments; everything after .end is ignored.
// Errors never stop the parse: a bad card is reported and skipped.
#pragma once

#include <cstddef>
#include <cstdint>
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

// Netlist and include files must be regular files of at most this many bytes (256 MiB):
// a FIFO, a device such as /dev/zero or a directory is an error before anything is read.
inline constexpr std::uintmax_t kMaxNetlistBytes = std::uintmax_t{256} << 20;
// .subckt definitions nested deeper than this are an error (the deeper body is skipped).
inline constexpr std::size_t kMaxSubcktNesting = 256;

// A missing/unreadable file gives one error without a file:
// "cannot open netlist 'x.cir': No such file or directory" (or "not a regular file (a FIFO)",
// "1.2 GiB is more than the limit of 256 MiB"). `display_name` (default: the path) is the name
// shown in diagnostics; includes are resolved relative to `path`.
Netlist parse_file(const std::filesystem::path& path, SourceManager& sources, Diagnostics& diags,
                   std::string display_name = {});

// `name` is the path shown in diagnostics.
Netlist parse_string(std::string_view text, std::string name, SourceManager& sources,
                     Diagnostics& diags, ParseOptions options = {});

// A UTF-16 text (byte-order mark FF FE or FE FF, or little endian starting with two ASCII
// characters) re-encoded as UTF-8 in place; any other text is left alone.
void utf16_to_utf8(std::string& text);

// Reads a whole regular file of at most `max_bytes` bytes; returns "" or why it cannot
// ("No such file or directory", "not a regular file (a FIFO)", "... more than the limit ...").
// The file is opened without blocking (a FIFO without a writer does not hang) and checked
// with fstat before a byte is read; at most max_bytes + 1 bytes are ever read. A UTF-16 file
// (LTspice's netlists on Windows) is re-encoded as UTF-8 (utf16_to_utf8).
std::string read_netlist_file(const std::filesystem::path& path, std::string& text,
                              std::uintmax_t max_bytes = kMaxNetlistBytes);
// "256 MiB", "1.5 GiB", "900 bytes".
std::string byte_size_text(std::uintmax_t bytes);

}  // namespace nsspice::netlist
