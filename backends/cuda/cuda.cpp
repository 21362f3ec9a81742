#include "backends/cuda/cuda.hpp"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "backends/registry.hpp"
#include "common/errors.hpp"

namespace gpubench::cuda {

namespace {

std::string failure(std::string_view call, std::string_view detail, const std::string& text) {
  std::string message(call);
  message += " failed";
  if (!detail.empty()) {
    message += ' ';
    message += detail;
  }
  message += ": ";
  message += text;
  return message;
}

std::string described(const char* name, int code, const char* description) {
  std::string text = name ? name : "unknown status";
  text += " (" + std::to_string(code) + ")";
  if (description && *description && std::string_view(description) != std::string_view(name ? name : "")) {
    text += ": ";
    text += description;
  }
  return text;
}

// CUDA encodes versions as 1000 * major + 10 * minor: 13000 is "13.0".
std::string version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The kernel driver's version ("580.65.06"), as NVIDIA's OpenCL driver reports it, when the
// driver publishes it; empty otherwise.
std::string kernel_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return {};
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..." or
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...":
  // the first word of digits and dots, with a dot, after "Module".
  std::istringstream words(line);
  std::string word;
  bool after_module = false;
  while (words >> word) {
    if (word == "Module") after_module = true;
    const bool version = word.find('.') != std::string::npos &&
                         word.find_first_not_of("0123456789.") == std::string::npos && std::isdigit(static_cast<unsigned char>(word.front()));
    if (after_module && version) return word;
  }
  return {};
}

// What cudaGetDeviceCount answers on a machine with no usable CUDA device: no driver, an older
// driver than the runtime, only the driver's stub library, no device, or every device busy or
// excluded. These make an empty list.
bool means_no_device(cudaError_t status) {
  switch (status) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return true;
    default:
      return false;
  }
}

int device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (means_no_device(status)) {
    static_cast<void>(cudaGetLastError());  // not a failure of anything that follows
    return 0;
  }
  check(status, "cudaGetDeviceCount");
  return count;
}

DeviceInfo describe(int index) {
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, index), "cudaGetDeviceProperties", "for device " + std::to_string(index));
  int runtime = 0;
  int driver = 0;
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");

  DeviceInfo info;
  info.backend = "cuda";
  info.index = index;
  info.api = "CUDA runtime " + version_text(runtime);
  info.platform = "CUDA driver " + version_text(driver);
  info.vendor = "NVIDIA";
  info.name = props.name;
  const std::string kernel_driver = kernel_driver_version();
  info.driver = kernel_driver.empty() ? version_text(driver) : kernel_driver;
  info.type = "gpu";
  info.compute_units = props.multiProcessorCount;
  info.max_work_group_size = static_cast<std::size_t>(props.maxThreadsPerBlock);
  info.global_mem_bytes = props.totalGlobalMem;
  info.max_alloc_bytes = props.totalGlobalMem;  // CUDA sets no per-allocation limit below it
  info.local_mem_bytes = props.sharedMemPerBlock;
  info.cache_bytes = static_cast<std::uint64_t>(props.l2CacheSize);  // cudaDevAttrL2CacheSize
  info.fp64 = true;  // every CUDA device has double precision
  char bus_id[32];
  std::snprintf(bus_id, sizeof bus_id, "%08X:%02X:%02X.0", static_cast<unsigned>(props.pciDomainID),
                static_cast<unsigned>(props.pciBusID), static_cast<unsigned>(props.pciDeviceID));
  info.pci_bus_id = bus_id;
  return info;
}

}  // namespace

std::string error_text(cudaError_t code) {
  return described(cudaGetErrorName(code), static_cast<int>(code), cudaGetErrorString(code));
}

std::string error_text(cublasStatus_t status) {
  return described(cublasGetStatusName(status), static_cast<int>(status), cublasGetStatusString(status));
}

std::string error_text(cusparseStatus_t status) {
  return described(cusparseGetErrorName(status), static_cast<int>(status), cusparseGetErrorString(status));
}

void check(cudaError_t status, std::string_view call, std::string_view detail) {
  if (status == cudaSuccess) return;
  static_cast<void>(cudaGetLastError());
  throw DeviceError(failure(call, detail, error_text(status)));
}

void check(cublasStatus_t status, std::string_view call, std::string_view detail) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw DeviceError(failure(call, detail, error_text(status)));
}

void check(cusparseStatus_t status, std::string_view call, std::string_view detail) {
  if (status == CUSPARSE_STATUS_SUCCESS) return;
  throw DeviceError(failure(call, detail, error_text(status)));
}

Geometry geometry(unsigned dims, dim3 grid, dim3 block) {
  return Geometry::of_groups(dims, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z});
}

