// Ctrl-C, SIGTERM and SIGHUP during a run: the first asks the run to stop after the current step (a
// repetition, a point's setup) and to write the points it has verified so far, the context's
// "ended_early" saying why, then to exit 130 (SIGINT), 143 (SIGTERM) or 129 (SIGHUP: a closed
// terminal, an ssh session gone); a second exits at once.
//
// With crash isolation (bench/isolation.hpp) the supervisor catches both signals: it says what
// happens, passes the first to the worker (which stops as above and exits with its code) and
// ends the worker and itself on the second. A worker (or a run without one) only keeps the flag.
// Under mpirun the signals are left to mpirun.
#pragma once

#include <string>

namespace gpubench::interrupt {

// Installs the handlers: `say` prints what the first signal does (the supervisor, or a process
// without one), `exit_on_second` ends the process on the second signal (128 + signal).
void catch_signals(bool say, bool exit_on_second);

// The signal that asked the run to stop (SIGINT, SIGTERM, SIGHUP), or 0.
int requested();

// "interrupted by SIGINT (Ctrl-C)", "interrupted by signal 15 (SIGTERM)".
std::string reason(int sig);

// What the process exits with after stopping for `sig`: 128 + sig.
int exit_code(int sig);

}  // namespace gpubench::interrupt
