#include "backends/opencl/opencl.hpp"

#include <CL/cl_ext.h>

#include <array>
#include <cstdio>
#include <sstream>

#include "backends/kernel_sources.hpp"
#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "common/out_of_memory.hpp"

namespace gpubench::opencl {

std::string_view error_name(cl_int code) {
  // Numbers rather than macros: headers targeting OpenCL 1.2 do not define the newer codes, and a
  // driver may return them anyway.
  // clang-format off
  switch (code) {
    case 0: return "CL_SUCCESS";
    case -1: return "CL_DEVICE_NOT_FOUND";
    case -2: return "CL_DEVICE_NOT_AVAILABLE";
    case -3: return "CL_COMPILER_NOT_AVAILABLE";
    case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case -5: return "CL_OUT_OF_RESOURCES";
    case -6: return "CL_OUT_OF_HOST_MEMORY";
    case -7: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case -8: return "CL_MEM_COPY_OVERLAP";
    case -9: return "CL_IMAGE_FORMAT_MISMATCH";
    case -10: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
    case -11: return "CL_BUILD_PROGRAM_FAILURE";
    case -12: return "CL_MAP_FAILURE";
    case -13: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case -14: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case -15: return "CL_COMPILE_PROGRAM_FAILURE";
    case -16: return "CL_LINKER_NOT_AVAILABLE";
    case -17: return "CL_LINK_PROGRAM_FAILURE";
    case -18: return "CL_DEVICE_PARTITION_FAILED";
    case -19: return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
    case -30: return "CL_INVALID_VALUE";
    case -31: return "CL_INVALID_DEVICE_TYPE";
    case -32: return "CL_INVALID_PLATFORM";
    case -33: return "CL_INVALID_DEVICE";
    case -34: return "CL_INVALID_CONTEXT";
    case -35: return "CL_INVALID_QUEUE_PROPERTIES";
    case -36: return "CL_INVALID_COMMAND_QUEUE";
    case -37: return "CL_INVALID_HOST_PTR";
    case -38: return "CL_INVALID_MEM_OBJECT";
    case -39: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
    case -40: return "CL_INVALID_IMAGE_SIZE";
    case -41: return "CL_INVALID_SAMPLER";
    case -42: return "CL_INVALID_BINARY";
    case -43: return "CL_INVALID_BUILD_OPTIONS";
    case -44: return "CL_INVALID_PROGRAM";
    case -45: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case -46: return "CL_INVALID_KERNEL_NAME";
    case -47: return "CL_INVALID_KERNEL_DEFINITION";
    case -48: return "CL_INVALID_KERNEL";
    case -49: return "CL_INVALID_ARG_INDEX";
    case -50: return "CL_INVALID_ARG_VALUE";
    case -51: return "CL_INVALID_ARG_SIZE";
    case -52: return "CL_INVALID_KERNEL_ARGS";
    case -53: return "CL_INVALID_WORK_DIMENSION";
    case -54: return "CL_INVALID_WORK_GROUP_SIZE";
    case -55: return "CL_INVALID_WORK_ITEM_SIZE";
    case -56: return "CL_INVALID_GLOBAL_OFFSET";
    case -57: return "CL_INVALID_EVENT_WAIT_LIST";
    case -58: return "CL_INVALID_EVENT";
    case -59: return "CL_INVALID_OPERATION";
    case -60: return "CL_INVALID_GL_OBJECT";
    case -61: return "CL_INVALID_BUFFER_SIZE";
    case -62: return "CL_INVALID_MIP_LEVEL";
    case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -64: return "CL_INVALID_PROPERTY";
    case -65: return "CL_INVALID_IMAGE_DESCRIPTOR";
    case -66: return "CL_INVALID_COMPILER_OPTIONS";
    case -67: return "CL_INVALID_LINKER_OPTIONS";
    case -68: return "CL_INVALID_DEVICE_PARTITION_COUNT";
    case -69: return "CL_INVALID_PIPE_SIZE";
    case -70: return "CL_INVALID_DEVICE_QUEUE";
    case -71: return "CL_INVALID_SPEC_ID";
    case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
    // Extensions.
    case -1000: return "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    case -1002: return "CL_INVALID_D3D10_DEVICE_KHR";
    case -1003: return "CL_INVALID_D3D10_RESOURCE_KHR";
    case -1004: return "CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR";
    case -1005: return "CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR";
    case -1006: return "CL_INVALID_D3D11_DEVICE_KHR";
    case -1007: return "CL_INVALID_D3D11_RESOURCE_KHR";
    case -1008: return "CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR";
    case -1009: return "CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR";
    case -1010: return "CL_INVALID_DX9_MEDIA_ADAPTER_KHR";
    case -1011: return "CL_INVALID_DX9_MEDIA_SURFACE_KHR";
    case -1012: return "CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR";
    case -1013: return "CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR";
    case -1057: return "CL_DEVICE_PARTITION_FAILED_EXT";
    case -1058: return "CL_INVALID_PARTITION_COUNT_EXT";
    case -1059: return "CL_INVALID_PARTITION_NAME_EXT";
    case -1092: return "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR";
    case -1093: return "CL_INVALID_EGL_OBJECT_KHR";
    case -1094: return "CL_INVALID_ACCELERATOR_INTEL";
    case -1095: return "CL_INVALID_ACCELERATOR_TYPE_INTEL";
    case -1096: return "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL";
    case -1097: return "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL";
    case -1098: return "CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL";
    case -1099: return "CL_INVALID_VA_API_MEDIA_SURFACE_INTEL";
    case -1100: return "CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL";
    case -1101: return "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL";
    case -1108: return "CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM";
    case -1121: return "CL_CONTEXT_TERMINATED_KHR";
    case -1138: return "CL_INVALID_COMMAND_BUFFER_KHR";
    case -1139: return "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR";
    case -1140: return "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR";
    case -1141: return "CL_INVALID_MUTABLE_COMMAND_KHR";
    case -1142: return "CL_INVALID_SEMAPHORE_KHR";
    default: return "unknown OpenCL error";
  }
  // clang-format on
}

void check(cl_int status, std::string_view call, std::string_view detail) {
  if (status == CL_SUCCESS) return;
  std::string message(call);
  message += " failed";
  if (!detail.empty()) {
    message += ' ';
    message += detail;
  }
  message += ": ";
  message += error_name(status);
  message += " (" + std::to_string(status) + ")";
  throw DeviceError(message);
}

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ' || s.back() == '\n')) s.pop_back();
  const auto first = s.find_first_not_of(' ');
  return first == std::string::npos ? std::string() : s.substr(first);
}

