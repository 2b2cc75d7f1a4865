// A build without MPI (CMake NSSPICE_MPI=OFF): `--mpi` is refused before any of these is called
// (main.cpp checks MpiSession::built()); reaching one is a broken invariant.
#include <stdexcept>

#include "app/sweep/mpi_runs.hpp"

namespace nsspice::app {
namespace {

[[noreturn]] void no_mpi() { throw std::logic_error("nsspice was built without MPI"); }

}  // namespace

bool MpiSession::built() { return false; }
MpiSession::MpiSession(int&, char**&) { no_mpi(); }
MpiSession::~MpiSession() = default;
bool MpiSession::join(bool) { no_mpi(); }
int MpiSession::broadcast(int) const { no_mpi(); }
void serve_runs(const MpiSession&, std::size_t, std::size_t,
                const std::function<void(std::size_t)>&,
                const std::function<void(std::size_t, int, RemoteRun&&)>&,
                const std::function<bool()>&) {
  no_mpi();
}
void work_runs(const MpiSession&, std::size_t, const std::function<RemoteRun(std::size_t)>&) {
  no_mpi();
}

}  // namespace nsspice::app
