// Where kernels compiled at run time are kept between runs, one folder per kind of object
// (CUDA's cubins: backends/cuda/rtc.cpp; OpenMP's shared objects: kernels/spec/openmp.cpp), and
// the file name a cache key gets.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gpubench {

// $GPUBENCH_KERNEL_CACHE, else $XDG_CACHE_HOME/gpubench/<kind> (an absolute XDG_CACHE_HOME only),
// else ~/.cache/gpubench/<kind>; empty where none is set (nowhere to keep them).
inline std::string kernel_cache_dir(const std::string& kind) {
  if (const char* env = std::getenv("GPUBENCH_KERNEL_CACHE"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return std::string(xdg) + "/gpubench/" + kind;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/gpubench/" + kind;
  return "";
}

// FNV-1a, 64 bits, in hex: a file name for a key (the key itself is stored beside and compared).
inline std::string kernel_cache_hash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace gpubench
