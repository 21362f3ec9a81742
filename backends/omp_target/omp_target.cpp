#include "backends/omp_target/omp_target.hpp"

#include <dlfcn.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>

#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "common/out_of_memory.hpp"

namespace gpubench::GPUBENCH_OMP_TARGET_NAMESPACE {

namespace {

// What the CUDA driver says of GPU `ordinal` (libgomp's nvptx plugin numbers the GPUs as the
// driver does): the name and figures CUDA's backend lists, so that both are one physical device.
// Loaded with dlopen: a host without the driver has no offload device to describe.
struct CudaDriver {
  using Init = int (*)(unsigned);
  using Get = int (*)(int*, int);
  using Name = int (*)(char*, int, int);
  using Mem = int (*)(std::size_t*, int);
  using Attribute = int (*)(int*, int, int);
  using Version = int (*)(int*);
  using Retain = int (*)(void**, int);
  using SetPrimaryFlags = int (*)(int, unsigned);
  using Push = int (*)(void*);
  using Pop = int (*)(void**);
  using SetFlags = int (*)(unsigned);
  Get get = nullptr;
  Retain retain = nullptr;
  SetPrimaryFlags set_primary_flags = nullptr;
  Push push = nullptr;
  Pop pop = nullptr;
  SetFlags set_current_flags = nullptr;  // cuCtxSetFlags: CUDA 12.1 and later
  Name name = nullptr;
  Mem total_mem = nullptr;
  Attribute attribute = nullptr;
  Version version = nullptr;
  bool ok = false;

  CudaDriver() {
    void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    auto init = reinterpret_cast<Init>(::dlsym(lib, "cuInit"));
    get = reinterpret_cast<Get>(::dlsym(lib, "cuDeviceGet"));
    name = reinterpret_cast<Name>(::dlsym(lib, "cuDeviceGetName"));
    total_mem = reinterpret_cast<Mem>(::dlsym(lib, "cuDeviceTotalMem_v2"));
    attribute = reinterpret_cast<Attribute>(::dlsym(lib, "cuDeviceGetAttribute"));
    version = reinterpret_cast<Version>(::dlsym(lib, "cuDriverGetVersion"));
    retain = reinterpret_cast<Retain>(::dlsym(lib, "cuDevicePrimaryCtxRetain"));
    set_primary_flags = reinterpret_cast<SetPrimaryFlags>(::dlsym(lib, "cuDevicePrimaryCtxSetFlags_v2"));
    push = reinterpret_cast<Push>(::dlsym(lib, "cuCtxPushCurrent_v2"));
    pop = reinterpret_cast<Pop>(::dlsym(lib, "cuCtxPopCurrent_v2"));
    set_current_flags = reinterpret_cast<SetFlags>(::dlsym(lib, "cuCtxSetFlags"));
    ok = init && get && name && total_mem && attribute && version && init(0) == 0;
  }
  int attr(int device, int which) const {
    int v = 0;
    return attribute(&v, which, device) == 0 ? v : 0;
  }
};

// CUdevice_attribute values.
constexpr int max_threads_per_block = 1, shared_memory_per_block = 8, multiprocessors = 16, l2_bytes = 38,
              pci_bus = 33, pci_device = 34, pci_domain = 50;

// The compiler that built this backend, as its device lines and records name it: "GCC 12.2.0",
// "Clang 19.1.7".
std::string compiler() {
#if defined(__clang__)
  return "Clang " + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) + "." +
         std::to_string(__clang_patchlevel__);
#elif defined(__GNUC__)
  return "GCC " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." + std::to_string(__GNUC_PATCHLEVEL__);
#else
  return "an unknown compiler";
#endif
}

// What the two compilers' builds differ in: the runtime and its GPU plugin, what to ask when a
// region fell back to the host, the CUDA threads an OpenMP thread runs on (GCC's nvptx: a warp;
// Clang's: one), and the listing's order (Clang's after GCC's; backend.cmake says the same ORDER).
#ifdef GPUBENCH_OMP_TARGET_CLANG
constexpr const char *runtime = "libomptarget", *gpu_plugin = "its CUDA plugin",
                     *fallback_hint = "did libomptarget's CUDA plugin reach the driver, which it loads as libcuda.so? "
                                      "LIBOMPTARGET_INFO=-1 makes libomptarget say what it did";
constexpr int lanes_per_thread = 1, listing_order = 15;
#else
constexpr const char *runtime = "libgomp", *gpu_plugin = "its nvptx plugin",
                     *fallback_hint = "is the nvptx plugin, libgomp-plugin-nvptx.so.1, beside the libgomp.so.1 that ran? "
                                      "OMP_TARGET_OFFLOAD=MANDATORY makes libgomp say why";
constexpr int lanes_per_thread = 32, listing_order = 14;
#endif

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0)
      if (const auto colon = line.find(':'); colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
  return "host CPU";
}

