// Running out of memory, said as such: which memory, while doing what, and the address-space
// limit (ulimit -v) when one is set, since under a limit "out of memory" is not the machine's.
// Exit code 4, like the device's own allocation failures.
#pragma once

#include <cstdio>
#include <string>

#include <sys/resource.h>

#include "common/errors.hpp"

namespace gpubench {

// "; this process's address-space limit (ulimit -v) is 1.05 GB", or "" without a limit.
inline std::string address_space_limit_note() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return "";
  char text[96];
  std::snprintf(text, sizeof text, "; this process's address-space limit (ulimit -v) is %.2f GB",
                static_cast<double>(limit.rlim_cur) / 1e9);
  return text;
}

class OutOfMemoryError : public DeviceError {
 public:
  // `memory` is "host" or the device's name; `during` what was being allocated.
  OutOfMemoryError(const std::string& memory, const std::string& during)
      : DeviceError("out of " + memory + " memory" + (during.empty() ? "" : " " + during) + address_space_limit_note()) {}
};

}  // namespace gpubench
