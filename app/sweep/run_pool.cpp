// Runs of a sweep on threads (run_pool.hpp).
#include "app/sweep/run_pool.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace nsspice::app {

void run_on_threads(std::size_t jobs, const std::function<std::optional<std::size_t>()>& next,
                    const std::function<void(std::size_t)>& run) {
  auto worker = [&] {
    for (auto k = next(); k; k = next()) run(*k);
  };
  std::vector<std::thread> pool;
  for (std::size_t j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

std::size_t default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace nsspice::app
