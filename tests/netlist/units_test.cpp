// Tests for parse_spice_number: mantissa forms, every scale suffix, units, rejects.
#include "netlist/units.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace nsspice::netlist {
namespace {

double num(std::string_view s) {
  auto v = parse_spice_number(s);
  EXPECT_TRUE(v.has_value()) << "'" << s << "' should parse";
  return v.value_or(std::nan(""));
}

TEST(SpiceNumber, PlainForms) {
  EXPECT_DOUBLE_EQ(num("0"), 0);
  EXPECT_DOUBLE_EQ(num("42"), 42);
  EXPECT_DOUBLE_EQ(num("-5"), -5);
  EXPECT_DOUBLE_EQ(num("+2.5"), 2.5);
  EXPECT_DOUBLE_EQ(num("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(num(".5"), 0.5);
  EXPECT_DOUBLE_EQ(num("5."), 5);
  EXPECT_DOUBLE_EQ(num("1e3"), 1e3);
  EXPECT_DOUBLE_EQ(num("1E-3"), 1e-3);
  EXPECT_DOUBLE_EQ(num("-2.5e+2"), -250);
}

TEST(SpiceNumber, EverySuffix) {
  EXPECT_DOUBLE_EQ(num("1f"), 1e-15);
  EXPECT_DOUBLE_EQ(num("1p"), 1e-12);
  EXPECT_DOUBLE_EQ(num("1n"), 1e-9);
  EXPECT_DOUBLE_EQ(num("1u"), 1e-6);
  EXPECT_DOUBLE_EQ(num("1m"), 1e-3);
  EXPECT_DOUBLE_EQ(num("1k"), 1e3);
  EXPECT_DOUBLE_EQ(num("1meg"), 1e6);
  EXPECT_DOUBLE_EQ(num("1g"), 1e9);
  EXPECT_DOUBLE_EQ(num("1t"), 1e12);
  EXPECT_DOUBLE_EQ(num("1mil"), 25.4e-6);
}

TEST(SpiceNumber, SuffixesAreCaseInsensitiveAndMIsMilli) {
  EXPECT_DOUBLE_EQ(num("1M"), 1e-3);
  EXPECT_DOUBLE_EQ(num("1MEG"), 1e6);
  EXPECT_DOUBLE_EQ(num("1Meg"), 1e6);
  EXPECT_DOUBLE_EQ(num("2K"), 2e3);
  EXPECT_DOUBLE_EQ(num("3U"), 3e-6);
  EXPECT_DOUBLE_EQ(num("1MIL"), 25.4e-6);
  EXPECT_DOUBLE_EQ(num("4.7N"), 4.7e-9);
}

TEST(SpiceNumber, UnitsAfterSuffixAreIgnored) {
  EXPECT_DOUBLE_EQ(num("10uF"), 10e-6);
  EXPECT_DOUBLE_EQ(num("1kOhm"), 1e3);
  EXPECT_DOUBLE_EQ(num("5V"), 5);
  EXPECT_DOUBLE_EQ(num("1megohm"), 1e6);
  EXPECT_DOUBLE_EQ(num("3mA"), 3e-3);
  EXPECT_DOUBLE_EQ(num("2mils"), 2 * 25.4e-6);
  EXPECT_DOUBLE_EQ(num("1e-3s"), 1e-3);
  EXPECT_DOUBLE_EQ(num("-1.5e1mV"), -15e-3);
  EXPECT_DOUBLE_EQ(num("100Hz"), 100);
}

TEST(SpiceNumber, Rejects) {
  for (const char* bad :
       {"",   "abc", "1.2.3", "e5",  "-",   "+",     ".",   "k",  "meg",  "1k5",  "1 k",
        " 1", "1-",  "1e5.5", "inf", "nan", "1e999", "--1", "1%", "0x10", "\xff", "1\xff"}) {
    EXPECT_FALSE(parse_spice_number(bad).has_value()) << "'" << bad << "' should be rejected";
  }
}

TEST(SpiceNumber, MicroSignsAreMicro) {
  EXPECT_DOUBLE_EQ(num("1\xC2\xB5"), 1e-6);  // U+00B5 MICRO SIGN, UTF-8
  EXPECT_DOUBLE_EQ(num("4.7\xC2\xB5"
                       "F"),
                   4.7e-6);                  // with a unit after it
  EXPECT_DOUBLE_EQ(num("2\xCE\xBC"), 2e-6);  // U+03BC GREEK SMALL LETTER MU
  EXPECT_DOUBLE_EQ(num("3\xB5"), 3e-6);      // the Latin-1 byte
  EXPECT_FALSE(parse_spice_number("1\xC2").has_value());
  EXPECT_FALSE(parse_spice_number("1\xC2\xB5\xC2\xB5").has_value());
}

TEST(SpiceNumber, OhmSignsAreUnits) {
  EXPECT_DOUBLE_EQ(num("1k\xCE\xA9"), 1e3);       // U+03A9 GREEK CAPITAL LETTER OMEGA
  EXPECT_DOUBLE_EQ(num("4.7\xE2\x84\xA6"), 4.7);  // U+2126 OHM SIGN
  EXPECT_DOUBLE_EQ(num("2meg\xCE\xA9"), 2e6);
  EXPECT_FALSE(parse_spice_number("1\xCE\xA9k").has_value());  // only at the end
  EXPECT_FALSE(parse_spice_number("\xCE\xA9").has_value());
}

// "4k7" is 4.7k to LTspice and 4k to ngspice: refused, with the hint.
TEST(SpiceNumber, ScaleLetterAsDecimalPointIsRefusedWithAHint) {
  EXPECT_FALSE(parse_spice_number("4k7").has_value());
  EXPECT_EQ(number_hint("4k7"), " (LTspice reads it as 4.7k, ngspice as 4k: write 4.7k)");
  EXPECT_EQ(number_hint("2u2"), " (LTspice reads it as 2.2u, ngspice as 2u: write 2.2u)");
  EXPECT_EQ(number_hint("1meg5"), " (LTspice reads it as 1.5meg, ngspice as 1meg: write 1.5meg)");
  for (const char* other : {"abc", "1.5k3", "4x7", "k7", "47", "4k", "4k7x"})
    EXPECT_EQ(number_hint(other), "") << other;
}

}  // namespace
}  // namespace nsspice::netlist