LaunchLimits launch_limits() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  auto attribute = [device](cudaDeviceAttr what, const char* name) {
    int value = 0;
    check(cudaDeviceGetAttribute(&value, what, device), "cudaDeviceGetAttribute", name);
    return static_cast<std::size_t>(value);
  };
  LaunchLimits limits;
  limits.local = {attribute(cudaDevAttrMaxBlockDimX, "(cudaDevAttrMaxBlockDimX)"),
                  attribute(cudaDevAttrMaxBlockDimY, "(cudaDevAttrMaxBlockDimY)"),
                  attribute(cudaDevAttrMaxBlockDimZ, "(cudaDevAttrMaxBlockDimZ)")};
  limits.local_total = attribute(cudaDevAttrMaxThreadsPerBlock, "(cudaDevAttrMaxThreadsPerBlock)");
  limits.groups = {attribute(cudaDevAttrMaxGridDimX, "(cudaDevAttrMaxGridDimX)"),
                   attribute(cudaDevAttrMaxGridDimY, "(cudaDevAttrMaxGridDimY)"),
                   attribute(cudaDevAttrMaxGridDimZ, "(cudaDevAttrMaxGridDimZ)")};
  return limits;
}

void check_launch(std::string_view kernel, dim3 grid, dim3 block) {
  const cudaError_t status = cudaGetLastError();
  if (status == cudaSuccess) return;
  const unsigned dims = grid.z != 1 || block.z != 1 ? 3 : grid.y != 1 || block.y != 1 ? 2 : 1;
  const Geometry g = geometry(dims, grid, block);
  // Without the device's limits (the failure may be that there is no device), the checks every
  // API shares still run; the launch's own error is reported either way.
  LaunchLimits limits;
  try {
    limits = launch_limits();
  } catch (const DeviceError&) {
  }
  try {
    check_geometry(kernel, g, limits);
  } catch (const DeviceError& e) {
    throw DeviceError(std::string(e.what()) + " (" + error_text(status) + ")");
  }
  auto sizes = [](dim3 d) {
    return std::to_string(d.x) + (d.y > 1 || d.z > 1 ? "x" + std::to_string(d.y) : "") +
           (d.z > 1 ? "x" + std::to_string(d.z) : "");
  };
  throw DeviceError(failure("kernel launch",
                            "for kernel '" + std::string(kernel) + "' (grid " + sizes(grid) + ", block " +
                                sizes(block) + ")",
                            error_text(status)));
}

std::vector<DeviceInfo> list_devices() {
  const int count = device_count();
  std::vector<DeviceInfo> result;
  result.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) result.push_back(describe(i));
  return result;
}

DeviceInfo open_device(int index) {
  const int count = device_count();
  if (count == 0) throw DeviceError("backend 'cuda' found no devices on this machine");
  if (index < 0 || index >= count) {
    std::string valid;
    for (int i = 0; i < count; ++i) valid += "\n  " + describe(i).label();
    throw DeviceError("no device " + std::to_string(index) + " on backend 'cuda' (valid: 0.." +
                      std::to_string(count - 1) + "):" + valid);
  }
  DeviceInfo info = describe(index);
  check(cudaSetDevice(index), "cudaSetDevice", "for " + info.label());
  return info;
}

namespace detail {

void* device_allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc", "for " + std::to_string(bytes) + " bytes");
  return p;
}

void device_free(void* p) noexcept {
  if (p) static_cast<void>(cudaFree(p));
}

void* pinned_allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  check(cudaMallocHost(&p, bytes), "cudaMallocHost", "for " + std::to_string(bytes) + " bytes");
  return p;
}

void pinned_free(void* p) noexcept {
  if (p) static_cast<void>(cudaFreeHost(p));
}

}  // namespace detail

Stream::Stream() {
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  stream_ = detail::Unique<cudaStream_t, cudaStreamDestroy>(stream);
}

Stream Stream::high_priority() {
  int least = 0, greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest), "cudaStreamCreateWithPriority");
  Stream s;
  s.stream_ = detail::Unique<cudaStream_t, cudaStreamDestroy>(stream);
  return s;
}

