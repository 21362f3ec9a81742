#include "bench/isolation.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <mutex>
#include <thread>

#include "bench/interrupt.hpp"
#include "common/errors.hpp"
#include "common/test_hooks.hpp"

namespace gpubench::isolation {

namespace {

// The worker's side: its socket to the supervisor and the journal it was started with.
struct Worker {
  int fd = -1;
  nlohmann::json journal = nlohmann::json::object();
};
Worker& worker() {
  static Worker w;
  return w;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ExitCode::internal, std::string("lost the supervising process: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

bool in_worker() { return worker().fd >= 0; }

void send_message(const nlohmann::json& message) {
  if (in_worker()) write_all(worker().fd, message.dump() + "\n");
}

// Reads one line from `fd` into `line`, keeping what follows in `buffer`. False at end of file.
bool read_line(int fd, std::string& buffer, std::string& line) {
  for (;;) {
    if (const auto nl = buffer.find('\n'); nl != std::string::npos) {
      line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      return true;
    }
    char chunk[65536];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

// The test-only fault hook: GPUBENCH_FAULT=KIND@NAME[;KIND@NAME...], KIND one of abort, segv,
// hang; NAME a substring of the unit's name. Unset: nothing happens.
void plant_fault(const std::string& unit_name) {
  const char* spec = test_hook("GPUBENCH_FAULT");
  if (!spec) return;
  std::stringstream in(spec);
  for (std::string item; std::getline(in, item, ';');) {
    const auto at = item.find('@');
    if (at == std::string::npos || at + 1 == item.size())
      throw UsageError("GPUBENCH_FAULT: '" + item + "' is not KIND@NAME (KIND: abort, segv or hang)");
    const std::string kind = item.substr(0, at), name = item.substr(at + 1);
    if (kind != "abort" && kind != "segv" && kind != "hang")
      throw UsageError("GPUBENCH_FAULT: unknown kind '" + kind + "' (abort, segv or hang)");
    if (unit_name.find(name) == std::string::npos) continue;
    // The default action, as the kernel delivers it: a handler that a driver's compiler installed
    // (LLVM's prints a stack trace, and can take longer than a short --point-timeout) would
    // otherwise decide what the test sees.
    if (kind == "abort") {
      ::signal(SIGABRT, SIG_DFL);
      std::abort();
    }
    if (kind == "segv") {
      ::signal(SIGSEGV, SIG_DFL);
      ::raise(SIGSEGV);
    }
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

std::string signal_text(int sig) {
  std::string text = "signal " + std::to_string(sig);
  const char* abbrev = ::sigabbrev_np(sig);
  const char* description = ::strsignal(sig);
  if (abbrev) text += std::string(" (SIG") + abbrev + (description ? std::string(", ") + description : "") + ")";
  return text;
}

std::string seconds_text(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}

// A forked worker, seen from the supervisor: its process and its end of the socket.
struct WorkerHandle {
  pid_t pid = -1;
  int fd = -1;

  void kill() const { ::kill(pid, SIGKILL); }
  // Waits for the worker to end; its wait status.
  int wait() {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    return status;
  }
  ~WorkerHandle() {
    if (pid > 0) {
      kill();
      wait();
    }
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::optional<std::string> crash_of(const nlohmann::json& unit_result) {
  if (unit_result.is_object() && unit_result.contains("crashed")) return unit_result["crashed"].get<std::string>();
  return std::nullopt;
}

namespace {

// Without a worker (--isolate off): the unit running and when it last made progress, which a
// watchdog thread reads (watch_without_worker).
struct Watched {
  std::mutex m;
  std::string unit;  // "" between units
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};
Watched& watched() {
  static Watched w;
  return w;
}
void mark(const std::string* unit_name) {
  Watched& w = watched();
  std::lock_guard<std::mutex> lock(w.m);
  if (unit_name) w.unit = *unit_name;
  w.last = std::chrono::steady_clock::now();
}

}  // namespace

void watch_without_worker(double timeout_s) {
  // A signal's "stop after the current step" waits this long for the step before giving up on it.
  constexpr double after_signal_s = 10;
  std::thread([timeout_s] {
    int seen_signal = 0;
    auto signalled_at = std::chrono::steady_clock::now();
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const auto now = std::chrono::steady_clock::now();
      std::string unit_name;
      double idle = 0;
      {
        Watched& w = watched();
        std::lock_guard<std::mutex> lock(w.m);
        unit_name = w.unit;
        idle = std::chrono::duration<double>(now - w.last).count();
      }
      if (const int sig = interrupt::requested(); sig && !seen_signal) {
        seen_signal = sig;
        signalled_at = now;
      }
      if (unit_name.empty()) continue;
      std::string why;
      int code = static_cast<int>(ExitCode::point_failed);
      if (idle >= timeout_s) {
        why = "no progress for " + seconds_text(timeout_s) + " s (--point-timeout)";
      } else if (seen_signal && std::chrono::duration<double>(now - signalled_at).count() >= after_signal_s &&
                 idle >= after_signal_s) {
        why = "its current step did not end within " + seconds_text(after_signal_s) + " s of " +
              interrupt::reason(seen_signal).substr(std::string("interrupted by ").size());
        code = interrupt::exit_code(seen_signal);
      } else {
        continue;
      }
      const std::string text = "\ngpubench: " + unit_name + ": " + why +
                               "; with --isolate off there is no worker to kill, so gpubench exits now and the points "
                               "finished before it are not written (--isolate on fails this point alone and keeps "
                               "them)\n";
      const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
      (void)n;
      ::_exit(code);
    }
  }).detach();
}

nlohmann::json unit(const std::string& name, const std::function<nlohmann::json()>& work, bool* replayed) {
  if (replayed) *replayed = false;
  if (!in_worker()) {
    mark(&name);
    const std::string none;
    try {
      plant_fault(name);
      nlohmann::json result = work();
      mark(&none);
      return result;
    } catch (...) {
      mark(&none);
      throw;
    }
  }
  if (auto it = worker().journal.find(name); it != worker().journal.end()) {
    if (replayed) *replayed = !crash_of(*it).has_value();
    return *it;
  }
  send_message({{"begin", name}});
  nlohmann::json result;
  try {
    plant_fault(name);
    result = work();
  } catch (...) {
    send_message({{"abandon", name}});
    throw;
  }
  send_message({{"end", name}, {"result", result}});
  return result;
}

void alive() {
  if (!in_worker()) {
    mark(nullptr);
    return;
  }
  send_message({{"alive", true}});
}

std::optional<int> supervise(const SuperviseOptions& options, std::ostream& log) {
  nlohmann::json journal = nlohmann::json::object();
  const auto limit = std::chrono::duration<double>(options.timeout_s);
  const pid_t supervisor = ::getpid();
  if (options.graceful_interrupt) interrupt::catch_signals(true, true);
  int forwarded = 0;  // the signal passed on to the worker
  for (;;) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      throw Error(ExitCode::internal, std::string("socketpair: ") + std::strerror(errno));
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(sv[0]);
      ::close(sv[1]);
      throw Error(ExitCode::internal, std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
      // The worker must not outlive its supervisor.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != supervisor) ::_exit(static_cast<int>(ExitCode::internal));
      if (options.graceful_interrupt) interrupt::catch_signals(false, false);  // the supervisor speaks and exits
      ::close(sv[0]);
      worker().fd = sv[1];
      worker().journal = std::move(journal);
      return std::nullopt;
    }
    ::close(sv[1]);
    WorkerHandle process{pid, sv[0]};
    std::string buffer, line, current;  // current: the unit under way, empty between units
    auto last = std::chrono::steady_clock::now();
    std::string crash;  // why the worker did not end by itself
    for (;;) {
      if (const int sig = interrupt::requested(); sig && sig != forwarded) {
        ::kill(process.pid, sig);  // the worker stops after its current step and writes what it has
        forwarded = sig;
      }
      if (buffer.find('\n') == std::string::npos) {
        // The hang clock runs inside a unit only: between units the worker plans, generates
        // problems and builds programs, which take as long as they take. A signal is looked at
        // at least every 250 ms.
        const auto left = limit - (std::chrono::steady_clock::now() - last);
        const double left_ms = std::max(0.0, std::chrono::duration<double, std::milli>(left).count());
        int wait_ms = current.empty() ? -1 : static_cast<int>(left_ms);
        if (options.graceful_interrupt && (wait_ms < 0 || wait_ms > 250)) wait_ms = 250;
        pollfd p{process.fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, wait_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0 && (current.empty() || left_ms > 250)) continue;
        if (ready == 0) {
          process.kill();
          crash = "hung: no progress for " + seconds_text(options.timeout_s) + " s (--point-timeout), killed";
          process.wait();
          break;
        }
      }
      if (!read_line(process.fd, buffer, line)) {
        const int status = process.wait();
        if (WIFSIGNALED(status)) crash = "killed by " + signal_text(WTERMSIG(status));
        else if (!current.empty()) crash = "exited with code " + std::to_string(WEXITSTATUS(status));
        else return WEXITSTATUS(status);
        break;
      }
      last = std::chrono::steady_clock::now();
      nlohmann::json message;
      try {
        message = nlohmann::json::parse(line);
      } catch (const std::exception&) {
        continue;  // the socket carries only our lines; stay robust all the same
      }
      if (message.contains("begin")) current = message["begin"].get<std::string>();
      else if (message.contains("abandon")) current.clear();
      else if (message.contains("end")) {
        journal[message["end"].get<std::string>()] = message["result"];
        current.clear();
      }
    }
    if (current.empty())
      throw Error(ExitCode::device, "the worker process crashed outside any point (while planning, opening a "
                                    "device or writing the results): " + crash);
    log << "gpubench: " << current << " crashed: " << crash << "; going on in a new worker process" << std::endl;
    journal[current] = {{"crashed", crash}};
  }
}

}  // namespace gpubench::isolation
