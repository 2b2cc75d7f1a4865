// SPICE number parsing with Boost.Spirit X3.
//
//   number := real [suffix] alpha*            (whole input must match)
//   real   := [+-] (digits [. digits*] | . digits) [(e|E) [+-] digits]   (no inf/nan)
//   suffix := no_case[ f | p | n | u | m | k | meg | g | t | mil ]    (longest match wins)
//           | µ (U+00B5 MICRO SIGN, UTF-8 C2 B5; or the Latin-1 byte B5) | μ (U+03BC, CE BC)
//             = u, as LTspice writes it ("1µ", "4.7µF")
// value = real * scale(suffix); must be finite.
#include "netlist/units.hpp"

#include <algorithm>
#include <boost/spirit/home/x3.hpp>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

namespace nsspice::netlist {
namespace {

namespace x3 = boost::spirit::x3;

// Plain decimal reals only: x3's default policies would also accept "inf" and "nan".
struct SpiceRealPolicies : x3::real_policies<double> {
  template <typename Iterator, typename Attribute>
  static bool parse_nan(Iterator&, Iterator const&, Attribute&) {
    return false;
  }
  template <typename Iterator, typename Attribute>
  static bool parse_inf(Iterator&, Iterator const&, Attribute&) {
    return false;
  }
};

struct ScaleSuffixes : x3::symbols<double> {
  ScaleSuffixes() {
    add("f", 1e-15)("p", 1e-12)("n", 1e-9)("u", 1e-6)("m", 1e-3)("k", 1e3)("meg", 1e6)("g", 1e9)(
        "t", 1e12)("mil", 25.4e-6);
  }
};

bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

namespace {

// mantissa · scale, correctly rounded: the mantissa's decimal digits with the suffix's power of
// ten added to their exponent, read by from_chars. "10u" is the double nearest to 1e-5, not
// 10 · 1e-6 = 9.999999999999999e-06. A scale that is not a power of ten (mil) multiplies.
double scaled(std::string_view mantissa_text, double mantissa, double scale) {
  const int suffix_exp = scale == 1 ? 0 : static_cast<int>(std::lround(std::log10(scale)));
  const bool power_of_ten = std::abs(suffix_exp) <= 22 && std::pow(10.0, suffix_exp) == scale;
  if (!mantissa_text.empty() && mantissa_text.front() == '+') mantissa_text.remove_prefix(1);
  std::string digits(mantissa_text);
  long exponent = 0;
  if (const auto e = digits.find_first_of("eE"); e != std::string::npos) {
    const std::string tail = digits.substr(e + 1);
    const char* first = tail.data() + (!tail.empty() && tail.front() == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(first, tail.data() + tail.size(), exponent);
    if (ec != std::errc() || end != tail.data() + tail.size()) return mantissa * scale;
    digits.resize(e);
  }
  if (digits.find_first_not_of("-.0123456789") != std::string::npos) return mantissa * scale;
  digits.push_back('e');
  digits.append(std::to_string(exponent + (power_of_ten ? suffix_exp : 0)));
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return mantissa * scale;
  return power_of_ten ? value : value * scale;
}

}  // namespace

std::optional<double> parse_spice_number(std::string_view text) {
  const x3::real_parser<double, SpiceRealPolicies> real;
  static const ScaleSuffixes kSuffixes;  // immutable after (thread-safe) initialisation
  auto it = text.begin();
  const auto end = text.end();
  double mantissa = 0;
  if (!x3::parse(it, end, real, mantissa)) return std::nullopt;
  const std::string_view mantissa_text(text.data(), static_cast<size_t>(it - text.begin()));
  double scale = 1;
  for (std::string_view micro : {"\xC2\xB5", "\xCE\xBC", "\xB5"}) {
    if (std::string_view(it, end).starts_with(micro)) {
      scale = 1e-6;
      it += static_cast<std::ptrdiff_t>(micro.size());
      break;
    }
  }
  // Only letters may follow (suffix + unit), and ohm signs at the end ("1kΩ"); checking first
  // also keeps non-ASCII bytes away from no_case[], whose tolower() requires values
  // representable as unsigned char.
  auto letters_end = end;
  for (std::string_view ohm : {"\xCE\xA9", "\xE2\x84\xA6"}) {
    if (std::string_view(it, end).ends_with(ohm)) {
      letters_end = end - static_cast<std::ptrdiff_t>(ohm.size());
      break;
    }
  }
  for (auto rest = it; rest != letters_end; ++rest) {
    if (!is_ascii_alpha(*rest)) return std::nullopt;
  }
  if (scale == 1) x3::parse(it, letters_end, x3::no_case[kSuffixes], scale);
  const double value = scaled(mantissa_text, mantissa, scale);
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

std::string number_hint(std::string_view text) {
  // digits, a scale suffix, digits: "4k7", "2u2", "1meg5".
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) ++i;
  if (i == 0 || i == text.size()) return "";
  std::size_t j = i;
  std::string letter;
  while (j < text.size() && is_ascii_alpha(text[j]))
    letter.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[j++]))));
  if (j == text.size() || j == i) return "";
  const std::string_view tail = text.substr(j);
  if (tail.find_first_not_of("0123456789") != std::string_view::npos) return "";
  static const std::string kLetters[] = {"f", "p", "n", "u", "m", "k", "meg", "g", "t"};
  if (std::find(std::begin(kLetters), std::end(kLetters), letter) == std::end(kLetters)) return "";
  const std::string whole(text.substr(0, i)), scale = letter;
  return " (LTspice reads it as " + whole + "." + std::string(tail) + scale + ", ngspice as " +
         whole + scale + ": write " + whole + "." + std::string(tail) + scale + ")";
}

}  // namespace nsspice::netlist
