#pragma once
// The few MPI calls of a sweep over ranks (mpi_runs.hpp), as a table of C functions that the
// module libnsspice_mpi.so (mpi_module.cpp, the only file that includes <mpi.h>) fills in.
// nsspice loads the module only when `--mpi` asks for it: a run without --mpi does not map Open
// MPI's dozen libraries (about 2 ms of every process start, half of nsspice's start-up).
//
// Every count is of elements: bytes, or 64-bit unsigned integers when `u64` is 1 (sent as
// MPI_UINT64_T). Tags are the protocol's own (mpi_runs.cpp). The communicator is MPI_COMM_WORLD.
#include <cstdint>

extern "C" {

struct NsspiceMpiTransport {
  int abi;  // kNsspiceMpiAbi: the module was built from the same sources
  // MPI_Init_thread(MPI_THREAD_SERIALIZED): this process's rank, the job's size, and 1 when
  // the library runs threads one at a time.
  void (*init)(int* argc, char*** argv, int* rank, int* size, int* serialized);
  void (*finalize)();
  int (*all_true)(int ok);      // MPI_Allreduce with MPI_LAND
  int (*broadcast)(int value);  // MPI_Bcast from rank 0
  void (*send)(const void* data, int count, int u64, int to, int tag);
  void (*receive)(void* data, int count, int u64, int from, int tag);
  // MPI_Iprobe of any source: 1 and its rank in *source when a message with `tag` waits.
  int (*probe)(int tag, int* source);
  // MPI_Irecv of one u64 into *out; `wait_u64` tests it every `poll_us` microseconds, sleeping in
  // between (a blocking receive would spin on a core the runs need), until it has arrived.
  void (*wait_u64)(std::uint64_t* out, int from, int tag, int poll_us);
};

// The module's entry point (dlsym name "nsspice_mpi_transport").
const NsspiceMpiTransport* nsspice_mpi_transport();
}

namespace nsspice::app {
inline constexpr int kNsspiceMpiAbi = 1;
}  // namespace nsspice::app
