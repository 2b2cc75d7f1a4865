// The runs of a sweep over MPI ranks (mpi_runs.hpp states the protocol). Messages:
//   worker → 0, tag kRequest: {has result, run index, record bytes, file bytes, has file}
//     (5 × u64),
//     then, with a result, the record (tag kData) and the file in pieces of ≤ kPiece (kData);
//   0 → worker, tag kReply: the next run index, or kNone.
// A worker rank holds its mutex from its request to the reply, so at most one request per rank
// is outstanding and its data messages follow it in order (MPI keeps the order of messages
// between two ranks with one tag).
// The MPI calls go through the module's table (mpi_transport.hpp), which start() loads.
#include "app/sweep/mpi_runs.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "app/sweep/mpi_transport.hpp"
#include "app/sweep/run_pool.hpp"

namespace nsspice::app {
namespace {

constexpr int kRequest = 1, kReply = 2, kData = 3;
constexpr std::uint64_t kNone = ~std::uint64_t{0};
constexpr std::size_t kPiece = std::size_t{256} << 20;
constexpr auto kPoll = std::chrono::microseconds(200);

void send_bytes(const NsspiceMpiTransport& mpi, const std::string& bytes, int to) {
  for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
    const auto n = static_cast<int>(std::min(kPiece, bytes.size() - at));
    mpi.send(bytes.data() + at, n, 0, to, kData);
  }
}

std::string receive_bytes(const NsspiceMpiTransport& mpi, std::uint64_t size, int from) {
  std::string bytes(size, '\0');
  for (std::size_t at = 0; at < size; at += kPiece) {
    const auto n = static_cast<int>(std::min<std::size_t>(kPiece, size - at));
    mpi.receive(bytes.data() + at, n, 0, from, kData);
  }
  return bytes;
}

// One request from `from` (its header already probed): the run it carries, if any.
std::optional<std::pair<std::size_t, RemoteRun>> receive_request(const NsspiceMpiTransport& mpi,
                                                                 int from) {
  std::array<std::uint64_t, 5> head{};
  mpi.receive(head.data(), 5, 1, from, kRequest);
  if (head[0] == 0) return std::nullopt;
  const std::string record = receive_bytes(mpi, head[2], from);
  RemoteRun run;
  run.file = receive_bytes(mpi, head[3], from);
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

#ifdef NSSPICE_MPI_MODULE
// The module beside the running executable (a build or an install moved as a whole), else the
// one this build made.
std::vector<std::string> module_paths() {
  std::vector<std::string> paths;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) paths.push_back((exe.parent_path() / "libnsspice_mpi.so").string());
  if (paths.empty() || paths.front() != NSSPICE_MPI_MODULE) paths.emplace_back(NSSPICE_MPI_MODULE);
  return paths;
}

// The module's table, or null with the reason. RTLD_GLOBAL: Open MPI's own plugins resolve
// symbols of libmpi, which the module brings in. The module is never unloaded (MPI_Finalize
// leaves handlers of Open MPI's behind until exit).
const NsspiceMpiTransport* load_module(std::string& error) {
  std::string tried;
  for (const std::string& path : module_paths()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += fmt::format("{}{} (missing)", tried.empty() ? "" : ", ", path);
      continue;
    }
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      error = fmt::format("cannot load the MPI module {}: {}", path, why ? why : "unknown error");
      return nullptr;
    }
    using Entry = const NsspiceMpiTransport* (*)();
    const auto entry = reinterpret_cast<Entry>(::dlsym(handle, "nsspice_mpi_transport"));
    const NsspiceMpiTransport* api = entry != nullptr ? entry() : nullptr;
    if (api == nullptr || api->abi != kNsspiceMpiAbi) {
      error =
          fmt::format("the MPI module {} is not this nsspice's (rebuild it with nsspice)", path);
      return nullptr;
    }
    return api;
  }
  error = fmt::format("the MPI module libnsspice_mpi.so was not found (looked for {})", tried);
  return nullptr;
}
#endif

}  // namespace

#ifdef NSSPICE_MPI_MODULE
bool MpiSession::built() { return true; }
#else
bool MpiSession::built() { return false; }
#endif

std::unique_ptr<MpiSession> MpiSession::start(int& argc, char**& argv, std::string& error) {
#ifdef NSSPICE_MPI_MODULE
  const NsspiceMpiTransport* api = load_module(error);
  if (api == nullptr) return nullptr;
  std::unique_ptr<MpiSession> session(new MpiSession(api));
  int serialized = 0;
  api->init(&argc, &argv, &session->rank_, &session->size_, &serialized);
  session->serialized_ = serialized != 0;
  if (session->rank_ != 0) {  // rank 0 reports for all
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
      ::close(null);
    }
  }
  return session;
#else
  (void)argc;
  (void)argv;
  error =
      "this nsspice was built without MPI (install libopenmpi-dev and configure with "
      "-DNSSPICE_MPI=ON)";
  return nullptr;
#endif
}

MpiSession::~MpiSession() { api_->finalize(); }

bool MpiSession::join(bool ok) {
  joined_ = true;
  return api_->all_true(ok ? 1 : 0) != 0;
}

int MpiSession::broadcast(int value) const { return api_->broadcast(value); }

void serve_runs(const MpiSession& session, std::size_t count, std::size_t jobs,
                const std::function<void(std::size_t)>& local,
                const std::function<void(std::size_t, int, RemoteRun&&)>& store,
                const std::function<bool()>& stop) {
  const NsspiceMpiTransport& mpi = session.mpi();
  std::atomic<std::size_t> next{0};
  auto take = [&]() -> std::optional<std::size_t> {
    if (stop()) return std::nullopt;
    const std::size_t k = next++;
    return k < count ? std::optional<std::size_t>(k) : std::nullopt;
  };
  std::thread mine([&] { run_on_threads(jobs, take, local); });
  const std::size_t remote = static_cast<std::size_t>(session.size() - 1) * jobs;
  for (std::size_t told = 0; told < remote;) {
    int source = 0;
    if (mpi.probe(kRequest, &source) == 0) {
      std::this_thread::sleep_for(kPoll);
      continue;
    }
    if (auto done = receive_request(mpi, source))
      store(done->first, source, std::move(done->second));
    const auto k = take();
    const std::uint64_t reply = k ? *k : kNone;
    if (!k) ++told;
    mpi.send(&reply, 1, 1, source, kReply);
  }
  mine.join();
}

void work_runs(const MpiSession& session, std::size_t jobs,
               const std::function<RemoteRun(std::size_t)>& run) {
  const NsspiceMpiTransport& mpi = session.mpi();
  std::mutex lock_mpi;  // one request at a time per rank (MPI_THREAD_SERIALIZED)
  auto worker = [&] {
    std::optional<std::pair<std::size_t, RemoteRun>> last;
    for (;;) {
      std::uint64_t reply = kNone;
      {
        const std::lock_guard lock(lock_mpi);
        std::string record = last ? encode(last->second.record) : std::string();
        const std::array<std::uint64_t, 5> head = {
            last ? 1u : 0u, last ? last->first : 0u, record.size(),
            last ? last->second.file.size() : 0u, last && last->second.has_file ? 1u : 0u};
        mpi.send(head.data(), 5, 1, 0, kRequest);
        if (last) {
          send_bytes(mpi, record, 0);
          send_bytes(mpi, last->second.file, 0);
        }
        // Waits with short sleeps, not in a blocking receive (which spins on a core).
        mpi.wait_u64(&reply, 0, kReply, static_cast<int>(kPoll.count()));
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