std::string platform_string(cl_platform_id platform, cl_platform_info what, const char* name) {
  std::size_t size = 0;
  check(clGetPlatformInfo(platform, what, 0, nullptr, &size), "clGetPlatformInfo", name);
  std::string s(size, '\0');
  check(clGetPlatformInfo(platform, what, size, s.data(), nullptr), "clGetPlatformInfo", name);
  return trimmed(std::move(s));
}

std::string device_string(cl_device_id device, cl_device_info what, const char* name) {
  std::size_t size = 0;
  check(clGetDeviceInfo(device, what, 0, nullptr, &size), "clGetDeviceInfo", name);
  std::string s(size, '\0');
  check(clGetDeviceInfo(device, what, size, s.data(), nullptr), "clGetDeviceInfo", name);
  return trimmed(std::move(s));
}

template <typename T>
T device_value(cl_device_id device, cl_device_info what, const char* name) {
  T value{};
  check(clGetDeviceInfo(device, what, sizeof(T), &value, nullptr), "clGetDeviceInfo", name);
  return value;
}

bool has_extension(const std::string& extensions, std::string_view wanted) {
  std::istringstream words(extensions);
  std::string word;
  while (words >> word)
    if (word == wanted) return true;
  return false;
}

struct DeviceHandle {
  cl_platform_id platform;
  cl_device_id device;
};

// Every device in listing order.
std::vector<DeviceHandle> all_devices() {
  cl_uint platform_count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
  if (status == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no driver */) {
    // Under an address-space limit a driver that is installed may fail to load: say so, rather
    // than that the machine has no OpenCL device.
    if (const std::string limit = address_space_limit_note(); !limit.empty())
      throw DeviceError("the OpenCL ICD loader could load no platform (CL_PLATFORM_NOT_FOUND_KHR)" + limit +
                        ", which may be too small for an OpenCL driver to load: raise it");
    return {};
  }
  check(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(platform_count);
  if (platform_count > 0) check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");

  std::vector<DeviceHandle> result;
  for (cl_platform_id platform : platforms) {
    cl_uint count = 0;
    const cl_int found = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
    if (found == CL_DEVICE_NOT_FOUND || count == 0) continue;
    check(found, "clGetDeviceIDs");
    std::vector<cl_device_id> devices(count);
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr), "clGetDeviceIDs");
    for (cl_device_id device : devices) result.push_back({platform, device});
  }
  return result;
}

}  // namespace

