#pragma once

#include <ostream>

namespace gpubench {

// Every backend's devices with the facts that matter. Returns false if a backend's discovery
// failed (its error is printed in its place; the others are still listed).
bool list_devices(std::ostream& out);

}  // namespace gpubench
