// Crash isolation. `gpubench run` and `gpubench sweep` fork a worker process before opening any
// device (the supervisor never opens one), and supervise it: the worker does the whole job (plans,
// measures, prints, writes --out and the database), and reports each unit of work (a point, a
// sweep configuration) to the supervisor as it begins and ends it. When the worker dies on a
// signal (an abort in a compiler, a segfault in a driver) or makes no progress for the time
// limit (a hang), the supervisor records that unit as crashed, and starts a new worker with the
// journal of every unit finished so far: the new worker takes those results as they are instead
// of measuring them again, reports the crashed unit as FAILED with its reason, and goes on with
// the rest. So a crash costs one point, never the run.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench::isolation {

// What a unit ended with when the worker running it did not survive: "killed by signal 11
// (SIGSEGV)", "no progress for 600 s (hang): killed". Empty for a unit that finished.
std::optional<std::string> crash_of(const nlohmann::json& unit_result);

// Runs one unit of work. In a worker, the supervisor's journal is asked first: a unit that a
// previous worker finished returns its recorded result, one it crashed in returns a result that
// crash_of() reads; otherwise `work` runs (the test-only fault hook first) and its result is
// sent to the journal. Outside a worker, `work` just runs. `replayed`, when given, tells whether
// the result came from the journal (its progress lines were printed by an earlier worker).
nlohmann::json unit(const std::string& name, const std::function<nlohmann::json()>& work, bool* replayed = nullptr);

// A step of the current unit finished (setup, a repetition): the supervisor's hang clock starts
// again. Does nothing outside a worker.
void alive();

// With --isolate off: a thread that ends the process when a unit makes no progress for
// `timeout_s` (a hang), or when a stop asked by a signal waits more than 10 s for a step, saying
// so (exit 1, or 128 + the signal): nothing else could end a hung kernel.
void watch_without_worker(double timeout_s);

struct SuperviseOptions {
  // The longest a unit may go without a step (a hang). Between units (planning, generating a
  // problem, writing the output) there is no limit: only a unit can be failed and skipped.
  double timeout_s = 600;
  // Ctrl-C and SIGTERM stop the run gracefully (bench/interrupt.hpp): the supervisor passes the
  // first to the worker, and ends both on the second. Otherwise they end both at once.
  bool graceful_interrupt = false;
};

// Forks a worker and supervises it (and the workers after it, one per crash) until one exits:
// in the supervisor, returns that exit code; in a worker, returns nullopt at once, and the
// caller goes on to do the job. Call it before anything opens a device or starts a thread: a
// forked child has only the thread that forked. A crash outside any unit (while planning or
// writing the output) cannot be pinned on a point: it is an Error(device) naming the signal.
std::optional<int> supervise(const SuperviseOptions& options, std::ostream& log);

}  // namespace gpubench::isolation
