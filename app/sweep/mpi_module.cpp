// libnsspice_mpi.so: the MPI calls of mpi_transport.hpp, on MPI_COMM_WORLD. Built only with
// NSSPICE_MPI; loaded by MpiSession (mpi_runs.cpp) for `nsspice run --mpi`.
#include <mpi.h>

#include <chrono>
#include <thread>

#include "app/sweep/mpi_transport.hpp"

namespace {

MPI_Datatype type(int u64) { return u64 != 0 ? MPI_UINT64_T : MPI_BYTE; }

void init(int* argc, char*** argv, int* rank, int* size, int* serialized) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
  *serialized = provided >= MPI_THREAD_SERIALIZED ? 1 : 0;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

void finalize() { MPI_Finalize(); }

int all_true(int ok) {
  int mine = ok != 0 ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

int broadcast(int value) {
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

void send(const void* data, int count, int u64, int to, int tag) {
  MPI_Send(data, count, type(u64), to, tag, MPI_COMM_WORLD);
}

void receive(void* data, int count, int u64, int from, int tag) {
  MPI_Recv(data, count, type(u64), from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int probe(int tag, int* source) {
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &status);
  if (flag != 0) *source = status.MPI_SOURCE;
  return flag;
}

void wait_u64(std::uint64_t* out, int from, int tag, int poll_us) {
  MPI_Request request;
  MPI_Irecv(out, 1, MPI_UINT64_T, from, tag, MPI_COMM_WORLD, &request);
  for (int done = 0; MPI_Test(&request, &done, MPI_STATUS_IGNORE), done == 0;)
    std::this_thread::sleep_for(std::chrono::microseconds(poll_us));
}

constexpr NsspiceMpiTransport kTransport{nsspice::app::kNsspiceMpiAbi,
                                         init,
                                         finalize,
                                         all_true,
                                         broadcast,
                                         send,
                                         receive,
                                         probe,
                                         wait_u64};

}  // namespace

extern "C" __attribute__((visibility("default"))) const NsspiceMpiTransport*
nsspice_mpi_transport() {
  return &kTransport;
}
