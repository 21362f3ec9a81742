#include "bench/mpi.hpp"

#include <cstdio>
#include <cstdlib>

#include "common/errors.hpp"

#ifdef GPUBENCH_HAVE_MPI
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>
#endif

namespace gpubench {

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

#ifdef GPUBENCH_HAVE_MPI

bool built_with_mpi() { return true; }

namespace {

// Ranks on one host share its cores: unless OMP_NUM_THREADS says otherwise, each rank's OpenMP (the
// openmp backend's kernels, the host's reference solve) gets its share of them. With every rank
// taking them all, the threads outnumber the cores and each parallel region's barrier waits for
// descheduled threads: two ranks on 32 cores solved a 1138-row matrix about 50 times slower.
void share_cores(int ranks_here) {
  if (std::getenv("OMP_NUM_THREADS") || ranks_here < 2) return;
  omp_set_num_threads(std::max(1, omp_get_num_procs() / ranks_here));
}

constexpr int fail_tag = 0x6b01;
constexpr int data_tag = 0x6b02;

class MpiComm final : public Comm {
 public:
  MpiComm() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    host_.assign(name, static_cast<std::size_t>(length));
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &local_rank_);
    int ranks_here = 1;
    MPI_Comm_size(local, &ranks_here);
    MPI_Comm_free(&local);
    share_cores(ranks_here);
  }

  // Every rank gets here before MPI ends (a rank that failed meanwhile is said, not waited for).
  ~MpiComm() override {
    MPI_Request r;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    wait({&r, 1});
    MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string host() const override { return host_; }
  int local_rank() const override { return local_rank_; }

  void sum(std::span<double> values) override {
    MPI_Request r;
    MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
    wait({&r, 1});
  }

  double max(double value) override {
    MPI_Request r;
    MPI_Iallreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &r);
    wait({&r, 1});
    return value;
  }

  std::vector<std::string> all_gather(const std::string& mine) override {
    std::vector<int> lengths(static_cast<std::size_t>(size_));
    int length = static_cast<int>(mine.size());
    MPI_Request r;
    MPI_Iallgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD, &r);
    wait({&r, 1});
    std::vector<int> offsets(lengths.size());
    int total = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      offsets[i] = total;
      total += lengths[i];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Iallgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD, &r);
    wait({&r, 1});
    std::vector<std::string> out;
    for (std::size_t i = 0; i < lengths.size(); ++i)
      out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
    return out;
  }

  void exchange(std::span<const Message> sends, std::span<const Message> receives) override {
    std::vector<MPI_Request> requests(sends.size() + receives.size());
    std::size_t n = 0;
    for (const Message& m : receives)
      MPI_Irecv(m.data.data(), static_cast<int>(m.data.size()), MPI_DOUBLE, m.rank, data_tag, MPI_COMM_WORLD, &requests[n++]);
    for (const Message& m : sends)
      MPI_Isend(m.data.data(), static_cast<int>(m.data.size()), MPI_DOUBLE, m.rank, data_tag, MPI_COMM_WORLD, &requests[n++]);
    wait(requests);
  }

  void set_last_words(std::function<void(const std::string&)> last_words) override { last_words_ = std::move(last_words); }
  void set_hang_timeout(double seconds) override { hang_timeout_s_ = seconds; }

  [[noreturn]] void fail(const std::string& what, int exit_code) override {
    const std::string said = who() + " failed: " + what;
    if (rank_ == 0) end_run(said, exit_code);
    const std::string message = std::to_string(exit_code) + "\n" + said;
    MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, fail_tag, MPI_COMM_WORLD);
    // Rank 0 says it and ends the run; should it not (it is gone, or stuck outside MPI), say it here.
    std::this_thread::sleep_for(std::chrono::seconds(30));
    end_run(said + " (rank 0 did not end the run within 30 s)", exit_code);
  }

 private:
  // "rank 1 of 3 (host h)": how this rank is named in what is said.
  std::string who() const {
    return "rank " + std::to_string(rank_) + " of " + std::to_string(size_) + " (host " + host_ + ")";
  }

  [[noreturn]] void end_run(const std::string& said, int exit_code) {
    // stdio, not std::cerr: the ranks other than rank 0 discard what they print through the streams.
    std::fprintf(stderr, "gpubench: %s\ngpubench: ending the run on every rank\n", said.c_str());
    std::fflush(stderr);
    if (rank_ == 0 && last_words_) {
      auto last_words = std::move(last_words_);  // once, even if they fail themselves
      try {
        last_words(said);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "gpubench: while saving what was measured: %s\n", e.what());
      }
    }
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);
  }

  // Rank 0: another rank's failure, if one has come, ends the run.
  void poll_failure() {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, fail_tag, MPI_COMM_WORLD, &flag, &status);
    if (!flag) return;
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    std::string text(static_cast<std::size_t>(count), '\0');
    MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, fail_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const auto newline = text.find('\n');
    const int code = std::atoi(text.substr(0, newline).c_str());
    end_run(newline == std::string::npos ? text : text.substr(newline + 1), code > 0 ? code : 1);
  }

  // Polls (rank 0 also for a failure); after the first thousand polls it sleeps between them, so
  // that ranks sharing cores (more ranks than cores, or a rank's OpenMP threads) are not starved.
  void wait(std::span<MPI_Request> requests) {
    const auto start = std::chrono::steady_clock::now();
    for (long polls = 0;; ++polls) {
      int done = 0;
      MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
      if (done) return;
      if (rank_ == 0) poll_failure();
      if (hang_timeout_s_ > 0 && polls % 1024 == 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > hang_timeout_s_) {
        char text[160];
        std::snprintf(text, sizeof text, "waited %.0f s for the other ranks (--point-timeout): a rank hangs or died",
                      hang_timeout_s_);
        end_run(who() + " " + text, static_cast<int>(ExitCode::device));
      }
      if (polls < 1000) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(polls < 100000 ? 5 : 200));
    }
  }

  int rank_ = 0, size_ = 1, local_rank_ = 0;
  std::string host_;
  std::function<void(const std::string&)> last_words_;
  double hang_timeout_s_ = 0;
};

}  // namespace

std::shared_ptr<Comm> start_mpi(int* argc, char*** argv) {
  if (!launched_by_mpi()) return nullptr;
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) MPI_Init(argc, argv);
  return std::make_shared<MpiComm>();
}

#else

bool built_with_mpi() { return false; }

std::shared_ptr<Comm> start_mpi(int*, char***) {
  if (!launched_by_mpi()) return nullptr;
  throw UsageError("started by an MPI launcher, but this gpubench was built without MPI (scripts/setup installs "
                   "libopenmpi-dev; then rebuild)");
}

#endif

}  // namespace gpubench
