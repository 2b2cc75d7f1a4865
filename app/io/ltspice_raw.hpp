#pragma once
// LTspice's dialect of the SPICE raw file, as its public descriptions give it (the layout
// notes of the PyLTSpice and LTspice2Matlab projects; no code taken from them):
//
//  * The header is UTF-16LE text (LTspice XVII and later; LTspice IV wrote 8-bit text) with the
//    same "Key: value" lines as ngspice's, plus "Offset:", "Command: ... LTspice ..." and
//    "Backannotation:" lines. It ends with "Binary:" or "Values:"; an ASCII "Values:" section is
//    UTF-16LE too.
//  * Binary data, point after point: the scale (time) as a float64, then every other variable as
//    a float32. With "double" among the Flags every value is a float64 (.options numdgt > 6).
//    With "fastaccess" the file is stored variable after variable (all times, then all values
//    of variable 1, ...).
//  * With waveform compression on (LTspice's default), some time values of a transient run are
//    written negative: the time is their absolute value.
//  * A stepped run (".step", "stepped" among the Flags) holds its runs one after another in one
//    plot; each run starts again at the first time.
//
// ngspice's binary layout (every value a float64, point after point) is the same format
// without these extensions.
#include <cstddef>
#include <string>
#include <string_view>

namespace nsspice::app {

// True when the text starts as UTF-16LE ("T\0i\0t\0l\0e\0" or a byte-order mark FF FE).
bool is_utf16le(std::string_view content);

// The header (up to and including the "Binary:" or "Values:" line) decoded from UTF-16LE to
// 8-bit text (characters above 0xFF become '?'), followed by the rest of the file: the binary
// data as it is, or an ASCII "Values:" section decoded likewise. A byte-order mark is dropped.
std::string utf16le_to_8bit(std::string_view content);

// How the data of one plot is stored.
struct RawLayout {
  size_t scale_bytes = 8;    // the first variable (time)
  size_t value_bytes = 8;    // every other one: 8 (float64) or 4 (float32)
  bool fast_access = false;  // variable after variable instead of point after point
  bool abs_scale = false;    // compressed LTspice transient: the time is |value|
  size_t row_bytes(size_t variables) const {
    return variables == 0 ? 0 : scale_bytes + (variables - 1) * value_bytes;
  }
};

// The layout from the header: `ltspice` when the file is LTspice's (UTF-16 header, or a
// Command: line naming LTspice/Linear Technology); `flags` the Flags: line (lower case);
// `transient` when the plot is a transient analysis. When the bytes available match exactly
// one of the two layouts (all float64, or float64 time + float32 values) for `points` points,
// that one is taken.
RawLayout raw_layout(bool ltspice, const std::string& flags, bool transient, size_t variables,
                     size_t points, size_t available_bytes);

// One value stored at `p` in `bytes` bytes: a float32 (4) or a float64 (8), in the machine's
// byte order (little-endian on every platform nsspice builds for, as the files are).
double read_raw_value(const char* p, size_t bytes);

}  // namespace nsspice::app
