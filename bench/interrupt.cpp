#include "bench/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace gpubench::interrupt {

namespace {

volatile sig_atomic_t received = 0;
volatile sig_atomic_t say_it = 0, exit_second = 0;

void write_text(const char* text) {
  const ssize_t n = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)n;
}

void on_signal(int sig) {
  if (received != 0) {
    if (exit_second) {
      if (say_it) write_text("\ngpubench: interrupted again: exiting now\n");
      ::_exit(128 + sig);
    }
    return;
  }
  received = sig;
  if (say_it)
    write_text(sig == SIGINT   ? "\ngpubench: interrupted (SIGINT): stopping after the current step and writing the "
                                 "points measured so far (Ctrl-C again to exit at once)\n"
               : sig == SIGHUP ? "\ngpubench: SIGHUP (the terminal closed): stopping after the current step and "
                                 "writing the points measured so far (a second signal exits at once)\n"
                               : "\ngpubench: SIGTERM: stopping after the current step and writing the points measured "
                                 "so far (a second signal exits at once)\n");
}

}  // namespace

void catch_signals(bool say, bool exit_on_second) {
  say_it = say ? 1 : 0;
  exit_second = exit_on_second ? 1 : 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking wait returns EINTR and looks at the flag
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGHUP, &action, nullptr);
  // A reader of the output that went away (gpubench ... | head) does not end the run unwritten:
  // writes to the closed pipe fail (EPIPE, the streams' failbit) and the records still go to --out.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, nullptr);
}

int requested() { return received; }

std::string reason(int sig) {
  if (sig == SIGINT) return "interrupted by SIGINT (Ctrl-C)";
  return "interrupted by signal " + std::to_string(sig) +
         (sig == SIGTERM ? " (SIGTERM)" : sig == SIGHUP ? " (SIGHUP: the terminal closed)" : "");
}

int exit_code(int sig) { return 128 + sig; }

}  // namespace gpubench::interrupt
