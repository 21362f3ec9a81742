// The OpenMP backends' spec operations (openmp.cpp): a spec's OpenMP text compiled at run time into
// a shared object whose steps gpubench calls. The host backend (openmp, this file's openmp.cpp) and
// the offload backends (omp_target and omp_target_clang: omp_target.cpp, in their modules) differ
// in the compiler and its flags, in where the buffers live, and in the OpenMP device number their
// steps are given (GB_DEVICE). Everything else is written once here.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "kernels/spec/operations.hpp"

namespace gpubench::spec {

struct OpenmpToolchain {
  std::string compiler;            // a path, or a name on PATH
  std::vector<std::string> flags;  // before the spec's -D defines (with -fPIC -shared)
  std::string cache;               // the kernel cache's folder for its objects ("openmp-kernels")
  int device = 0;                  // GB_DEVICE in the steps: the OpenMP device number they run on
  // The device's name in the cache's key: the host's processor, for objects built -march=native.
  // An offload object (generic host code, the GPU's architecture in its flags) leaves it out, so
  // that objects compiled on one machine serve another with the same compiler.
  bool device_in_key = true;
  // The compiler's `--version` line when gpubench was built: the key's where the compiler is not on
  // this machine, or where the one found there says another version (a GPU machine without it
  // runs the objects another machine put in a shared cache; a configuration not in it fails,
  // naming the missing compiler).
  std::string built_version;
};

// Where a backend's buffers live: the host's memory, or an offload device's (omp_target_alloc, by
// the runtime the compiled objects use).
class OpenmpMemory {
 public:
  virtual ~OpenmpMemory() = default;
  virtual void* allocate(std::size_t bytes) = 0;  // OutOfMemoryError when it cannot
  virtual void release(void* p) = 0;
  virtual void write(void* to, std::size_t offset, const void* from, std::size_t bytes) = 0;
  virtual void read(void* to, const void* from, std::size_t offset, std::size_t bytes) = 0;
};

std::unique_ptr<Operations> make_openmp_operations(const DeviceInfo& device, OpenmpToolchain toolchain,
                                                   std::unique_ptr<OpenmpMemory> memory);

}  // namespace gpubench::spec
