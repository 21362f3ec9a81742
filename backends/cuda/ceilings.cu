// The CUDA ceiling probe: copy and triad bandwidth and f32/f64 FMA throughput, measured with the
// kernels below (the same as backends/opencl/ceilings.cl, values from backends/ceilings_common.hpp),
// and the tensor cores' peaks (mma.sync chains: CUDA's alone), timed with CUDA events on one stream.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/ceilings.hpp"
#include "backends/ceilings_common.hpp"
#include "backends/cuda/cuda.hpp"

namespace gpubench::cuda {

namespace {

constexpr unsigned block_size = 256;

namespace kernels {

// One thread per element; n < 2^32 (arrays are at most a quarter of the device's memory).
__global__ void stream_init(double* __restrict__ a, double* __restrict__ b, double* __restrict__ c, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  a[i] = ceilings::stream_a_initial(i);
  b[i] = ceilings::stream_b_initial;
  c[i] = ceilings::stream_c_initial(i);
}

__global__ void stream_copy(const double* __restrict__ a, double* __restrict__ b, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}

__global__ void stream_triad(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                             double scalar, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + scalar * c[i];
}

// Eight independent dependent chains x = fma(x, a, b); a and one_minus_a are arguments, so the
// recurrence cannot be folded, and the sum is stored, so none of it can be left out.
template <typename T>
__global__ void fma_chains(unsigned iterations, T a, T one_minus_a, T* __restrict__ out) {
  const std::size_t item = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const T b = one_minus_a * static_cast<T>(ceilings::fma_target(item));
  auto start = [item](int chain) { return static_cast<T>(ceilings::fma_start(item, chain)); };
  T x0 = start(0), x1 = start(1), x2 = start(2), x3 = start(3), x4 = start(4), x5 = start(5), x6 = start(6),
    x7 = start(7);
  for (unsigned k = 0; k < iterations; ++k) {
    x0 = fma(x0, a, b);
    x1 = fma(x1, a, b);
    x2 = fma(x2, a, b);
    x3 = fma(x3, a, b);
    x4 = fma(x4, a, b);
    x5 = fma(x5, a, b);
    x6 = fma(x6, a, b);
    x7 = fma(x7, a, b);
  }
  out[item] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
}

// The working-set sweeps' reader (backends/ceilings_common.hpp, measure_cache_levels): in pass p,
// block b adds up slice (b + p rotate) mod slices (rotate < slices: the slice steps without a
// division). No __restrict__: the loads stay loads.
__global__ void cache_read(const float4* a, unsigned slice, unsigned slices, unsigned rotate, unsigned passes,
                           float* out) {
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  unsigned s = blockIdx.x % slices;
  for (unsigned p = 0; p < passes; ++p) {
    const float4* part = a + static_cast<std::size_t>(s) * slice;
    s += rotate;
    if (s >= slices) s -= slices;
#pragma unroll 4
    for (unsigned i = threadIdx.x; i < slice; i += blockDim.x) {
      const float4 v = part[i];
      acc.x += v.x;
      acc.y += v.y;
      acc.z += v.z;
      acc.w += v.w;
    }
  }
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = (acc.x + acc.y) + (acc.z + acc.w);
}

__global__ void fill_ones(float* a, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 1.0f;
}

// The tensor cores' peaks (Ceilings::unit_gflops): every warp runs tensor_chains independent
// accumulators through `iterations` mma.sync of one instruction, every operand element `a` or `b`
// (2^-4 in the operand's type, as bits for the 32-bit operand registers), so that each element of
// an accumulator ends at iterations x k x a x b, exact in its type. Thread t writes its first
// accumulator's first element to out[t].
constexpr int tensor_chains = 4;
enum class TensorOp { f64_m16n8k16, f64_m8n8k4, tf32_m16n8k8, f16_m16n8k16, bf16_m16n8k16 };

template <TensorOp Op>
__global__ void mma_chains(unsigned iterations, double a64, double b64, unsigned a32, unsigned b32, double* out) {
  double first = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (Op == TensorOp::f64_m16n8k16) {
#if __CUDA_ARCH__ >= 900
    double d[tensor_chains][4] = {};
    for (unsigned i = 0; i < iterations; ++i)
#pragma unroll
      for (int c = 0; c < tensor_chains; ++c)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %4, %4, %4, %4, %4, %4, %4}, "
            "{%5, %5, %5, %5}, {%0, %1, %2, %3};\n"
            : "+d"(d[c][0]), "+d"(d[c][1]), "+d"(d[c][2]), "+d"(d[c][3])
            : "d"(a64), "d"(b64));
    first = d[0][0] + 0 * (d[1][1] + d[2][2] + d[3][3]);
#endif
  } else if constexpr (Op == TensorOp::f64_m8n8k4) {
    double d[tensor_chains][2] = {};
    for (unsigned i = 0; i < iterations; ++i)
#pragma unroll
      for (int c = 0; c < tensor_chains; ++c)
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                     : "+d"(d[c][0]), "+d"(d[c][1])
                     : "d"(a64), "d"(b64));
    first = d[0][0] + 0 * (d[1][1] + d[2][0] + d[3][1]);
  } else {
    float d[tensor_chains][4] = {};
    for (unsigned i = 0; i < iterations; ++i)
#pragma unroll
      for (int c = 0; c < tensor_chains; ++c) {
        if constexpr (Op == TensorOp::tf32_m16n8k8)
          asm volatile(
              "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%5, %5}, "
              "{%0, %1, %2, %3};\n"
              : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
              : "r"(a32), "r"(b32));
        else if constexpr (Op == TensorOp::f16_m16n8k16)
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%5, %5}, "
              "{%0, %1, %2, %3};\n"
              : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
              : "r"(a32), "r"(b32));
        else
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%5, %5}, "
              "{%0, %1, %2, %3};\n"
              : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
              : "r"(a32), "r"(b32));
      }
    first = d[0][0] + 0.0f * (d[1][1] + d[2][2] + d[3][3]);
  }
