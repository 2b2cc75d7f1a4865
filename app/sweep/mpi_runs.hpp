#pragma once
// The runs of a sweep spread over MPI ranks (`mpirun -n K nsspice run NETLIST --mpi ...`;
// docs/sweeps.md, "MPI"). Every rank parses the netlist and plans the same runs; then
//   * rank 0 hands out run indices, one at a time, to whichever thread asks (dynamic load
//     balancing: a rank asks for the next index when it has sent the result of the last one),
//     and runs `jobs` threads of its own that take indices from the same counter;
//   * every other rank runs `jobs` threads; each sends a request (with the record and the
//     waveform file of its previous run, if any), receives the next index, runs it into a
//     temporary file, and so on until rank 0 answers "no more" (all handed out, or an
//     interrupt on rank 0);
//   * rank 0 writes each received file where the threaded run would have written it, so the
//     joined raw file, the .meas.csv and the report are those of a threaded run, run for run.
// Rank 0's main thread does all of rank 0's MPI calls; on the other ranks the threads call MPI
// one at a time (MPI_THREAD_SERIALIZED). Whoever waits for a message polls for it every 0.2 ms
// and sleeps in between (a blocking MPI receive would spin on a core the runs need). A file larger
// than 256 MiB travels in pieces.
//
// MpiSession owns MPI_Init/MPI_Finalize. On ranks > 0 it sends stdout and stderr to
// /dev/null: rank 0 reports for all (a run that fails on another rank is reported by rank 0
// with its message and diagnostics). The MPI calls are in the module libnsspice_mpi.so
// (mpi_transport.hpp), which start() loads: beside the executable, else where the build put it.
// Built without MPI (CMake NSSPICE_MPI=OFF), built() is false and start() says so.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "app/sweep/run_record.hpp"

struct NsspiceMpiTransport;  // mpi_transport.hpp

namespace nsspice::app {

class MpiSession {
 public:
  // True when this binary was built with MPI (its module may still fail to load: start()).
  static bool built();
  // Loads the MPI module and calls MPI_Init_thread (whose failures are fatal in MPI itself: it
  // aborts the job). Null, with the reason in `error`, when the build has no MPI or the module
  // does not load (its path and the loader's message).
  static std::unique_ptr<MpiSession> start(int& argc, char**& argv, std::string& error);
  ~MpiSession();  // MPI_Finalize
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Whether the MPI library runs threads one at a time (needed for jobs > 1 on ranks > 0).
  bool serialized_threads() const { return serialized_; }

  // Collective: true when every rank passes true. Every rank calls it once, before the runs
  // (a rank that failed before the sweep calls it with false from main: no rank waits for
  // it forever).
  bool join(bool ok);
  bool joined() const { return joined_; }
  // Collective: rank 0's value on every rank.
  int broadcast(int value) const;
  // The module's MPI calls (serve_runs, work_runs).
  const NsspiceMpiTransport& mpi() const { return *api_; }

 private:
  explicit MpiSession(const NsspiceMpiTransport* api) : api_(api) {}
  const NsspiceMpiTransport* api_;
  int rank_ = 0, size_ = 1;
  bool serialized_ = false;
  bool joined_ = false;
};

// What a rank sends for one run: its record and the bytes of its waveform file.
struct RemoteRun {
  RunRecord record;
  bool has_file = false;  // false: the run wrote no file (its netlist had errors)
  std::string file;
};

// Rank 0: hands out the indices 0 .. count − 1 (in order) to the other ranks' threads and to
// `jobs` threads of its own, which run them with `local`; `store(k, run)` receives each run of
// another rank (on rank 0's main thread) with that rank. `stop()` true: no more indices are
// handed out.
// Returns when every thread of every rank has been told "no more".
void serve_runs(const MpiSession& session, std::size_t count, std::size_t jobs,
                const std::function<void(std::size_t)>& local,
                const std::function<void(std::size_t, int, RemoteRun&&)>& store,
                const std::function<bool()>& stop);

// Ranks > 0: `jobs` threads asking rank 0 for runs and running them with `run`.
void work_runs(const MpiSession& session, std::size_t jobs,
               const std::function<RemoteRun(std::size_t)>& run);

}  // namespace nsspice::app
