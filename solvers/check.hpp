#pragma once
// Broken invariants (bugs, never user input): an always-on check, in every build type.
//
//   NSSPICE_CHECK(cond, "message") throws InvariantError("file:line: invariant 'cond' broken:
//   message") when cond is false. Unlike assert() it does not vanish with NDEBUG; unlike a
//   Status it is not an outcome the caller is meant to react to (solvers/status.hpp).
#include <stdexcept>
#include <string>
#include <string_view>

namespace nsspice::solvers {

class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void invariant_failed(const char* file, int line, const char* condition,
                                   std::string_view message);

}  // namespace nsspice::solvers

#define NSSPICE_CHECK(cond, message)                                              \
  do {                                                                            \
    if (!(cond)) [[unlikely]]                                                     \
      ::nsspice::solvers::invariant_failed(__FILE__, __LINE__, #cond, (message)); \
  } while (false)