#endif
  out[blockIdx.x * blockDim.x + threadIdx.x] = first;
}

}  // namespace kernels

unsigned grid_for(std::size_t n) { return static_cast<unsigned>((n + block_size - 1) / block_size); }

class Probe {
 public:
  explicit Probe(int index) : info_(open_device(index)) {}

  Ceilings run(std::ostream& log) {
    Ceilings result;
    result.backend = "cuda";
    result.f32_gflops = measure_flops<float>(log);
    if (info_.fp64) result.f64_gflops = measure_flops<double>(log);
    if (info_.type == "gpu") measure_caches(result, log);
    if (info_.type == "gpu") measure_tensor_cores(result, log);
    measure_bandwidth(result, log);  // last on every API: see backends/openmp/ceilings.cpp
    return result;
  }

 private:
  // Seconds of what `launch` enqueues on the stream, between two events.
  template <typename Launch>
  double timed(Launch&& launch) const {
    start_.record(stream_);
    launch();
    end_.record(stream_);
    end_.synchronize();
    return Event::seconds_between(start_, end_);
  }

  // Warm-up, then the best of the timed launches, in GB/s.
  template <typename Launch>
  double best_bandwidth(Launch&& launch, double bytes_moved) const {
    return ceilings::best_bandwidth([&] { return timed(launch); }, bytes_moved);
  }

  void measure_bandwidth(Ceilings& result, std::ostream& log) const {
    const std::uint64_t bytes = ceilings::stream_array_bytes(info_);
    const std::size_t n = bytes / sizeof(double);
    result.array_bytes = bytes;
    DeviceBuffer<double> a(n), b(n), c(n);
    const unsigned grid = grid_for(n);

    kernels::stream_init<<<grid, block_size, 0, stream_.get()>>>(a.data(), b.data(), c.data(), n);
    check_launch("stream_init", grid, block_size);
    const std::string arrays = " x " + std::to_string(bytes / ceilings::mib) + " MiB arrays";
    result.copy_gbps = best_bandwidth(
        [&] {
          kernels::stream_copy<<<grid, block_size, 0, stream_.get()>>>(a.data(), b.data(), n);
          check_launch("stream_copy", grid, block_size);
        },
        2.0 * static_cast<double>(bytes));
    ceilings::log_line(log, info_, "copy", result.copy_gbps, "GB/s", "2" + arrays);
    result.triad_gbps = best_bandwidth(
        [&] {
          kernels::stream_triad<<<grid, block_size, 0, stream_.get()>>>(a.data(), b.data(), c.data(),
                                                                       ceilings::triad_scalar, n);
          check_launch("stream_triad", grid, block_size);
        },
        3.0 * static_cast<double>(bytes));
    ceilings::log_line(log, info_, "triad", result.triad_gbps, "GB/s", "3" + arrays);

    verify(b, "stream_copy", "b", ceilings::stream_b_after_copy);
    verify(a, "stream_triad", "a", ceilings::stream_a_after_triad);
  }

