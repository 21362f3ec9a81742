// The processes of one run that solve together: MPI's ranks, when gpubench is started by mpirun
// (bench/mpi.hpp makes one). Suites see only this interface. Every call is collective over the
// ranks except fail(); every wait in it also watches for another rank's failure, so that a rank
// that fails ends the whole run (with its error said on rank 0) instead of leaving the others
// waiting for it.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace gpubench {

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string host() const = 0;  // this rank's host name
  virtual int local_rank() const = 0;    // among the ranks on this host (which device it takes)

  // values[i] = the sum over the ranks of values[i], on every rank.
  virtual void sum(std::span<double> values) = 0;
  // The largest of the ranks' values, on every rank.
  virtual double max(double value) = 0;
  // Every rank's `mine`, by rank, on every rank.
  virtual std::vector<std::string> all_gather(const std::string& mine) = 0;

  // One step of point-to-point messages: each send's data goes to its rank, each receive's
  // buffer is filled from its rank (sizes agree between the pair); returns when all are done.
  // Only the ranks named take part, but every rank that sends or receives must call it.
  struct Message {
    int rank = 0;
    std::span<double> data;
  };
  virtual void exchange(std::span<const Message> sends, std::span<const Message> receives) = 0;

  // This rank failed with `what`: rank 0 says so (naming this rank, its host and `what`) and
  // ends every rank's process with `exit_code`. Never returns.
  [[noreturn]] virtual void fail(const std::string& what, int exit_code) = 0;
  // What rank 0 does, with the failure in words, just before it ends the run for a failure (its
  // own or another rank's): write what was measured so far.
  virtual void set_last_words(std::function<void(const std::string& failure)> last_words) = 0;
  // A wait for the other ranks longer than this ends the run as a hang (a rank stuck in a driver,
  // or gone without a word): said, the last words said, every rank ended. 0: no limit.
  virtual void set_hang_timeout(double seconds) = 0;
};

}  // namespace gpubench
