// Where gpubench finds what it ships besides its binary: the committed tuning database
// (tuning-db/) and the report programs (reports/). Installed (cmake --install, the Debian
// package), they are under <prefix>/share/gpubench, found from the binary's own path
// (<prefix>/bin/gpubench); a binary in its build tree uses the source tree it was built from.
// $GPUBENCH_SOURCE_DIR names another tree (a moved checkout, a bundle on another machine).
#pragma once

#include <string>

namespace gpubench {

// The folder holding tuning-db/ and reports/; InputError naming the places looked at when none
// has them.
std::string data_dir();

}  // namespace gpubench