DeviceInfo gpu(int number, const CudaDriver& cuda) {
  DeviceInfo d;
  d.backend = backend_name;
  d.index = number;
  d.api = "OpenMP " + std::to_string(_OPENMP) + " target";
  d.platform = runtime_text(true);
  d.type = "gpu";
  d.fp64 = true;
  d.name = "OpenMP offload device " + std::to_string(number);
  if (!cuda.ok) return d;
  int device = 0;
  if (cuda.get(&device, number) != 0) return d;
  char name[128] = {};
  if (cuda.name(name, sizeof name, device) == 0) d.name = name;
  d.vendor = "NVIDIA";
  std::size_t total = 0;
  if (cuda.total_mem(&total, device) == 0) d.global_mem_bytes = d.max_alloc_bytes = total;
  d.compute_units = cuda.attr(device, multiprocessors);
  d.max_work_group_size = static_cast<std::size_t>(cuda.attr(device, max_threads_per_block));
  d.local_mem_bytes = static_cast<std::uint64_t>(cuda.attr(device, shared_memory_per_block));
  d.cache_bytes = static_cast<std::uint64_t>(cuda.attr(device, l2_bytes));
  int version = 0;
  if (cuda.version(&version) == 0) d.driver = "CUDA driver " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
  char bus[32];
  std::snprintf(bus, sizeof bus, "%08X:%02X:%02X.0", static_cast<unsigned>(cuda.attr(device, pci_domain)),
                static_cast<unsigned>(cuda.attr(device, pci_bus)), static_cast<unsigned>(cuda.attr(device, pci_device)));
  d.pci_bus_id = bus;
  // libgomp's nvptx plugin adopts the context current on the thread that first offloads (the
  // CUDA runtime's primary context, where CUDA points ran before) without holding it, and frees
  // its own blocks in it at exit, after the CUDA runtime has released it: "cuMemFree_v2 error:
  // context is destroyed", "device finalization failed", exit status 1. One reference held here
  // for the process's life keeps the primary context alive until libgomp is done with it.
  if (cuda.retain) {
    void* context = nullptr;
    cuda.retain(&context, device);
  }
  return d;
}

DeviceInfo host(int number) {
  DeviceInfo d;
  d.backend = backend_name;
  d.index = number;
  d.api = "OpenMP " + std::to_string(_OPENMP) + " target";
  d.platform = runtime_text(false);
  d.type = "cpu";
  d.name = cpu_model();
  d.vendor = "host";
  d.driver = compiler();
  d.compute_units = omp_get_num_procs();
  // What thread_limit may ask of a team here: the launch tunables (teams per unit, threads per
  // team) then mean on the host what they mean on a GPU.
  d.max_work_group_size = 1024;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  d.global_mem_bytes = d.max_alloc_bytes = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
  d.fp64 = true;
  return d;
}

}  // namespace

std::string compiler_gap(const DeviceInfo& d) {
#ifdef GPUBENCH_OMP_TARGET_CLANG
  (void)d;
  return "";
#else
  if (d.type != "gpu") return "";
  return "GCC 12's nvptx offload: an OpenMP thread per warp, whose 32 lanes work only in simd loops, and about "
         "0.4 ms of its runtime per target region; the same source through Clang 19 (omp_target_clang) ran CG "
         "poisson2d:4096 16x, EP C 5.4x and LU 8192 1.7x faster on the H200 (reports/data/h200-2026-12-02-issue57)";
#endif
}

std::string runtime_text(bool offload) {
  return std::string(runtime) + " (" + compiler() + ")" + (offload ? " with " + std::string(gpu_plugin) : ": the initial device, the host");
}

