// The runs of a sweep over MPI ranks (mpi_runs.hpp states the protocol). Messages:
//   worker → 0, tag kRequest: {has result, run index, record bytes, file bytes, has file}
//     (5 × u64),
//     then, with a result, the record (tag kData) and the file in pieces of ≤ kPiece (kData);
//   0 → worker, tag kReply: the next run index, or kNone.
// A worker rank holds its mutex from its request to the reply, so at most one request per rank
// is outstanding and its data messages follow it in order (MPI keeps the order of messages
// between two ranks with one tag).
#include "app/sweep/mpi_runs.hpp"

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "app/sweep/run_pool.hpp"

namespace nsspice::app {
namespace {

constexpr int kRequest = 1, kReply = 2, kData = 3;
constexpr std::uint64_t kNone = ~std::uint64_t{0};
constexpr std::size_t kPiece = std::size_t{256} << 20;
constexpr auto kPoll = std::chrono::microseconds(200);

void send_bytes(const std::string& bytes, int to) {
  for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
    const auto n = static_cast<int>(std::min(kPiece, bytes.size() - at));
    MPI_Send(bytes.data() + at, n, MPI_BYTE, to, kData, MPI_COMM_WORLD);
  }
}

std::string receive_bytes(std::uint64_t size, int from) {
  std::string bytes(size, '\0');
  for (std::size_t at = 0; at < size; at += kPiece) {
    const auto n = static_cast<int>(std::min<std::size_t>(kPiece, size - at));
    MPI_Recv(bytes.data() + at, n, MPI_BYTE, from, kData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return bytes;
}

// One request from `from` (its header already probed): the run it carries, if any.
std::optional<std::pair<std::size_t, RemoteRun>> receive_request(int from) {
  std::array<std::uint64_t, 5> head{};
  MPI_Recv(head.data(), 5, MPI_UINT64_T, from, kRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (head[0] == 0) return std::nullopt;
  const std::string record = receive_bytes(head[2], from);
  RemoteRun run;
  run.file = receive_bytes(head[3], from);
  run.has_file = head[4] != 0;
  if (auto r = decode(record)) {
    run.record = std::move(*r);
  } else {  // a broken invariant of the protocol, reported with the run rather than aborting
    run.record.ran = true;
    run.record.code = 3;
    run.record.message = "the result of this run arrived damaged from its MPI rank";
  }
  return std::pair{static_cast<std::size_t>(head[1]), std::move(run)};
}

}  // namespace

bool MpiSession::built() { return true; }

MpiSession::MpiSession(int& argc, char**& argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  serialized_ = provided >= MPI_THREAD_SERIALIZED;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (rank_ != 0) {  // rank 0 reports for all
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
      ::close(null);
    }
  }
}

MpiSession::~MpiSession() { MPI_Finalize(); }

bool MpiSession::join(bool ok) {
  joined_ = true;
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all != 0;
}

int MpiSession::broadcast(int value) const {
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

void serve_runs(const MpiSession& session, std::size_t count, std::size_t jobs,
                const std::function<void(std::size_t)>& local,
                const std::function<void(std::size_t, int, RemoteRun&&)>& store,
                const std::function<bool()>& stop) {
  std::atomic<std::size_t> next{0};
  auto take = [&]() -> std::optional<std::size_t> {
    if (stop()) return std::nullopt;
    const std::size_t k = next++;
    return k < count ? std::optional<std::size_t>(k) : std::nullopt;
  };
  std::thread mine([&] { run_on_threads(jobs, take, local); });
  const std::size_t remote = static_cast<std::size_t>(session.size() - 1) * jobs;
  for (std::size_t told = 0; told < remote;) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kRequest, MPI_COMM_WORLD, &flag, &status);
    if (flag == 0) {
      std::this_thread::sleep_for(kPoll);
      continue;
    }
    if (auto done = receive_request(status.MPI_SOURCE))
      store(done->first, status.MPI_SOURCE, std::move(done->second));
    const auto k = take();
    const std::uint64_t reply = k ? *k : kNone;
    if (!k) ++told;
    MPI_Send(&reply, 1, MPI_UINT64_T, status.MPI_SOURCE, kReply, MPI_COMM_WORLD);
  }
  mine.join();
}

void work_runs(const MpiSession& session, std::size_t jobs,
               const std::function<RemoteRun(std::size_t)>& run) {
  (void)session;
  std::mutex mpi;  // one request at a time per rank (MPI_THREAD_SERIALIZED)
  auto worker = [&] {
    std::optional<std::pair<std::size_t, RemoteRun>> last;
    for (;;) {
      std::uint64_t reply = kNone;
      {
        const std::lock_guard lock(mpi);
        std::string record = last ? encode(last->second.record) : std::string();
        const std::array<std::uint64_t, 5> head = {
            last ? 1u : 0u, last ? last->first : 0u, record.size(),
            last ? last->second.file.size() : 0u, last && last->second.has_file ? 1u : 0u};
        MPI_Send(head.data(), 5, MPI_UINT64_T, 0, kRequest, MPI_COMM_WORLD);
        if (last) {
          send_bytes(record, 0);
          send_bytes(last->second.file, 0);
        }
        // Waits with short sleeps, not in a blocking receive (which spins on a core).
        MPI_Request request;
        MPI_Irecv(&reply, 1, MPI_UINT64_T, 0, kReply, MPI_COMM_WORLD, &request);
        for (int done = 0; MPI_Test(&request, &done, MPI_STATUS_IGNORE), done == 0;)
          std::this_thread::sleep_for(kPoll);
      }
      if (reply == kNone) return;
      last.emplace(static_cast<std::size_t>(reply), run(static_cast<std::size_t>(reply)));
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace nsspice::app