std::optional<std::pair<int, int>> nvidia_compute_capability(cl_device_id device) {
  constexpr cl_device_info major = 0x4000, minor = 0x4001;  // CL_DEVICE_COMPUTE_CAPABILITY_{MAJOR,MINOR}_NV
  std::size_t size = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size) != CL_SUCCESS) return std::nullopt;
  std::string extensions(size, '\0');
  if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr) != CL_SUCCESS ||
      !has_extension(extensions, "cl_nv_device_attribute_query"))
    return std::nullopt;
  cl_uint a = 0, b = 0;
  if (clGetDeviceInfo(device, major, sizeof a, &a, nullptr) != CL_SUCCESS ||
      clGetDeviceInfo(device, minor, sizeof b, &b, nullptr) != CL_SUCCESS)
    return std::nullopt;
  return std::pair{static_cast<int>(a), static_cast<int>(b)};
}

std::string inline_ptx_option(cl_device_id device) {
  const auto cc = nvidia_compute_capability(device);
  return cc && cc->first >= 7 ? " -DOPENCL_PTX" : "";
}

std::optional<std::pair<int, int>> nvidia_compute_capability(int index) {
  const auto handles = all_devices();
  if (index < 0 || static_cast<std::size_t>(index) >= handles.size()) return std::nullopt;
  return nvidia_compute_capability(handles[static_cast<std::size_t>(index)].device);
}

