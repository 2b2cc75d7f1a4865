#include "solvers/status.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "solvers/check.hpp"

namespace nsspice::solvers {

std::string_view to_string(Status status) {
  switch (status) {
    case Status::kSolved:
      return "solved";
    case Status::kInaccurate:
      return "inaccurate";
    case Status::kNoConvergence:
      return "no convergence";
    case Status::kNumericalFailure:
      return "numerical failure";
    case Status::kInfeasible:
      return "infeasible";
    case Status::kInvalidInput:
      return "invalid input";
  }
  return "unknown";
}

std::string Summary::describe() const {
  std::string out(to_string(status));
  if (time == time) out += fmt::format(" at t = {:.9g} s", time);
  if (!devices.empty()) out += fmt::format(" ({})", fmt::join(devices, ", "));
  if (!message.empty()) out += ": " + message;
  return out;
}

void RunOutcome::fail(Status status, std::string message, double t,
                      std::vector<std::string> devices) {
  summary.status = status;
  summary.message = std::move(message);
  summary.time = t;
  summary.devices = std::move(devices);
}

Summary invalid_input(std::string message) {
  Summary s;
  s.status = Status::kInvalidInput;
  s.message = std::move(message);
  return s;
}

std::string out_of_range(std::string_view field, double value, std::string_view allowed) {
  return fmt::format("{} = {:g}: must be {}", field, value, allowed);
}

void invariant_failed(const char* file, int line, const char* condition, std::string_view message) {
  throw InvariantError(
      fmt::format("{}:{}: invariant '{}' broken: {}", file, line, condition, message));
}

}  // namespace nsspice::solvers
