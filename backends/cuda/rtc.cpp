#include "backends/cuda/rtc.hpp"

#include <nvrtc.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <atomic>
#include <sstream>

#include <unistd.h>

#include "backends/cuda/cuda.hpp"
#include "backends/kernel_sources.hpp"
#include "common/errors.hpp"
#include "common/kernel_cache.hpp"

namespace gpubench::cuda {

namespace {

std::mutex mutex;

// Empty: nowhere to keep them, every run compiles.
std::string cache_dir() { return kernel_cache_dir("cuda-kernels"); }
std::string hash_of(const std::string& text) { return kernel_cache_hash(text); }

std::vector<std::string> options_of(const Defines& defines, int arch) {
  std::vector<std::string> o = {"--gpu-architecture=sm_" + std::to_string(arch), "--std=c++17", "-default-device"};
  for (const auto& [name, value] : defines) o.push_back("-D" + name + "=" + value);
  return o;
}

void check_nvrtc(nvrtcResult r, const char* call, const std::string& what) {
  if (r != NVRTC_SUCCESS) throw DeviceError(std::string(call) + " failed for " + what + ": " + nvrtcGetErrorString(r));
}

// The image for `key` from the disk cache, or empty.
std::string load(const std::string& dir, const std::string& key) {
  if (dir.empty()) return {};
  std::ifstream in(dir + "/" + hash_of(key) + ".cubin", std::ios::binary);
  if (!in) return {};
  std::string stored_key;
  if (!std::getline(in, stored_key, '\0') || stored_key != key) return {};
  std::ostringstream image;
  image << in.rdbuf();
  return image.str();
}

// Whether the disk cache holds `key` (its key alone is read).
bool held(const std::string& dir, const std::string& key) {
  std::ifstream in(dir + "/" + hash_of(key) + ".cubin", std::ios::binary);
  std::string stored_key;
  return in && std::getline(in, stored_key, '\0') && stored_key == key;
}

// Written whole to a temporary file and renamed: a reader sees no file or the whole one. A cache
// that cannot be written is said once and left alone (the kernel still runs).
void store(const std::string& dir, const std::string& key, const std::string& image) {
  if (dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = dir + "/" + hash_of(key) + ".cubin";
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << key << '\0' << image;
    if (!out) {
      static bool said = false;
      if (!said) std::cerr << "gpubench: cannot write the CUDA kernel cache " << dir << ": kernels are compiled again next run" << std::endl;
      said = true;
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace

std::string rtc_source(std::string_view path) { return std::string(kernel_source(path)); }

std::string rtc_compile(const std::string& source, const Defines& defines, int arch, const std::string& what) {
  nvrtcProgram program = nullptr;
  check_nvrtc(nvrtcCreateProgram(&program, source.c_str(), what.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram", what);
  struct Destroy {
    nvrtcProgram& p;
    ~Destroy() { nvrtcDestroyProgram(&p); }
  } destroy{program};
  const auto options = options_of(defines, arch);
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  const nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  if (compiled != NVRTC_SUCCESS) {
    std::size_t size = 0;
    std::string log;
    if (nvrtcGetProgramLogSize(program, &size) == NVRTC_SUCCESS && size > 1) {
      log.resize(size);
      nvrtcGetProgramLog(program, log.data());
      log.resize(std::strlen(log.c_str()));
    }
    std::string flags;
    for (const auto& o : options) flags += " " + o;
    throw DeviceError(what + " does not compile (NVRTC:" + flags + "): " + nvrtcGetErrorString(compiled) +
                      (log.empty() ? "" : "\n" + log));
  }
  std::size_t size = 0;
  check_nvrtc(nvrtcGetCUBINSize(program, &size), "nvrtcGetCUBINSize", what);
  std::string image(size, '\0');
  check_nvrtc(nvrtcGetCUBIN(program, image.data()), "nvrtcGetCUBIN", what);
  return image;
}

namespace {

// What a compiled image depends on beyond its source and defines: the device's architecture and
// the versions of NVRTC and the driver.
struct Target {
  int arch = 0;
  std::string versions;
};

Target current_target(const std::string& what) {
  int device = 0, major = 0, minor = 0, driver = 0, nvrtc_major = 0, nvrtc_minor = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "cudaDeviceGetAttribute");
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check_nvrtc(nvrtcVersion(&nvrtc_major, &nvrtc_minor), "nvrtcVersion", what);
  return {10 * major + minor, "nvrtc " + std::to_string(nvrtc_major) + "." + std::to_string(nvrtc_minor) + "|driver " +
                                  std::to_string(driver)};
}

std::string key_of(std::string_view path, const std::string& source, const Defines& defines, const Target& t) {
  std::string key = std::string(path) + "|sm_" + std::to_string(t.arch) + "|" + t.versions;
  for (const auto& o : options_of(defines, t.arch)) key += "|" + o;
  return key + "|source " + hash_of(source) + " " + std::to_string(source.size());
}

std::string describe(const std::string& what, const Defines& defines) {
  std::string s = what;
  for (const auto& [name, value] : defines) s += " " + name + "=" + value;
  return s;
}

void said_compiled(const std::string& what, int arch, double seconds) {
  char line[64];
  std::snprintf(line, sizeof line, "%.2f s", seconds);
  std::cerr << "gpubench: compiled " << what << " for sm_" << arch << " with NVRTC: " << line << std::endl;
}

std::map<std::string, cudaKernel_t> known;  // guarded by `mutex`

// The kernel `name` of `source` (from `path`), built or loaded; `asked` is what finds it again.
cudaKernel_t kernel_of(const std::string& asked, std::string_view path, const std::string& source, const std::string& name,
                       const Defines& defines, const std::string& what) {
  const std::string described = describe(what, defines);  // a miss only: messages name the configuration
  const Target target = current_target(described);
  const std::string key = key_of(path, source, defines, target);

  const std::lock_guard<std::mutex> lock(mutex);
  static std::map<std::string, cudaLibrary_t> loaded;
  cudaLibrary_t library = nullptr;
  if (const auto it = loaded.find(key); it != loaded.end()) {
    library = it->second;
  } else {
    const std::string dir = cache_dir();
    auto compile = [&] {
      const auto start = std::chrono::steady_clock::now();
      std::string image = rtc_compile(source, defines, target.arch, described);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      said_compiled(described, target.arch, seconds);
      store(dir, key, image);
      return image;
    };
    std::string image = load(dir, key);
    const bool cached = !image.empty();
    if (!cached) image = compile();
    cudaError_t status = cudaLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (status != cudaSuccess && cached) {  // a damaged cache file: built again, and replaced
      cudaGetLastError();
      image = compile();
      status = cudaLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    }
    check(status, "cudaLibraryLoadData", "(" + described + ")");
    loaded[key] = library;
  }
  cudaKernel_t kernel = nullptr;
  check(cudaLibraryGetKernel(&kernel, library, name.c_str()), "cudaLibraryGetKernel", "(" + name + " of " + described + ")");
  known[asked] = kernel;
  return kernel;
}

// What was asked for, on this device: the key of the process's own table.
std::string asked_of(std::string_view path, const std::string& name, const Defines& defines) {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  std::string asked = std::string(path) + "|" + name + "|" + std::to_string(device);
  for (const auto& [n, v] : defines) asked += "|" + n + "=" + v;
  return asked;
}

}  // namespace

cudaKernel_t rtc_kernel(std::string_view path, const std::string& name, const Defines& defines, const std::string& what) {
  // A kernel this process has: found by what was asked, on this device, without the key's work
  // (attribute queries, hashing the source): callers launch through here, between their timer's events.
  const std::string asked = asked_of(path, name, defines);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = known.find(asked); it != known.end()) return it->second;
  }
  return kernel_of(asked, path, rtc_source(path), name, defines, what);
}

cudaKernel_t rtc_kernel_of_source(const std::string& origin, const std::string& source, const std::string& name,
                                  const Defines& defines, const std::string& what) {
  // The text is part of what was asked: one origin may hold other texts in one process (a test's files).
  const std::string asked = asked_of(origin + "#" + hash_of(source), name, defines);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = known.find(asked); it != known.end()) return it->second;
  }
  return kernel_of(asked, origin, source, name, defines, what);
}

int rtc_max_threads(cudaKernel_t kernel, const std::string& name) {
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel)), "cudaFuncGetAttributes",
        "(" + name + ")");
  return attributes.maxThreadsPerBlock;
}

