// The CUDA backend: device discovery, device selection, RAII owners for device and pinned host
// memory, streams, events, and the cuBLAS / cuSPARSE handles and descriptors. Knows nothing about
// any suite. Every call is checked; a failure throws DeviceError naming the call, the status name
// and its description ("cudaMalloc failed for 1024 bytes: cudaErrorMemoryAllocation (2): out of
// memory"). Plain C++: included by .cpp files (host compiler) and .cu files (nvcc) alike.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/device.hpp"
#include "backends/launch.hpp"

namespace gpubench::cuda {

// "cudaErrorMemoryAllocation (2): out of memory": the code's name, number and description.
std::string error_text(cudaError_t code);
std::string error_text(cublasStatus_t status);
std::string error_text(cusparseStatus_t status);

// Throw DeviceError "<call> failed[ <detail>]: <error_text>" unless the status is a success. A
// failed runtime call also clears the runtime's last-error state, so that a later launch check
// (cudaGetLastError) does not report this failure again as its own.
void check(cudaError_t status, std::string_view call, std::string_view detail = {});
void check(cublasStatus_t status, std::string_view call, std::string_view detail = {});
void check(cusparseStatus_t status, std::string_view call, std::string_view detail = {});

// Checks the launch just made: cudaGetLastError, named after `kernel` and its grid and block. On
// a failure, a grid or block the current device cannot take (launch_limits) is named with the
// dimension and the limit it breaks. Costs nothing beyond cudaGetLastError when the launch worked.
void check_launch(std::string_view kernel, dim3 grid, dim3 block);
inline void check_launch(std::string_view kernel, unsigned grid, unsigned block) {
  check_launch(kernel, dim3(grid), dim3(block));
}
// The grid `grid` of blocks `block`, as a Geometry of `dims` dimensions.
Geometry geometry(unsigned dims, dim3 grid, dim3 block);
// The current device's maxThreadsDim, maxThreadsPerBlock and maxGridSize.
LaunchLimits launch_limits();

// Every CUDA device, numbered as the runtime numbers them (CUDA_VISIBLE_DEVICES applies). No
// driver, no device, or a machine whose devices are all unavailable is an empty list, not an
// error; other failures throw DeviceError.
std::vector<DeviceInfo> list_devices();

// Makes device `index` of list_devices() current for this thread and returns its description.
// Throws DeviceError when there is no such device, listing the valid ones.
DeviceInfo open_device(int index);

namespace detail {
// Owns one handle; move-only. `Destroy` is called once on a non-null handle. Its status is
// ignored: a destructor cannot report it, and the handle is gone either way.
template <typename H, auto Destroy>
class Unique {
 public:
  Unique() = default;
  explicit Unique(H h) : h_(h) {}
  Unique(Unique&& other) noexcept : h_(std::exchange(other.h_, H{})) {}
  Unique& operator=(Unique&& other) noexcept {
    if (this != &other) {
      reset();
      h_ = std::exchange(other.h_, H{});
    }
    return *this;
  }
  Unique(const Unique&) = delete;
  Unique& operator=(const Unique&) = delete;
  ~Unique() { reset(); }

  H get() const { return h_; }
  explicit operator bool() const { return h_ != H{}; }
  void reset() noexcept {
    if (h_ != H{}) static_cast<void>(Destroy(h_));
    h_ = H{};
  }

