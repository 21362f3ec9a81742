#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gpubench {

// The devices of `backends` (built or not) with the facts that matter, as text or as JSON. A
// backend with no device says why: not built (what CMake found), or what its runtime said.
// Returns whether any of them has a device. Throws UsageError for a name gpubench does not know.
bool list_devices(const std::vector<std::string>& backends, bool json, std::ostream& out);

}  // namespace gpubench
