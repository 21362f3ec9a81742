// The OpenCL backend: device discovery, a context with its profiling queue, buffers, programs
// (built once per context and options), kernels, launches and event timing. Knows nothing about
// any suite. Every OpenCL call is checked; a failure throws DeviceError naming the call and the
// error code's name ("clCreateBuffer failed: CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)").
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/device.hpp"
#include "backends/launch.hpp"

namespace gpubench::opencl {

// "CL_INVALID_VALUE" for -30; "unknown OpenCL error" for a code outside the table.
std::string_view error_name(cl_int code);

// Throws DeviceError "<call> failed[ <detail>]: <NAME> (<code>)" unless `status` is CL_SUCCESS.
void check(cl_int status, std::string_view call, std::string_view detail = {});

// Every OpenCL device of every platform, numbered 0..N-1 in platform order, then device order.
// No platform at all (CL_PLATFORM_NOT_FOUND_KHR) is an empty list, not an error.
std::vector<DeviceInfo> list_devices();

// An NVIDIA device's compute capability {major, minor} (the cl_nv_device_attribute_query
// extension), or nullopt where the device is not NVIDIA's or does not say: what decides whether a
// kernel may use inline PTX's newer instructions (mma.sync, cp.async).
std::optional<std::pair<int, int>> nvidia_compute_capability(cl_device_id device);
// The same for device `index` of list_devices() (nullopt for an index out of range).
std::optional<std::pair<int, int>> nvidia_compute_capability(int index);
// " -DOPENCL_PTX" on NVIDIA's OpenCL at compute capability 7.0 or later, where a kernel may use
// backends/opencl/ptx.h (warp shuffles, CUDA's double approximations); "" elsewhere. A suite adds
// it to its program's options.
std::string inline_ptx_option(cl_device_id device);

namespace detail {
template <typename T>
struct HandleTraits;
// clang-format off
template <> struct HandleTraits<cl_context> {
  static cl_int retain(cl_context h) { return clRetainContext(h); }
  static cl_int release(cl_context h) { return clReleaseContext(h); }
};
template <> struct HandleTraits<cl_command_queue> {
  static cl_int retain(cl_command_queue h) { return clRetainCommandQueue(h); }
  static cl_int release(cl_command_queue h) { return clReleaseCommandQueue(h); }
};
template <> struct HandleTraits<cl_mem> {
  static cl_int retain(cl_mem h) { return clRetainMemObject(h); }
  static cl_int release(cl_mem h) { return clReleaseMemObject(h); }
};
template <> struct HandleTraits<cl_program> {
  static cl_int retain(cl_program h) { return clRetainProgram(h); }
  static cl_int release(cl_program h) { return clReleaseProgram(h); }
};
template <> struct HandleTraits<cl_kernel> {
  static cl_int retain(cl_kernel h) { return clRetainKernel(h); }
  static cl_int release(cl_kernel h) { return clReleaseKernel(h); }
};
template <> struct HandleTraits<cl_event> {
  static cl_int retain(cl_event h) { return clRetainEvent(h); }
  static cl_int release(cl_event h) { return clReleaseEvent(h); }
};
// clang-format on
}  // namespace detail

// Owns one reference to an OpenCL object; copying retains, destruction releases.
template <typename T>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T h) : h_(h) {}  // adopts a reference the caller owned (a clCreate* result)
  Handle(const Handle& other) : h_(other.h_) {
    if (h_) detail::HandleTraits<T>::retain(h_);
  }
  Handle(Handle&& other) noexcept : h_(std::exchange(other.h_, nullptr)) {}
  Handle& operator=(Handle other) noexcept {
    std::swap(h_, other.h_);
    return *this;
  }
  ~Handle() { reset(); }

  T get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  void reset() noexcept {
    // A release failure in a destructor cannot be reported; the object is lost either way.
    if (h_) detail::HandleTraits<T>::release(h_);
    h_ = nullptr;
  }

 private:
  T h_ = nullptr;
};