namespace {

DeviceInfo describe(const DeviceHandle& h, int index) {
  DeviceInfo info;
  info.backend = "opencl";
  info.index = index;
  // CL_DEVICE_VERSION is "OpenCL <major>.<minor> <vendor text>"; keep the API part.
  const std::string version = device_string(h.device, CL_DEVICE_VERSION, "CL_DEVICE_VERSION");
  const auto second_space = version.find(' ', version.find(' ') + 1);
  info.api = version.substr(0, second_space);
  info.platform = platform_string(h.platform, CL_PLATFORM_NAME, "CL_PLATFORM_NAME");
  info.vendor = device_string(h.device, CL_DEVICE_VENDOR, "CL_DEVICE_VENDOR");
  info.name = device_string(h.device, CL_DEVICE_NAME, "CL_DEVICE_NAME");
  info.driver = device_string(h.device, CL_DRIVER_VERSION, "CL_DRIVER_VERSION");
  const auto type = device_value<cl_device_type>(h.device, CL_DEVICE_TYPE, "CL_DEVICE_TYPE");
  info.type = (type & CL_DEVICE_TYPE_GPU)           ? "gpu"
              : (type & CL_DEVICE_TYPE_CPU)         ? "cpu"
              : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                    : "other";
  info.compute_units =
      static_cast<int>(device_value<cl_uint>(h.device, CL_DEVICE_MAX_COMPUTE_UNITS, "CL_DEVICE_MAX_COMPUTE_UNITS"));
  info.max_work_group_size =
      device_value<std::size_t>(h.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, "CL_DEVICE_MAX_WORK_GROUP_SIZE");
  info.global_mem_bytes = device_value<cl_ulong>(h.device, CL_DEVICE_GLOBAL_MEM_SIZE, "CL_DEVICE_GLOBAL_MEM_SIZE");
  info.max_alloc_bytes = device_value<cl_ulong>(h.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, "CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  info.local_mem_bytes = device_value<cl_ulong>(h.device, CL_DEVICE_LOCAL_MEM_SIZE, "CL_DEVICE_LOCAL_MEM_SIZE");
  info.cache_bytes =
      device_value<cl_ulong>(h.device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, "CL_DEVICE_GLOBAL_MEM_CACHE_SIZE");
  // Some OpenCL 1.x drivers reject CL_DEVICE_DOUBLE_FP_CONFIG outright when there is no fp64;
  // that answer means "none" here rather than an error.
  cl_device_fp_config double_config = 0;
  if (clGetDeviceInfo(h.device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof double_config, &double_config, nullptr) !=
      CL_SUCCESS)
    double_config = 0;
  const std::string extensions = device_string(h.device, CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS");
  info.fp64 = has_extension(extensions, "cl_khr_fp64") || double_config != 0;
  // The PCI address, where the driver has cl_khr_pci_bus_info (NVIDIA's does): what finds the
  // device in NVML for its energy.
  cl_device_pci_bus_info_khr pci{};
  if (has_extension(extensions, "cl_khr_pci_bus_info") &&
      clGetDeviceInfo(h.device, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof pci, &pci, nullptr) == CL_SUCCESS) {
    char bus_id[32];
    std::snprintf(bus_id, sizeof bus_id, "%08X:%02X:%02X.%X", pci.pci_domain, pci.pci_bus, pci.pci_device,
                  pci.pci_function);
    info.pci_bus_id = bus_id;
  }
  return info;
}

std::string valid_devices_text(const std::vector<DeviceHandle>& handles) {
  std::string text;
  for (std::size_t i = 0; i < handles.size(); ++i) text += "\n  " + describe(handles[i], static_cast<int>(i)).label();
  return text;
}

}  // namespace

std::vector<DeviceInfo> list_devices() {
  const auto handles = all_devices();
  std::vector<DeviceInfo> result;
  result.reserve(handles.size());
  for (std::size_t i = 0; i < handles.size(); ++i) result.push_back(describe(handles[i], static_cast<int>(i)));
  return result;
}

// ---------------------------------------------------------------------------------------------
// Event, Kernel, Program

void Event::wait() const {
  const cl_event e = event_.get();
  check(clWaitForEvents(1, &e), "clWaitForEvents");
}

std::uint64_t Event::profiling(cl_profiling_info what, const char* name) const {
  wait();
  cl_ulong value = 0;
  check(clGetEventProfilingInfo(event_.get(), what, sizeof value, &value, nullptr), "clGetEventProfilingInfo", name);
  return value;
}

std::uint64_t Event::start_ns() const { return profiling(CL_PROFILING_COMMAND_START, "CL_PROFILING_COMMAND_START"); }
std::uint64_t Event::end_ns() const { return profiling(CL_PROFILING_COMMAND_END, "CL_PROFILING_COMMAND_END"); }
double Event::seconds() const {
  const auto start = start_ns();
  const auto end = end_ns();
  return end > start ? static_cast<double>(end - start) * 1e-9 : 0.0;
}

Event mark(cl_command_queue queue) {
  cl_event e = nullptr;
  check(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &e), "clEnqueueMarkerWithWaitList");
  return Event(Handle<cl_event>(e));
}

double seconds_between(const Event& from, const Event& to) {
  const std::uint64_t end = to.end_ns(), start = from.end_ns();
  return end > start ? static_cast<double>(end - start) * 1e-9 : 0.0;
}

void Timeline::mark(cl_command_queue queue, double* into) { marks_.emplace_back(opencl::mark(queue), into); }

void Timeline::collect() {
  if (!marks_.empty()) marks_.back().first.wait();
  for (std::size_t m = 1; m < marks_.size(); ++m)
    if (marks_[m].second) *marks_[m].second += seconds_between(marks_[m - 1].first, marks_[m].first);
  marks_.clear();
}

void KernelTimes::start() {
  timing_ = true;
  first_ = {};
  last_ = {};
}

double KernelTimes::stop() {
  timing_ = false;
  if (!first_) return 0;
  const std::uint64_t end = last_.end_ns(), start = first_.start_ns();
  first_ = {};
  last_ = {};
  return end > start ? static_cast<double>(end - start) * 1e-9 : 0.0;
}

void KernelTimes::record(const char* name, Event event) {
  if (timing_) {
    if (!first_) first_ = event;
    last_ = event;
  }
  if (profiling_) profiled_.emplace_back(name, std::move(event));
}

std::vector<std::pair<std::string, double>> KernelTimes::take_profile() {
  std::vector<std::pair<std::string, double>> times;
  for (const auto& [name, event] : profiled_) times.emplace_back(name, event.seconds());
  profiled_.clear();
  return times;
}

void Kernel::set_arg_bytes(cl_uint index, std::size_t size, const void* value) const {
  const cl_int status = clSetKernelArg(kernel_.get(), index, size, value);
  if (status != CL_SUCCESS)
    check(status, "clSetKernelArg", "for kernel '" + name_ + "' argument " + std::to_string(index));
}

void Kernel::set_arg(cl_uint index, const Buffer& buffer) const {
  const cl_mem mem = buffer.get();
  set_arg_bytes(index, sizeof mem, &mem);
}

void Kernel::set_arg(cl_uint index, LocalMemory local) const { set_arg_bytes(index, local.bytes, nullptr); }

std::size_t Kernel::max_work_group_size(cl_device_id device) const {
  std::size_t size = 0;
  const cl_int status =
      clGetKernelWorkGroupInfo(kernel_.get(), device, CL_KERNEL_WORK_GROUP_SIZE, sizeof size, &size, nullptr);
  if (status != CL_SUCCESS) check(status, "clGetKernelWorkGroupInfo", "for kernel '" + name_ + "'");
  return size;
}

std::size_t Kernel::local_mem_bytes(cl_device_id device) const {
  cl_ulong bytes = 0;
  const cl_int status =
      clGetKernelWorkGroupInfo(kernel_.get(), device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof bytes, &bytes, nullptr);
  if (status != CL_SUCCESS) check(status, "clGetKernelWorkGroupInfo", "for kernel '" + name_ + "'");
  return static_cast<std::size_t>(bytes);
}

Kernel Program::kernel(const std::string& name) const {
  cl_int status = CL_SUCCESS;
  Handle<cl_kernel> kernel(clCreateKernel(program_.get(), name.c_str(), &status));
  if (status != CL_SUCCESS) check(status, "clCreateKernel", "for kernel '" + name + "'");
  return Kernel(std::move(kernel), name);
}

// ---------------------------------------------------------------------------------------------
// Context

Context::Context(int index) {
  const auto handles = all_devices();
  if (handles.empty()) throw DeviceError("backend 'opencl' found no devices on this machine");
  if (index < 0 || index >= static_cast<int>(handles.size()))
    throw DeviceError("no device " + std::to_string(index) + " on backend 'opencl' (valid: 0.." +
                      std::to_string(handles.size() - 1) + "):" + valid_devices_text(handles));
  const DeviceHandle& h = handles[static_cast<std::size_t>(index)];
  info_ = describe(h, index);
  device_ = h.device;
  // At least 3 dimensions (OpenCL guarantees 3; a device may report more).
  std::vector<std::size_t> sizes(std::max<cl_uint>(
      3, device_value<cl_uint>(device_, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, "CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS")));
  check(clGetDeviceInfo(device_, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes.size() * sizeof(std::size_t), sizes.data(),
                        nullptr),
        "clGetDeviceInfo", "(CL_DEVICE_MAX_WORK_ITEM_SIZES)");
  limits_.local = {sizes[0], sizes[1], sizes[2]};
  limits_.local_total = info_.max_work_group_size;

  const std::array<cl_context_properties, 3> properties = {CL_CONTEXT_PLATFORM,
                                                           reinterpret_cast<cl_context_properties>(h.platform), 0};
  cl_int status = CL_SUCCESS;
  context_ = Handle<cl_context>(clCreateContext(properties.data(), 1, &device_, nullptr, nullptr, &status));
  check(status, "clCreateContext", "for " + info_.label());
  queue_ = Handle<cl_command_queue>(clCreateCommandQueue(context_.get(), device_, CL_QUEUE_PROFILING_ENABLE, &status));
  check(status, "clCreateCommandQueue", "for " + info_.label());
}

Context::~Context() {
  // Let queued commands finish before their buffers go; an error here cannot be reported.
  if (side_queue_) clFinish(side_queue_.get());
  if (queue_) clFinish(queue_.get());
}

Program Context::build_program(std::string_view source, const std::string& options, std::string_view what) const {
  const char* text = source.data();
  const std::size_t length = source.size();
  cl_int status = CL_SUCCESS;
  Program program(Handle<cl_program>(clCreateProgramWithSource(context_.get(), 1, &text, &length, &status)));
  check(status, "clCreateProgramWithSource", "for " + std::string(what));

  status = clBuildProgram(program.get(), 1, &device_, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    std::string log;
    std::size_t size = 0;
    if (clGetProgramBuildInfo(program.get(), device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) == CL_SUCCESS &&
        size > 0) {
      log.resize(size);
      if (clGetProgramBuildInfo(program.get(), device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS)
        log.clear();
    }
    log = trimmed(std::move(log));
    throw DeviceError("clBuildProgram failed for " + std::string(what) + " with options '" + options + "' on " +
                      info_.label() + ": " + std::string(error_name(status)) + " (" + std::to_string(status) +
                      ")\nbuild log:\n" + (log.empty() ? "(empty)" : log));
  }
  return program;
}

const Program& Context::program(std::string_view path, const std::string& options) {
  auto key = std::make_pair(std::string(path), options);
  auto it = programs_.find(key);
  if (it == programs_.end()) {
    Program built = build_program(kernel_source(path), options, "kernels/" + std::string(path));
    it = programs_.emplace(std::move(key), std::move(built)).first;
  }
  return it->second;
}

Buffer Context::create_buffer(std::size_t bytes, cl_mem_flags flags) const {
  cl_int status = CL_SUCCESS;
  Handle<cl_mem> mem(clCreateBuffer(context_.get(), flags, bytes, nullptr, &status));
  if (status != CL_SUCCESS) check(status, "clCreateBuffer", "for " + std::to_string(bytes) + " bytes");
  return Buffer(std::move(mem), bytes);
}

namespace {
Event adopt(cl_event e) { return Event(Handle<cl_event>(e)); }
}  // namespace

Event Context::write(const Buffer& dst, const void* src, std::size_t bytes, std::size_t offset, bool blocking) const {
  cl_event e = nullptr;
  check(
      clEnqueueWriteBuffer(queue_.get(), dst.get(), blocking ? CL_TRUE : CL_FALSE, offset, bytes, src, 0, nullptr, &e),
      "clEnqueueWriteBuffer");
  return adopt(e);
}

Event Context::read(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset, bool blocking) const {
  cl_event e = nullptr;
  check(clEnqueueReadBuffer(queue_.get(), src.get(), blocking ? CL_TRUE : CL_FALSE, offset, bytes, dst, 0, nullptr, &e),
        "clEnqueueReadBuffer");
  return adopt(e);
}

Event Context::copy(const Buffer& src, const Buffer& dst, std::size_t bytes) const {
  cl_event e = nullptr;
  check(clEnqueueCopyBuffer(queue_.get(), src.get(), dst.get(), 0, 0, bytes, 0, nullptr, &e), "clEnqueueCopyBuffer");
  return adopt(e);
}

Event Context::fill(const Buffer& dst, const void* pattern, std::size_t pattern_size, std::size_t bytes) const {
  cl_event e = nullptr;
  check(clEnqueueFillBuffer(queue_.get(), dst.get(), pattern, pattern_size, 0, bytes, 0, nullptr, &e),
        "clEnqueueFillBuffer");
  return adopt(e);
}

Event Context::launch(const Kernel& kernel, const Geometry& geometry) const {
  return launch_on(queue_.get(), kernel, geometry);
}

cl_command_queue Context::side_queue() {
  if (!side_queue_) {
    cl_int status = CL_SUCCESS;
    side_queue_ =
        Handle<cl_command_queue>(clCreateCommandQueue(context_.get(), device_, CL_QUEUE_PROFILING_ENABLE, &status));
    check(status, "clCreateCommandQueue", "(a second queue) for " + info_.label());
  }
  return side_queue_.get();
}

Event Context::launch_on(cl_command_queue queue, const Kernel& kernel, const Geometry& geometry,
                         const std::vector<cl_event>& after) const {
  check_geometry(kernel.name(), geometry, limits_);
  const std::size_t global[] = {geometry.global.x, geometry.global.y, geometry.global.z};
  const std::size_t local[] = {geometry.local.x, geometry.local.y, geometry.local.z};
  cl_event e = nullptr;
  const cl_int status =
      clEnqueueNDRangeKernel(queue, kernel.get(), geometry.dims, nullptr, global, local,
                             static_cast<cl_uint>(after.size()), after.empty() ? nullptr : after.data(), &e);
  if (status != CL_SUCCESS)  // the message is built only on failure: launches are on the timed path
    check(status, "clEnqueueNDRangeKernel", "for kernel '" + kernel.name() + "' (" + geometry.text() + ")");
  return adopt(e);
}

void Context::flush() const { check(clFlush(queue_.get()), "clFlush"); }
void Context::finish() const { check(clFinish(queue_.get()), "clFinish"); }

}  // namespace gpubench::opencl

GPUBENCH_REGISTER_BACKEND(.name = "opencl", .devices = gpubench::opencl::list_devices, .order = 10);
