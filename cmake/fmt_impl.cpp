// fmt's compiled part (its non-inline functions), built from the headers Debian's libfmt-dev
// installs, into the static library nsspice_fmt (top-level CMakeLists.txt, NSSPICE_STATIC_DEPS):
// the nsspice executable then needs no libfmt.so, and so can take libstdc++ statically too.
// format-inl.h defines the functions that libfmt.so would export; the two templates below are
// the ones fmt's API leaves to be instantiated by the library for char.
#include <fmt/format-inl.h>

namespace fmt {
inline namespace v9 {
namespace detail {
template char decimal_point_impl<char>(locale_ref);
template thousands_sep_result<char> thousands_sep_impl<char>(locale_ref);
}  // namespace detail
}  // namespace v9
}  // namespace fmt