  void measure_caches(Ceilings& result, std::ostream& log) const {
    const auto sets = ceilings::l2_working_sets(info_);
    const std::size_t n = std::max<std::uint64_t>(sets.empty() ? 0 : sets.back(), 128 * ceilings::kib * ceilings::cache_groups(info_)) / sizeof(float);
    DeviceBuffer<float> a(n);
    const unsigned groups = ceilings::cache_groups(info_);
    DeviceBuffer<float> out(static_cast<std::size_t>(groups) * ceilings::cache_group_size);
    kernels::fill_ones<<<grid_for(n), block_size, 0, stream_.get()>>>(a.data(), n);
    check_launch("fill_ones", grid_for(n), block_size);
    const auto launch = [&](const ceilings::CacheLaunch& l) {
      return timed([&] {
        kernels::cache_read<<<l.slices, ceilings::cache_group_size, 0, stream_.get()>>>(
            reinterpret_cast<const float4*>(a.data()), l.slice, l.slices, l.rotate, l.passes, out.data());
        check_launch("cache_read", l.slices, ceilings::cache_group_size);
      });
    };
    const auto check_sums = [&](const ceilings::CacheLaunch& l) {
      std::vector<float> host(out.size());
      check(cudaMemcpyAsync(host.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost, stream_.get()),
            "cudaMemcpyAsync", "(reading back cache_read's sums)");
      stream_.synchronize();
      for (const std::size_t item : {std::size_t{0}, host.size() / 2 + 3, host.size() - 1})
        ceilings::check_result(info_, "cache_read", "out[" + std::to_string(item) + "]", host[item], l.expected(item), 0);
    };
    ceilings::measure_cache_levels(result, info_, launch, check_sums, log);
  }

  // Every element, read back in pieces.
  void verify(const DeviceBuffer<double>& values, const char* kernel, const char* array,
              double (*expected)(std::uint64_t)) const {
    constexpr std::size_t piece = (8 << 20) / sizeof(double);
    std::vector<double> host(std::min(piece, values.size()));
    for (std::size_t first = 0; first < values.size(); first += piece) {
      const std::size_t count = std::min(piece, values.size() - first);
      check(cudaMemcpyAsync(host.data(), values.data() + first, count * sizeof(double), cudaMemcpyDeviceToHost,
                            stream_.get()),
            "cudaMemcpyAsync", std::string("(reading back the probe's ") + array + ")");
      stream_.synchronize();
      for (std::size_t i = 0; i < count; ++i)
        if (host[i] != expected(first + i))
          ceilings::check_result(info_, kernel, std::string(array) + "[" + std::to_string(first + i) + "]", host[i],
                                 expected(first + i), 0);
    }
  }

  template <typename T>
  double measure_flops(std::ostream& log) const {
    constexpr bool is_double = std::is_same_v<T, double>;
    const char* name = is_double ? "f64" : "f32";
    const std::size_t items = static_cast<std::size_t>(std::max(info_.compute_units, 1)) * 2048;
    const unsigned grid = grid_for(items);
    DeviceBuffer<T> out(static_cast<std::size_t>(grid) * block_size);
    const auto a = static_cast<T>(ceilings::fma_a);
    const auto one_minus_a = static_cast<T>(ceilings::fma_one_minus_a);

    auto launch = [&](std::uint32_t iterations) {
      return timed([&] {
        kernels::fma_chains<T><<<grid, block_size, 0, stream_.get()>>>(iterations, a, one_minus_a, out.data());
        check_launch(is_double ? "fma_chains<double>" : "fma_chains<float>", grid, block_size);
      });
    };
    const std::uint32_t iterations = ceilings::calibrate_iterations(launch);
    const std::size_t threads = out.size();
    double gflops = 0;
    for (int r = 0; r < 5; ++r) {
      const double seconds = launch(iterations);
      if (seconds > 0) gflops = std::max(gflops, ceilings::fma_flops(threads, iterations) / seconds * 1e-9);
    }

    std::vector<T> host(threads);
    check(cudaMemcpyAsync(host.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost, stream_.get()),
          "cudaMemcpyAsync", "(reading back fma_chains' results)");
    stream_.synchronize();
    for (const std::size_t item : {std::size_t{0}, threads / 2 + 1, threads - 1})
      ceilings::check_result(info_, is_double ? "fma_chains<double>" : "fma_chains<float>",
                             std::string(name) + " out[" + std::to_string(item) + "]", static_cast<double>(host[item]),
                             static_cast<double>(ceilings::fma_expected<T>(item, iterations)), is_double ? 1e-9 : 1e-3);

    ceilings::log_line(log, info_, name, gflops, "GFLOP/s",
                       std::to_string(ceilings::fma_chains) + " FMA chains x " + std::to_string(threads) +
                           " threads x " + std::to_string(iterations) + " iterations");
    return gflops;
  }

