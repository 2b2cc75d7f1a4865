// SPICE numbers.
//
//   number := [+-] (digits [. digits*] | . digits) [(e|E) [+-] digits] [suffix] letters*
//   suffix (case-insensitive, longest match): f=1e-15 p=1e-12 n=1e-9 u=1e-6 m=1e-3 k=1e3
//          meg=1e6 g=1e9 t=1e12 mil=25.4e-6   ('M' is milli, as in SPICE)
// Letters after the number/suffix are units and are ignored ("10uF", "1kOhm", "5V", "1meg"),
// as ngspice does; so are the ohm signs Ω (U+03A9) and Ω (U+2126) ("1kΩ"). Anything else after the
// number (digits, dots, symbols) makes it invalid.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nsspice::netlist {

// Returns nullopt if the text is not a (finite) SPICE number: "abc", "1.2.3", "", "e5".
std::optional<double> parse_spice_number(std::string_view text);

// For a text that is not a SPICE number, a hint to add to the error, or "": "4k7" (a scale
// letter in place of the decimal point) is 4.7k to LTspice but 4k to ngspice, which drops what
// follows the suffix; nsspice refuses it rather than guess.
std::string number_hint(std::string_view text);

}  // namespace nsspice::netlist