void Stream::synchronize() const { check(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize"); }

Event::Event() {
  cudaEvent_t event = nullptr;
  check(cudaEventCreate(&event), "cudaEventCreate");
  event_ = detail::Unique<cudaEvent_t, cudaEventDestroy>(event);
}

void Event::record(const Stream& stream) const {
  check(cudaEventRecord(event_.get(), stream.get()), "cudaEventRecord");
}

void Event::synchronize() const { check(cudaEventSynchronize(event_.get()), "cudaEventSynchronize"); }

double Event::seconds_between(const Event& start, const Event& end) {
  float milliseconds = 0;
  check(cudaEventElapsedTime(&milliseconds, start.get(), end.get()), "cudaEventElapsedTime");
  return milliseconds > 0 ? static_cast<double>(milliseconds) * 1e-3 : 0.0;
}

struct LaunchGate::State {
  double patience = 2.0;
  std::atomic<bool> opened{true}, gave_up{false};
};

namespace {
// The gate's callback, on the driver's thread: waits for open() (the stream behind it waits), at
// most the patience. It holds its own reference to the state, which the gate may outlive or not.
void CUDART_CB wait_for_open(void* user) {
  const std::unique_ptr<std::shared_ptr<LaunchGate::State>> held(static_cast<std::shared_ptr<LaunchGate::State>*>(user));
  LaunchGate::State& s = **held;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(s.patience);
  while (!s.opened.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() > until) {
      s.gave_up.store(true, std::memory_order_release);
      return;
    }
    std::this_thread::yield();
  }
}
}  // namespace

LaunchGate::LaunchGate(double patience) : state_(std::make_shared<State>()) { state_->patience = patience; }

void LaunchGate::close(const Stream& stream) {
  open();
  state_->opened.store(false, std::memory_order_release);
  state_->gave_up.store(false, std::memory_order_release);
  auto* held = new std::shared_ptr<State>(state_);
  const cudaError_t e = cudaLaunchHostFunc(stream.get(), wait_for_open, held);
  if (e != cudaSuccess) {
    delete held;
    state_->opened.store(true, std::memory_order_release);
    check(e, "cudaLaunchHostFunc", "(the launch gate)");
  }
}

void LaunchGate::open() { state_->opened.store(true, std::memory_order_release); }

bool LaunchGate::held_too_long() const { return state_->gave_up.load(std::memory_order_acquire); }

void Timeline::mark(const Stream& stream, double* into) {
  if (used_ == events_.size()) events_.emplace_back();
  events_[used_].record(stream);
  into_.resize(used_ + 1);
  into_[used_++] = into;
}

void Timeline::collect() {
  if (used_ > 0) events_[used_ - 1].synchronize();
  for (std::size_t m = 1; m < used_; ++m)
    if (into_[m]) *into_[m] += Event::seconds_between(events_[m - 1], events_[m]);
  used_ = 0;
}

void KernelTimes::start() {
  timing_ = true;
  started_ = false;
}

double KernelTimes::stop(const Stream& stream) {
  timing_ = false;
  stream.synchronize();
  if (!started_) return 0;
  started_ = false;
  return Event::seconds_between(start_, end_);
}

std::vector<std::pair<std::string, double>> KernelTimes::take_profile(const Stream& stream) {
  stream.synchronize();
  std::vector<std::pair<std::string, double>> times;
  for (auto& launch : profiled_) {
    times.emplace_back(launch.name, Event::seconds_between(launch.start, launch.end));
    spare_.push_back(std::move(launch.start));
    spare_.push_back(std::move(launch.end));
  }
  profiled_.clear();
  return times;
}

Event KernelTimes::spare() {
  if (spare_.empty()) return Event();
  Event e = std::move(spare_.back());
  spare_.pop_back();
  return e;
}

BlasHandle::BlasHandle(const Stream& stream) {
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate");
  handle_ = detail::Unique<cublasHandle_t, cublasDestroy>(handle);
  check(cublasSetStream(handle, stream.get()), "cublasSetStream");
  check(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
}

SparseHandle::SparseHandle(const Stream& stream) {
  cusparseHandle_t handle = nullptr;
  check(cusparseCreate(&handle), "cusparseCreate");
  handle_ = detail::Unique<cusparseHandle_t, cusparseDestroy>(handle);
  check(cusparseSetStream(handle, stream.get()), "cusparseSetStream");
  check(cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_HOST), "cusparseSetPointerMode");
}

SparseCsr::SparseCsr(std::int64_t rows, std::int64_t cols, std::int64_t nnz, std::int32_t* row_ptr,
                     std::int32_t* col_idx, void* values, cudaDataType value_type) {
  cusparseSpMatDescr_t descr = nullptr;
  check(cusparseCreateCsr(&descr, rows, cols, nnz, row_ptr, col_idx, values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, value_type),
        "cusparseCreateCsr",
        "for " + std::to_string(rows) + " x " + std::to_string(cols) + " and " + std::to_string(nnz) + " nonzeros");
  descr_ = detail::Unique<cusparseSpMatDescr_t, cusparseDestroySpMat>(descr);
}

DenseVector::DenseVector(std::int64_t size, void* values, cudaDataType value_type) {
  cusparseDnVecDescr_t descr = nullptr;
  check(cusparseCreateDnVec(&descr, size, values, value_type), "cusparseCreateDnVec",
        "for " + std::to_string(size) + " entries");
  descr_ = detail::Unique<cusparseDnVecDescr_t, cusparseDestroyDnVec>(descr);
}

void DenseVector::set_values(void* values) const {
  check(cusparseDnVecSetValues(descr_.get(), values), "cusparseDnVecSetValues");
}

}  // namespace gpubench::cuda

GPUBENCH_REGISTER_BACKEND(.name = "cuda", .devices = gpubench::cuda::list_devices, .order = 12);
