#pragma once
// Runs of a sweep on J threads: each thread takes the next run index from `next` (nullopt: no
// more) and runs it with `run`, until none is left. The calling thread is one of the J.
#include <cstddef>
#include <functional>
#include <optional>

namespace nsspice::app {

void run_on_threads(std::size_t jobs, const std::function<std::optional<std::size_t>()>& next,
                    const std::function<void(std::size_t)>& run);

// The default number of jobs: every core (at least 1).
std::size_t default_jobs();

}  // namespace nsspice::app