 private:
  H h_{};
};

void* device_allocate(std::size_t bytes);  // cudaMalloc; nullptr for 0 bytes
void device_free(void* p) noexcept;
void* pinned_allocate(std::size_t bytes);  // cudaMallocHost; nullptr for 0 bytes
void pinned_free(void* p) noexcept;
}  // namespace detail

// `size` elements of T in device memory (cudaMalloc; never managed memory), uninitialised.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t size)
      : data_(static_cast<T*>(detail::device_allocate(size * sizeof(T)))), size_(size) {}
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      detail::device_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { detail::device_free(data_); }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// `size` elements of T in page-locked host memory (cudaMallocHost): the target of small
// device-to-host copies the host waits on.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t size)
      : data_(static_cast<T*>(detail::pinned_allocate(size * sizeof(T)))), size_(size) {}
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      detail::pinned_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { detail::pinned_free(data_); }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  T& operator[](std::size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// A non-blocking stream (no implicit synchronisation with the legacy default stream).
class Stream {
 public:
  Stream();
  // A stream of the device's highest priority: its blocks are scheduled before those of
  // streams created by Stream() as SMs free up (a look-ahead's critical path beside a long kernel).
  static Stream high_priority();
  cudaStream_t get() const { return stream_.get(); }
  void synchronize() const;  // cudaStreamSynchronize

 private:
  detail::Unique<cudaStream_t, cudaStreamDestroy> stream_;
};

// A timing event.
class Event {
 public:
  Event();
  cudaEvent_t get() const { return event_.get(); }
  void record(const Stream& stream) const;  // cudaEventRecord on `stream`
  void synchronize() const;                 // cudaEventSynchronize
  // Seconds from `start` to `end`, both recorded and complete (cudaEventElapsedTime).
  static double seconds_between(const Event& start, const Event& end);

 private:
  detail::Unique<cudaEvent_t, cudaEventDestroy> event_;
};

// Holds the work queued on a stream after close() until open(): a host callback
// (cudaLaunchHostFunc) that the stream waits on. A timed region's first event, queued behind it,
// is then recorded once all of the region's launches are queued, so that the host's time to queue
// them (launch calls, a pool allocation; tens of microseconds where the kernels take a hundred)
// does not count as the device's, as it does not where OpenCL times from the first kernel's
// start. The callback gives up after `patience` seconds (work that synchronised with the host
// while held: the stream runs on, and held_too_long() says so); the destructor opens the gate.
class LaunchGate {
 public:
  explicit LaunchGate(double patience = 2.0);
  ~LaunchGate() { open(); }
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;
  void close(const Stream& stream);
  void open();
  // Whether the last close()'s callback gave up before open() (valid once the stream passed it).
  bool held_too_long() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// A profiled pass's marks on a stream, the one timeline every suite's CUDA code profiles with:
// what runs between two marks is added to the row the later one names (events reused).
class Timeline {
 public:
  // A mark on `stream`: what ran since the previous mark goes to *into (nullptr: to no row).
  void mark(const Stream& stream, double* into);
  // Waits for the last mark, adds each span to its row, and starts over.
  void collect();
  // Forgets the marks (those of a pass that threw before its collect, whose rows may be gone).
  void clear() { used_ = 0; }

 private:
  std::vector<Event> events_;
  std::vector<double*> into_;
  std::size_t used_ = 0;
};

// The timed region and the profile of the work queued on one stream, the way every suite's CUDA
// code times its kernels: `around` queues a launch (or library call) between the events the region
// and the profile ask for. The region runs from before the first launch to after the last.
class KernelTimes {
 public:
  void start();  // the region: from the next launch
  // The region's seconds (0 when nothing ran in it); waits for the stream.
  double stop(const Stream& stream);
  void profile(bool on) { profiling_ = on; }
  template <class Body>
  void around(const Stream& stream, const char* name, Body&& body) {
    if (timing_ && !started_) {
      start_.record(stream);
      started_ = true;
    }
    if (profiling_) {
      Launch launch{name, spare(), spare()};
      launch.start.record(stream);
      body();
      launch.end.record(stream);
      profiled_.push_back(std::move(launch));
    } else {
      body();
    }
    if (timing_) end_.record(stream);
  }
  // Each profiled launch's seconds, in launch order (waits for the stream); starts over.
  std::vector<std::pair<std::string, double>> take_profile(const Stream& stream);

 private:
  struct Launch {
    std::string name;
    Event start, end;
  };
  Event spare();
  bool timing_ = false, started_ = false, profiling_ = false;
  Event start_, end_;
  std::vector<Launch> profiled_;
  std::vector<Event> spare_;  // events of taken profiles, reused
};

// A cuBLAS handle in host pointer mode, its work queued on `stream`.
class BlasHandle {
 public:
  explicit BlasHandle(const Stream& stream);
  cublasHandle_t get() const { return handle_.get(); }

 private:
  detail::Unique<cublasHandle_t, cublasDestroy> handle_;
};

// A cuSPARSE handle (host pointer mode), its work queued on `stream`.
class SparseHandle {
 public:
  explicit SparseHandle(const Stream& stream);
  cusparseHandle_t get() const { return handle_.get(); }

 private:
  detail::Unique<cusparseHandle_t, cusparseDestroy> handle_;
};

// cuSPARSE's description of a rows x cols CSR matrix with 32-bit indices, zero-based (a band of
// a matrix split across devices has more columns than rows: its halo); the arrays stay owned by
// the caller and must outlive it.
class SparseCsr {
 public:
  SparseCsr(std::int64_t rows, std::int64_t cols, std::int64_t nnz, std::int32_t* row_ptr, std::int32_t* col_idx,
            void* values, cudaDataType value_type);
  cusparseSpMatDescr_t get() const { return descr_.get(); }

 private:
  detail::Unique<cusparseSpMatDescr_t, cusparseDestroySpMat> descr_;
};

// cuSPARSE's description of a dense vector; point it at other storage with set_values().
class DenseVector {
 public:
  DenseVector(std::int64_t size, void* values, cudaDataType value_type);
  cusparseDnVecDescr_t get() const { return descr_.get(); }
  void set_values(void* values) const;

 private:
  detail::Unique<cusparseDnVecDescr_t, cusparseDestroyDnVec> descr_;
};

}  // namespace gpubench::cuda
