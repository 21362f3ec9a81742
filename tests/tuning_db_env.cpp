// The tests' tuning database: runs measure ceilings and read launch parameters from one, and the
// tests must never write into the source tree's tuning-db/. Unless GPUBENCH_TUNING_DB is set
// already, it names one in the build tree for this process and the gpubench processes it starts
// (measured once, shared by the test processes through its lock).
#include <cstdlib>

namespace {
const bool tuning_db_set = [] {
  ::setenv("GPUBENCH_TUNING_DB", GPUBENCH_TEST_TUNING_DB, 0);
  return true;
}();
}  // namespace