#ifdef GPUBENCH_OMP_TARGET_CLANG
// Why libomptarget found no GPU where the CUDA driver is installed: its CUDA plugin loads the
// driver as "libcuda.so" (the development link, which a driver's own install may lack), not as
// "libcuda.so.1". Empty where that is not why.
std::string no_gpu_reason() {
  void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!driver) return "";
  ::dlclose(driver);
  if (void* link = ::dlopen("libcuda.so", RTLD_LAZY | RTLD_LOCAL)) {
    ::dlclose(link);
    return "";
  }
  return " (no GPU: the CUDA driver is here as libcuda.so.1, but libomptarget's CUDA plugin loads libcuda.so, which the "
         "library path lacks: link libcuda.so to the driver's libcuda.so.1 in a folder on LD_LIBRARY_PATH)";
}
#endif

#ifdef GPUBENCH_OMP_TARGET_CLANG_JIT
namespace {
// This build's device code is LLVM bitcode that libomptarget compiles for the GPU when it loads it
// (backend.cmake says why). Debian's LLVM 19 runtime was built without registering LLVM's NVPTX
// target for that ("Failure to jit IR image ...: Unable to find target for this triple (no targets
// are registered)"), though the libLLVM it runs on holds the target: it is registered there when
// this module loads, before any region runs.
__attribute__((constructor)) void register_nvptx_target() {
  void* llvm = ::dlopen("libLLVM.so.19.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!llvm) return;
  for (const char* name : {"LLVMInitializeNVPTXTargetInfo", "LLVMInitializeNVPTXTarget", "LLVMInitializeNVPTXTargetMC",
                           "LLVMInitializeNVPTXAsmPrinter"})
    if (void* init = ::dlsym(llvm, name)) reinterpret_cast<void (*)()>(init)();
}

// The runtime's compile ends with the CUDA toolkit's ptxas, which it looks for on PATH.
bool ptxas_on_path() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((dir + "/ptxas").c_str(), X_OK) == 0) return true;
  return false;
}
}  // namespace
#endif

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> list;
  const int offload = omp_get_num_devices();
  if (offload > 0) {
    const CudaDriver cuda;
    for (int i = 0; i < offload; ++i) list.push_back(gpu(i, cuda));
#ifdef GPUBENCH_OMP_TARGET_CLANG_JIT
    if (!ptxas_on_path())
      for (DeviceInfo& d : list)
        d.platform += " (no ptxas on PATH: this build's device code is compiled for the GPU when the runtime loads it, "
                      "ending with the CUDA toolkit's ptxas; its regions fail until ptxas is on PATH)";
#endif
  }
  list.push_back(host(omp_get_initial_device()));
#ifdef GPUBENCH_OMP_TARGET_CLANG
  if (offload == 0) list.back().platform += no_gpu_reason();
#endif
  return list;
}

int device_number(const DeviceInfo& d) { return d.index; }

int thread_limit(const DeviceInfo& d, int work_group_size) {
  if (d.type == "gpu") return std::max(1, work_group_size / lanes_per_thread);
  return std::max(1, omp_get_num_procs());  // the host: one team of its cores (num_teams)
}

int num_teams(const DeviceInfo& d, int groups_per_cu) {
  // The host runs each team's parallel region with threads of its own, made for every region:
  // teams per core there cost a CG solve minutes where one team of its cores takes seconds.
  return d.type == "gpu" ? std::max(1, groups_per_cu) * std::max(d.compute_units, 1) : 1;
}

void check_ran_where_asked(const DeviceInfo& asked, bool ran_on_initial_device, const std::string& what) {
  if (asked.type != "gpu" || !ran_on_initial_device) return;
  throw DeviceError(what + " was asked of " + asked.label() + " and ran on the host (OpenMP's initial device): "
                    "the offload fell back (" + std::string(fallback_hint) + "); no host time is reported as the GPU's");
}