void rtc_set_max_shared(cudaKernel_t kernel, std::size_t bytes, const std::string& name) {
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel)), "cudaFuncGetAttributes",
        "(" + name + ")");
  // Never lowered: a launch configured earlier may still need more.
  if (bytes <= static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes)) return;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes),
                                        device),
        "cudaKernelSetAttributeForDevice", "(" + name + ": " + std::to_string(bytes) + " B of dynamic shared memory)");
}

void rtc_launch_argv(cudaKernel_t kernel, const char* name, dim3 grid, dim3 block, std::size_t shared,
                     cudaStream_t stream, void** argv, bool cooperative) {
  const void* f = reinterpret_cast<const void*>(kernel);
  const cudaError_t status = cooperative ? cudaLaunchCooperativeKernel(f, grid, block, argv, shared, stream)
                                         : cudaLaunchKernel(f, grid, block, argv, shared, stream);
  if (status != cudaSuccess) check(status, cooperative ? "cudaLaunchCooperativeKernel" : "cudaLaunchKernel",
                                   std::string("(") + name + ")");
  check_launch(name, grid, block);
}

void rtc_build_all(std::string_view path, const std::vector<Defines>& each, const std::string& what) {
  const std::string dir = cache_dir();
  if (dir.empty() || each.empty()) return;
  const Target target = current_target(what);
  const std::string source = rtc_source(path);
  std::vector<std::pair<const Defines*, std::string>> missing;  // with its key
  for (const Defines& d : each) {
    std::string key = key_of(path, source, d, target);
    if (!held(dir, key)) missing.emplace_back(&d, std::move(key));
  }
  if (missing.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  std::atomic<std::size_t> next{0};
  std::atomic<int> built{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < missing.size();) {
      try {
        store(dir, missing[i].second, rtc_compile(source, *missing[i].first, target.arch, describe(what, *missing[i].first)));
        ++built;
      } catch (const DeviceError&) {
        // left to rtc_kernel, which compiles it again and reports the log
      }
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                                                           static_cast<unsigned>(missing.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char line[160];
  std::snprintf(line, sizeof line, "%d of %zu configurations in %.1f s on %u threads", built.load(), missing.size(),
                seconds, threads);
  std::cerr << "gpubench: compiled " << what << " ahead for sm_" << target.arch << " with NVRTC: " << line << std::endl;
}


}  // namespace gpubench::cuda