// A device buffer and its size.
class Buffer {
 public:
  Buffer() = default;
  Buffer(Handle<cl_mem> mem, std::size_t bytes) : mem_(std::move(mem)), bytes_(bytes) {}
  cl_mem get() const { return mem_.get(); }
  std::size_t bytes() const { return bytes_; }
  explicit operator bool() const { return static_cast<bool>(mem_); }

 private:
  Handle<cl_mem> mem_;
  std::size_t bytes_ = 0;
};

// A command's event. The profiling accessors wait for the command to complete first; they need
// a queue created with profiling enabled (Context's queue is).
class Event {
 public:
  Event() = default;
  explicit Event(Handle<cl_event> e) : event_(std::move(e)) {}
  cl_event get() const { return event_.get(); }
  explicit operator bool() const { return static_cast<bool>(event_); }

  void wait() const;
  std::uint64_t start_ns() const;  // CL_PROFILING_COMMAND_START
  std::uint64_t end_ns() const;    // CL_PROFILING_COMMAND_END
  double seconds() const;          // (END - START) in seconds

 private:
  std::uint64_t profiling(cl_profiling_info what, const char* name) const;
  Handle<cl_event> event_;
};

// The device's timeline on a queue, the one every suite's OpenCL code times with. A mark is an
// event that completes when everything queued before it has (clEnqueueMarkerWithWaitList).
Event mark(cl_command_queue queue);
// Seconds from mark `from` to mark `to` (their ends; waits for `to`).
double seconds_between(const Event& from, const Event& to);
// A profiled pass's marks: what runs between two marks is added to the row the later one names.
class Timeline {
 public:
  // A mark on `queue`: what ran since the previous mark goes to *into (nullptr: to no row).
  void mark(cl_command_queue queue, double* into);
  // Waits for the last mark, adds each span to its row, and starts over.
  void collect();
  // Forgets the marks (those of a pass that threw before its collect, whose rows may be gone).
  void clear() { marks_.clear(); }

 private:
  std::vector<std::pair<Event, double*>> marks_;
};

// The kernels' own events, the other way every suite's OpenCL code times: a timed region from
// the first recorded kernel's start to the last one's end (what was queued before the first does
// not count), and a profile of each kernel's own time.
class KernelTimes {
 public:
  void start();  // the region: from the next recorded kernel
  // The region's seconds (0 when no kernel ran in it); waits for its last kernel.
  double stop();
  void profile(bool on) { profiling_ = on; }
  // A launched kernel, named for the profile.
  void record(const char* name, Event event);
  // Each profiled kernel's seconds, in launch order (waits for them); the profile starts over.
  std::vector<std::pair<std::string, double>> take_profile();

 private:
  bool timing_ = false, profiling_ = false;
  Event first_, last_;
  std::vector<std::pair<std::string, Event>> profiled_;
};

// `LocalMemory{bytes}` as a kernel argument: a __local buffer of that size.
struct LocalMemory {
  std::size_t bytes;
};

class Kernel {
 public:
  Kernel() = default;
  Kernel(Handle<cl_kernel> kernel, std::string name) : kernel_(std::move(kernel)), name_(std::move(name)) {}
  cl_kernel get() const { return kernel_.get(); }
  const std::string& name() const { return name_; }

  void set_arg(cl_uint index, const Buffer& buffer) const;
  void set_arg(cl_uint index, LocalMemory local) const;
  template <typename T>
  requires std::is_arithmetic_v<T>
  void set_arg(cl_uint index, T value) const { set_arg_bytes(index, sizeof(T), &value); }
  // Sets arguments 0, 1, 2 ... in order.
  template <typename... Args>
  void set_args(const Args&... args) const {
    cl_uint index = 0;
    (set_arg(index++, args), ...);
  }

  // CL_KERNEL_WORK_GROUP_SIZE on `device`: the largest work-group this kernel can run with.
  std::size_t max_work_group_size(cl_device_id device) const;
  // CL_KERNEL_LOCAL_MEM_SIZE on `device`: the local memory a work-group of it takes, its own
  // __local variables and the __local arguments as last set.
  std::size_t local_mem_bytes(cl_device_id device) const;

