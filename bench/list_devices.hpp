#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gpubench {

// The devices of `backends` (built or not) with the facts that matter, as text or as JSON. A
// backend with no device says why: not built (what CMake found), or what its runtime said.
// Returns whether any of them has a device. Throws UsageError for a name gpubench does not know.
// `indices[k]` >= 0: only that device of backends[k] (--backend opencl:1); an index it does not have
// is a DeviceError naming the valid ones.
bool list_devices(const std::vector<std::string>& backends, const std::vector<int>& indices, bool json, std::ostream& out);

}  // namespace gpubench
