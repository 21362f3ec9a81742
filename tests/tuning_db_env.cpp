// The tests' tuning database: runs measure ceilings and read launch parameters from one, and the
// tests must write neither into the source tree's tuning-db/ nor into the user's cache. Unless
// GPUBENCH_TUNING_DB is set already, it names one in the build tree for this process and the
// gpubench processes it starts (measured once, shared by the test processes through its lock).
// The committed tuning-db/ is not read beneath it (GPUBENCH_COMMITTED_TUNING_DB empty): what the
// tests see on this machine must not depend on what is committed for its devices. Tests of the
// layering name their layers, or unset both variables for the gpubench they start.
#include <cstdlib>

namespace {
const bool tuning_db_set = [] {
  ::setenv("GPUBENCH_TUNING_DB", GPUBENCH_TEST_TUNING_DB, 0);
  ::setenv("GPUBENCH_COMMITTED_TUNING_DB", "", 0);
  return true;
}();
}  // namespace