 private:
  void set_arg_bytes(cl_uint index, std::size_t size, const void* value) const;
  Handle<cl_kernel> kernel_;
  std::string name_;
};

class Program {
 public:
  Program() = default;
  explicit Program(Handle<cl_program> program) : program_(std::move(program)) {}
  cl_program get() const { return program_.get(); }
  // Throws DeviceError naming the kernel (CL_INVALID_KERNEL_NAME for a kernel not in it).
  Kernel kernel(const std::string& name) const;

 private:
  Handle<cl_program> program_;
};

// One device opened for work: its context, one in-order queue with profiling enabled, and the
// programs built on it.
class Context {
 public:
  // Opens device `index` of list_devices(); throws DeviceError listing the valid indices.
  explicit Context(int index);
  Context(Context&&) = default;
  Context& operator=(Context&&) = default;
  ~Context();

  const DeviceInfo& info() const { return info_; }
  cl_device_id device() const { return device_; }
  cl_context context() const { return context_.get(); }
  cl_command_queue queue() const { return queue_.get(); }

  // The program built from kernel_source(path) with `options`, built on first use and kept:
  // each (path, options) is built once per context. A build failure throws DeviceError with the
  // options and the full build log.
  const Program& program(std::string_view path, const std::string& options);
  // Builds `source` now, uncached. `what` names the source in messages.
  Program build_program(std::string_view source, const std::string& options, std::string_view what = "<source>") const;

  Buffer create_buffer(std::size_t bytes, cl_mem_flags flags = CL_MEM_READ_WRITE) const;

  // Transfers. `blocking` returns once the host memory may be reused (write) or read (read).
  Event write(const Buffer& dst, const void* src, std::size_t bytes, std::size_t offset = 0,
              bool blocking = true) const;
  Event read(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset = 0, bool blocking = true) const;
  template <typename T>
  Event write(const Buffer& dst, std::span<const T> src) const {
    return write(dst, src.data(), src.size_bytes());
  }
  template <typename T>
  Event read(const Buffer& src, std::span<T> dst) const {
    return read(src, dst.data(), dst.size_bytes());
  }
  Event copy(const Buffer& src, const Buffer& dst, std::size_t bytes) const;
  // Fills `bytes` of `dst` (a multiple of pattern_size) with the pattern repeated.
  Event fill(const Buffer& dst, const void* pattern, std::size_t pattern_size, std::size_t bytes) const;

  // A 1-, 2- or 3-D launch, checked first (check_geometry) against the device's limits: each
  // local size divides its global size (OpenCL 1.2), within CL_DEVICE_MAX_WORK_ITEM_SIZES and
  // CL_DEVICE_MAX_WORK_GROUP_SIZE.
  Event launch(const Kernel& kernel, const Geometry& geometry) const;
  // 1-D launch.
  Event launch(const Kernel& kernel, std::size_t global, std::size_t local) const {
    return launch(kernel, Geometry{1, {global}, {local}});
  }
  // The same on `queue` (another in-order queue of this context, e.g. side_queue()), after the
  // events of `after` have completed.
  Event launch_on(cl_command_queue queue, const Kernel& kernel, const Geometry& geometry,
                  const std::vector<cl_event>& after = {}) const;
  // A second in-order, profiling queue on the device, created on first use: work on it may
  // overlap the main queue's (a look-ahead).
  cl_command_queue side_queue();
  const LaunchLimits& launch_limits() const { return limits_; }

  void flush() const;
  void finish() const;

 private:
  DeviceInfo info_;
  cl_device_id device_ = nullptr;  // not reference-counted for root devices
  LaunchLimits limits_;
  Handle<cl_context> context_;
  Handle<cl_command_queue> queue_, side_queue_;
  std::map<std::pair<std::string, std::string>, Program> programs_;
};

}  // namespace gpubench::opencl
