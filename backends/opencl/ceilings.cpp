// The OpenCL ceiling probe: copy and triad bandwidth and f32/f64 FMA throughput, measured with
// the kernels of backends/opencl/ceilings.cl and timed with profiling events.
#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/ceilings.hpp"
#include "backends/ceilings_common.hpp"
#include "backends/kernel_sources.hpp"
#include "backends/opencl/opencl.hpp"

namespace gpubench::opencl {

namespace {

constexpr const char* source_path = "backends/opencl/ceilings.cl";

std::string real_option(bool is_double) { return is_double ? "-DREAL=double" : "-DREAL=float"; }

// The work-group size for `kernel`: 256 where the device and the kernel allow it.
std::size_t work_group_size(const Context& context, const Kernel& kernel) {
  std::size_t size = std::min<std::size_t>(256, context.info().max_work_group_size);
  size = std::min(size, kernel.max_work_group_size(context.device()));
  return std::max<std::size_t>(size, 1);
}

std::size_t round_up(std::size_t n, std::size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

class Probe {
 public:
  explicit Probe(int index) : context_(index), info_(context_.info()) {}

  Ceilings run(std::ostream& log) {
    Ceilings result;
    result.backend = "opencl";
    result.f32_gflops = measure_flops<float>(log);
    if (info_.fp64) result.f64_gflops = measure_flops<double>(log);
    if (info_.type == "gpu") measure_caches(result, log);
    measure_bandwidth(result, log);  // last on every API: see backends/openmp/ceilings.cpp
    return result;
  }

 private:
  Program build(bool is_double, const std::string& more_options = {}) const {
    return context_.build_program(kernel_source(source_path), real_option(is_double) + more_options, source_path);
  }

  // Streams doubles; float where the device has no fp64 (the same bytes either way).
  void measure_bandwidth(Ceilings& result, std::ostream& log) const {
    const bool is_double = info_.fp64;
    const std::size_t element = is_double ? sizeof(double) : sizeof(float);
    const std::uint64_t bytes = ceilings::stream_array_bytes(info_);
    const auto n = static_cast<cl_ulong>(bytes / element);
    result.array_bytes = bytes;

    const Program program = build(is_double);
    const Kernel init = program.kernel("stream_init");
    const Kernel copy = program.kernel("stream_copy");
    const Kernel triad = program.kernel("stream_triad");
    const Buffer a = context_.create_buffer(bytes);
    const Buffer b = context_.create_buffer(bytes);
    const Buffer c = context_.create_buffer(bytes);

    init.set_args(a, b, c, n);
    context_.launch(init, round_up(n, work_group_size(context_, init)), work_group_size(context_, init)).wait();
    copy.set_args(a, b, n);
    if (is_double)
      triad.set_args(a, b, c, ceilings::triad_scalar, n);
    else
      triad.set_args(a, b, c, static_cast<float>(ceilings::triad_scalar), n);

    const std::string arrays = " x " + std::to_string(bytes / ceilings::mib) + " MiB arrays";
    result.copy_gbps = best_bandwidth(copy, n, 2.0 * static_cast<double>(bytes));
    ceilings::log_line(log, info_, "copy", result.copy_gbps, "GB/s", "2" + arrays);
    result.triad_gbps = best_bandwidth(triad, n, 3.0 * static_cast<double>(bytes));
    ceilings::log_line(log, info_, "triad", result.triad_gbps, "GB/s", "3" + arrays);

    if (is_double)
      verify_stream<double>(a, b, n);
    else
      verify_stream<float>(a, b, n);
  }

  void measure_caches(Ceilings& result, std::ostream& log) const {
    const auto sets = ceilings::l2_working_sets(info_);
    const std::uint32_t groups = ceilings::cache_groups(info_);
    const std::uint64_t bytes = std::max<std::uint64_t>(sets.empty() ? 0 : sets.back(), 128 * ceilings::kib * groups);
    const Program program = build(false);
    const Kernel fill = program.kernel("fill_ones");
    const Kernel read = program.kernel("cache_read");
    if (const std::size_t most = work_group_size(context_, read); most < ceilings::cache_group_size) {
      log << "gpubench: ceilings " << info_.backend << ':' << info_.index << ": no cache levels: cache_read's work-groups "
          << "are at most " << most << " work-items here, the sweeps need " << ceilings::cache_group_size << "\n";
      return;
    }
    const Buffer a = context_.create_buffer(bytes);
    const std::size_t items = static_cast<std::size_t>(groups) * ceilings::cache_group_size;
    const Buffer out = context_.create_buffer(items * sizeof(float));
    const auto n = static_cast<cl_ulong>(bytes / sizeof(float));
    fill.set_args(a, n);
    context_.launch(fill, round_up(n, work_group_size(context_, fill)), work_group_size(context_, fill)).wait();
    const auto launch = [&](const ceilings::CacheLaunch& l) {
      read.set_args(a, static_cast<cl_uint>(l.slice), static_cast<cl_uint>(l.slices), static_cast<cl_uint>(l.rotate),
                    static_cast<cl_uint>(l.passes), out);
      return context_.launch(read, static_cast<std::size_t>(l.slices) * ceilings::cache_group_size,
                             ceilings::cache_group_size)
          .seconds();
    };
    const auto check_sums = [&](const ceilings::CacheLaunch& l) {
      std::vector<float> host(items);
      context_.read(out, host.data(), items * sizeof(float));
      for (const std::size_t item : {std::size_t{0}, items / 2 + 3, items - 1})
        ceilings::check_result(info_, "cache_read", "out[" + std::to_string(item) + "]", host[item], l.expected(item), 0);
    };
    ceilings::measure_cache_levels(result, info_, launch, check_sums, log);
  }

  // Warm-up, then the best of the timed launches (each by its profiling event), in GB/s.
  double best_bandwidth(const Kernel& kernel, std::size_t n, double bytes_moved) const {
    const std::size_t local = work_group_size(context_, kernel);
    const std::size_t global = round_up(n, local);
    return ceilings::best_bandwidth([&] { return context_.launch(kernel, global, local).seconds(); }, bytes_moved);
  }

  // Every element of b (copy) and a (triad), read back in pieces.
  template <typename T>
  void verify_stream(const Buffer& a, const Buffer& b, std::size_t n) const {
    constexpr std::size_t piece = (8 << 20) / sizeof(T);
    std::vector<T> host(std::min(piece, n));
    for (std::size_t first = 0; first < n; first += piece) {
      const std::size_t count = std::min(piece, n - first);
      context_.read(b, host.data(), count * sizeof(T), first * sizeof(T));
      for (std::size_t i = 0; i < count; ++i)
        if (static_cast<double>(host[i]) != ceilings::stream_b_after_copy(first + i))
          ceilings::check_result(info_, "stream_copy", "b[" + std::to_string(first + i) + "]",
                                 static_cast<double>(host[i]), ceilings::stream_b_after_copy(first + i), 0);
      context_.read(a, host.data(), count * sizeof(T), first * sizeof(T));
      for (std::size_t i = 0; i < count; ++i)
        if (static_cast<double>(host[i]) != ceilings::stream_a_after_triad(first + i))
          ceilings::check_result(info_, "stream_triad", "a[" + std::to_string(first + i) + "]",
                                 static_cast<double>(host[i]), ceilings::stream_a_after_triad(first + i), 0);
    }
  }

  // Lanes per work-item of fma_chains: 1 on a GPU; on a CPU two of its native vectors (the eight
  // chains then keep sixteen vector FMAs in flight), at most 16.
  template <typename T>
  cl_uint vector_width() const {
    if (info_.type == "gpu") return 1;
    const cl_device_info what =
        std::is_same_v<T, double> ? CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE : CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT;
    cl_uint native = 1;
    check(clGetDeviceInfo(context_.device(), what, sizeof native, &native, nullptr), "clGetDeviceInfo",
          "CL_DEVICE_NATIVE_VECTOR_WIDTH");
    cl_uint width = 1;
    while (width < 2 * native && width < 16) width *= 2;
    return width;
  }

  template <typename T>
  double measure_flops(std::ostream& log) const {
    constexpr bool is_double = std::is_same_v<T, double>;
    const char* name = is_double ? "f64" : "f32";
    const cl_uint width = vector_width<T>();
    const Program program = build(is_double, " -DWIDTH=" + std::to_string(width));
    const Kernel kernel = program.kernel("fma_chains");
    const std::size_t local = work_group_size(context_, kernel);
    // 2048 work-items per compute unit on a GPU; four work-groups per compute unit on a CPU,
    // which runs each work-group on one thread.
    const auto units = static_cast<std::size_t>(std::max(info_.compute_units, 1));
    const std::size_t work_items = info_.type == "gpu" ? round_up(units * 2048, local) : units * 4 * local;
    const std::size_t items = work_items * width;  // the host reference's items: lanes
    const Buffer out = context_.create_buffer(items * sizeof(T));

    auto launch = [&](std::uint32_t iterations) {
      kernel.set_args(static_cast<cl_uint>(iterations), static_cast<T>(ceilings::fma_a),
                      static_cast<T>(ceilings::fma_one_minus_a), out);
      return context_.launch(kernel, work_items, local);
    };
    const std::uint32_t iterations =
        ceilings::calibrate_iterations([&](std::uint32_t k) { return launch(k).seconds(); });
    std::vector<Event> events;
    for (int r = 0; r < 5; ++r) events.push_back(launch(iterations));
    double gflops = 0;
    for (const Event& e : events)
      if (e.seconds() > 0) gflops = std::max(gflops, ceilings::fma_flops(items, iterations) / e.seconds() * 1e-9);

    std::vector<T> host(items);
    context_.read(out, host.data(), items * sizeof(T));
    for (const std::size_t item : {std::size_t{0}, items / 2 + 1, items - 1})
      ceilings::check_result(info_, "fma_chains", std::string(name) + " out[" + std::to_string(item) + "]",
                             static_cast<double>(host[item]),
                             static_cast<double>(ceilings::fma_expected<T>(item, iterations)), is_double ? 1e-9 : 1e-3);

    const std::string shape = width == 1 ? std::to_string(items) + " work-items"
                                         : std::to_string(items) + " lanes (" + std::to_string(work_items) +
                                               " work-items x " + std::to_string(width) + ")";
    ceilings::log_line(log, info_, name, gflops, "GFLOP/s",
                       std::to_string(ceilings::fma_chains) + " FMA chains x " + shape + " x " +
                           std::to_string(iterations) + " iterations");
    return gflops;
  }

  Context context_;
  DeviceInfo info_;
};

Ceilings probe(const DeviceInfo& device, std::ostream& log) { return Probe(device.index).run(log); }

}  // namespace

}  // namespace gpubench::opencl

GPUBENCH_REGISTER_CEILING_PROBE("opencl", gpubench::opencl::probe);