namespace {
#ifdef GPUBENCH_OMP_TARGET_CLANG
// libomptarget's CUDA plugin opens a device's primary context with CU_CTX_SCHED_BLOCKING_SYNC: at
// the end of each region, which the plugin waits for, the host thread sleeps until the GPU's
// interrupt wakes it. On two H200s that cost a large kernel's region 75-85 us (CG's axpy 163 us a
// region against 78 with ten regions queued nowait; an empty region 18 us), 1.4-1.8x CUDA's times
// on CG and FT (reports/data/h200-2026-12-04-late-issue57). The CUDA runtime, and gpubench's CUDA
// backend with it, runs with CU_CTX_SCHED_AUTO (spin while the process has no more contexts than
// the host has cores): it is set here on the device's primary context, once the runtime has opened
// it, so that both APIs' waits are alike and a gap between them is their kernels'. (Its effect has
// not been measured on a GPU yet: no machine was lent after it was written.)
void cuda_default_scheduling(int ordinal) {
  const CudaDriver cuda;
  int device = 0;
  void* context = nullptr;
  if (!cuda.ok || !cuda.retain || !cuda.set_primary_flags || !cuda.push || !cuda.pop || cuda.get(&device, ordinal) != 0)
    return;
  constexpr unsigned sched_auto = 0;
  int failed = cuda.set_primary_flags(device, sched_auto);
  if (cuda.retain(&context, device) == 0 && cuda.push(context) == 0) {  // the reference is held for the process's life
    if (cuda.set_current_flags) failed = cuda.set_current_flags(sched_auto);
    void* popped = nullptr;
    cuda.pop(&popped);
  }
  if (failed)
    std::fprintf(stderr, "gpubench: OpenMP device %d: the CUDA driver did not take CUDA's default scheduling "
                         "(error %d): its regions end with libomptarget's blocking wait\n", ordinal, failed);
}
#endif

// The runtime loads (and, where it JITs, compiles: seconds for this module) a device's code at the
// first region run there; an empty region at the device's first allocation does that before any
// region is timed, so that no sweep's first configuration is charged for it.
void load_code_once(int device) {
  static std::mutex mutex;
  static std::set<int> loaded;
  const std::lock_guard<std::mutex> lock(mutex);
  if (device == omp_get_initial_device() || !loaded.insert(device).second) return;
#pragma omp target device(device)
  {}
#ifdef GPUBENCH_OMP_TARGET_CLANG
  cuda_default_scheduling(device);
#endif
}
}  // namespace

Buffer::Buffer(int device, std::size_t bytes) : device_(device), bytes_(bytes) {
  load_code_once(device);
  data_ = omp_target_alloc(bytes == 0 ? 1 : bytes, device);
  if (!data_) throw OutOfMemoryError("OpenMP device " + std::to_string(device), std::to_string(bytes) + " bytes (omp_target_alloc)");
}

Buffer::~Buffer() {
  if (data_) omp_target_free(data_, device_);
}

void Buffer::upload(const void* host, std::size_t bytes) {
  if (bytes > bytes_) throw Error(ExitCode::internal, "omp_target: an upload larger than its buffer");
  if (omp_target_memcpy(data_, host, bytes, 0, 0, device_, omp_get_initial_device()) != 0)
    throw DeviceError("omp_target_memcpy to OpenMP device " + std::to_string(device_) + " failed");
}

void Buffer::download(void* host, std::size_t bytes) const {
  if (bytes > bytes_) throw Error(ExitCode::internal, "omp_target: a download larger than its buffer");
  if (omp_target_memcpy(host, data_, bytes, 0, 0, omp_get_initial_device(), device_) != 0)
    throw DeviceError("omp_target_memcpy from OpenMP device " + std::to_string(device_) + " failed");
}

void Buffer::copy_from(const Buffer& other) {
  if (other.bytes_ > bytes_) throw Error(ExitCode::internal, "omp_target: a copy larger than its buffer");
  if (omp_target_memcpy(data_, other.data_, other.bytes_, 0, 0, device_, other.device_) != 0)
    throw DeviceError("omp_target_memcpy on OpenMP device " + std::to_string(device_) + " failed");
}

}  // namespace gpubench::GPUBENCH_OMP_TARGET_NAMESPACE

// .api: a tuning file's device is told from the other compiler's by the runtime its platform names.
GPUBENCH_REGISTER_BACKEND(.name = gpubench::omp_target::backend_name, .devices = gpubench::omp_target::devices,
                          .order = gpubench::omp_target::listing_order,
                          .api = std::string("OpenMP [0-9.]+ target, ") + gpubench::omp_target::runtime);