  // Each tensor-core unit of the device (compute capability 8.0 and later: FP64 m8n8k4, TF32, FP16
  // and BF16 with FP32 accumulation; 9.0 adds FP64 m16n8k16, which runs Hopper's FP64 rate) through
  // mma_chains: the best of five timed launches after calibration, checked against the exact sum.
  void measure_tensor_cores(Ceilings& result, std::ostream& log) const {
    int major = 0;
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, info_.index), "cudaDeviceGetAttribute",
          "(the compute capability, for the tensor-core probe)");
    if (major < 8) return;
    // Each unit's chain kernel, named, with its operand: 2^-4 in each operand type (double; the
    // 32-bit registers of tf32 (a float's bits), of two f16 (0x2C00) and of two bf16 (0x3D80)).
    using Chains = void (*)(unsigned, double, double, unsigned, unsigned, double*);
    struct Unit {
      Chains chains;
      const char* unit;         // Ceilings::unit_gflops' name
      const char* instruction;  // for the log and the errors
      int k;                    // the instruction's k: each accumulator element gains k a b
      bool needs_sm90;
      unsigned bits;            // the 32-bit operand (0: the f64 ones take a64)
      double flops;             // a warp's instruction: 2 m n k
    };
    using kernels::mma_chains;
    using kernels::TensorOp;
    const Unit units[] = {
        {mma_chains<TensorOp::f64_m16n8k16>, "f64 tensor", "mma.sync m16n8k16 f64", 16, true, 0, 2.0 * 16 * 8 * 16},
        {mma_chains<TensorOp::f64_m8n8k4>, "f64 tensor", "mma.sync m8n8k4 f64", 4, false, 0, 2.0 * 8 * 8 * 4},
        {mma_chains<TensorOp::tf32_m16n8k8>, "tf32 tensor", "mma.sync m16n8k8 tf32 (f32 accumulation)", 8, false,
         0x3D800000u, 2.0 * 16 * 8 * 8},
        {mma_chains<TensorOp::f16_m16n8k16>, "f16 tensor", "mma.sync m16n8k16 f16 (f32 accumulation)", 16, false,
         0x2C002C00u, 2.0 * 16 * 8 * 16},
        {mma_chains<TensorOp::bf16_m16n8k16>, "bf16 tensor", "mma.sync m16n8k16 bf16 (f32 accumulation)", 16, false,
         0x3D803D80u, 2.0 * 16 * 8 * 16},
    };
    constexpr double a64 = 0.0625;
    const unsigned grid = static_cast<unsigned>(std::max(info_.compute_units, 1)) * 4;
    DeviceBuffer<double> out(static_cast<std::size_t>(grid) * block_size);
    const double warps = static_cast<double>(out.size()) / 32;
    for (const Unit& unit : units) {
      if (unit.needs_sm90 && major < 9) continue;
      auto launch = [&](std::uint32_t iterations) {
        return timed([&] {
          unit.chains<<<grid, block_size, 0, stream_.get()>>>(iterations, a64, a64, unit.bits, unit.bits, out.data());
          check_launch(unit.instruction, grid, block_size);
        });
      };
      const std::uint32_t iterations = ceilings::calibrate_iterations(launch);
      double gflops = 0;
      for (int r = 0; r < 5; ++r) {
        const double seconds = launch(iterations);
        if (seconds > 0)
          gflops = std::max(gflops, warps * kernels::tensor_chains * iterations * unit.flops / seconds * 1e-9);
      }
      std::vector<double> host(out.size());
      check(cudaMemcpyAsync(host.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost, stream_.get()),
            "cudaMemcpyAsync", "(reading back mma_chains' results)");
      stream_.synchronize();
      const double expected = static_cast<double>(iterations) * unit.k * a64 * a64;
      for (const std::size_t item : {std::size_t{0}, host.size() / 2 + 5, host.size() - 1})
        ceilings::check_result(info_, std::string("mma_chains (") + unit.instruction + ")",
                               "out[" + std::to_string(item) + "]", host[item], expected, 1e-6);
      ceilings::log_line(log, info_, unit.unit, gflops, "GFLOP/s",
                         std::string(unit.instruction) + ", " + std::to_string(kernels::tensor_chains) +
                             " chains x " + std::to_string(static_cast<long>(warps)) + " warps x " +
                             std::to_string(iterations) + " iterations");
      double& best = result.unit_gflops[unit.unit];
      best = std::max(best, gflops);
    }
  }

  DeviceInfo info_;
  Stream stream_;
  Event start_, end_;
};

Ceilings probe(const DeviceInfo& device, std::ostream& log) { return Probe(device.index).run(log); }

}  // namespace

}  // namespace gpubench::cuda

GPUBENCH_REGISTER_CEILING_PROBE("cuda", gpubench::cuda::probe);
