// The OpenMP ceiling probe: copy and triad bandwidth and f32/f64 FMA throughput of the host CPU,
// measured with OpenMP loops and omp_get_wtime (the loops are synchronous: the host clock times
// exactly them).
//
// The FMA chains run across independent lanes (#pragma omp simd) in every thread. The build
// targets the baseline ISA (x86-64: SSE2, no FMA), which would measure a fraction of the CPU's
// peak; on x86-64 the chains are therefore compiled three times, for AVX-512, AVX2 + FMA and the
// baseline, and the best the CPU runs is used, as a BLAS library would. PoCL compiles its kernels
// for the host CPU likewise, so the two probes see one ceiling (measured: 450 and 430 GFLOP/s f32,
// 224 and 224 f64, on a 2-core AVX-512 EPYC VM).
#ifndef _OPENMP
#error "backends/openmp/ceilings.cpp needs OpenMP (-fopenmp)"
#endif

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/ceilings.hpp"
#include "backends/ceilings_common.hpp"
#include "backends/openmp/huge_pages.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GPUBENCH_CEILINGS_X86 1
#endif

namespace gpubench::openmp {

namespace {

// ---------------------------------------------------------------------------------------------
// Bandwidth

double seconds_of(auto&& body) {
  const double start = omp_get_wtime();
  body();
  return omp_get_wtime() - start;
}

// Warm-up, then the best of the timed passes, in GB/s.
double best_bandwidth(auto&& pass, double bytes_moved) {
  return ceilings::best_bandwidth([&] { return seconds_of(pass); }, bytes_moved);
}

struct FreeMemory {
  void operator()(double* p) const noexcept { std::free(p); }
};
using HostArray = std::unique_ptr<double[], FreeMemory>;

// `bytes` of doubles, uninitialised, in transparent huge pages where the kernel gives them: the
// first touch of gigabytes in 4 KiB pages costs seconds (tens, measured, in a virtual machine).
HostArray allocate_array(std::size_t bytes) {
  try {
    return HostArray(static_cast<double*>(host_memory::allocate(bytes)));
  } catch (const std::bad_alloc&) {
    throw DeviceError("the bandwidth probe found no " + std::to_string(bytes) + " bytes of host memory");
  }
}

// The first i < n where values[i] != expected(i), or n.
template <typename Expected>
std::size_t first_mismatch(const double* values, std::size_t n, Expected expected) {
  std::size_t first = n;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (std::size_t i = 0; i < n; ++i)
    if (values[i] != expected(i) && i < first) first = i;
  return first;
}

void measure_bandwidth(const DeviceInfo& device, Ceilings& result, std::ostream& log) {
  const std::uint64_t bytes = ceilings::stream_array_bytes(device);
  const std::size_t n = bytes / sizeof(double);
  result.array_bytes = bytes;
  const HostArray a_owner = allocate_array(bytes);
  const HostArray b_owner = allocate_array(bytes);
  const HostArray c_owner = allocate_array(bytes);
  double* const __restrict a = a_owner.get();
  double* const __restrict b = b_owner.get();
  double* const __restrict c = c_owner.get();

  // First touch in the timed loops' schedule: each thread's pages where it will stream them.
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = ceilings::stream_a_initial(i);
    b[i] = ceilings::stream_b_initial;
    c[i] = ceilings::stream_c_initial(i);
  }

  const std::string arrays = " x " + std::to_string(bytes / ceilings::mib) + " MiB arrays";
  result.copy_gbps = best_bandwidth(
      [&] {
#pragma omp parallel for simd schedule(static)
        for (std::size_t i = 0; i < n; ++i) b[i] = a[i];
      },
      2.0 * static_cast<double>(bytes));
  ceilings::log_line(log, device, "copy", result.copy_gbps, "GB/s", "2" + arrays);

  constexpr double scalar = ceilings::triad_scalar;
  result.triad_gbps = best_bandwidth(
      [&] {
#pragma omp parallel for simd schedule(static)
        for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
      },
      3.0 * static_cast<double>(bytes));
  ceilings::log_line(log, device, "triad", result.triad_gbps, "GB/s", "3" + arrays);

  if (const std::size_t i = first_mismatch(b, n, ceilings::stream_b_after_copy); i < n)
    ceilings::check_result(device, "copy loop", "b[" + std::to_string(i) + "]", b[i],
                           ceilings::stream_b_after_copy(i), 0);
  if (const std::size_t i = first_mismatch(a, n, ceilings::stream_a_after_triad); i < n)
    ceilings::check_result(device, "triad loop", "a[" + std::to_string(i) + "]", a[i],
                           ceilings::stream_a_after_triad(i), 0);
}

// ---------------------------------------------------------------------------------------------
// FMA chains

// Lanes per item: two 512-bit vectors (sixteen vector FMAs in flight over the eight chains; one
// vector per chain leaves AVX-512 half idle). Each lane is an item of the host reference.
template <typename T>
constexpr int lanes = static_cast<int>(128 / sizeof(T));

// One item: the eight chains of ceilings_common.hpp over lanes<T> lanes, the lanes innermost so
// that each step is one vector operation per chain and register width.
template <typename T, bool Fused>
[[gnu::always_inline]] inline void chains(T* __restrict out, std::uint64_t first_item, std::uint32_t iterations,
                                          T a, T one_minus_a) {
  constexpr int n = lanes<T>;
  T b[n], x0[n], x1[n], x2[n], x3[n], x4[n], x5[n], x6[n], x7[n];
#pragma omp simd
  for (int l = 0; l < n; ++l) {
    const T p = T(1) + static_cast<T>((first_item + static_cast<std::uint64_t>(l)) & 255) / T(256);
    b[l] = one_minus_a * p;
    x0[l] = p + T(0.125);
    x1[l] = p + T(0.25);
    x2[l] = p + T(0.375);
    x3[l] = p + T(0.5);
    x4[l] = p + T(0.625);
    x5[l] = p + T(0.75);
    x6[l] = p + T(0.875);
    x7[l] = p + T(1);
  }
  for (std::uint32_t k = 0; k < iterations; ++k) {
#pragma omp simd
    for (int l = 0; l < n; ++l) {
      if constexpr (Fused) {
        x0[l] = std::fma(x0[l], a, b[l]);
        x1[l] = std::fma(x1[l], a, b[l]);
        x2[l] = std::fma(x2[l], a, b[l]);
        x3[l] = std::fma(x3[l], a, b[l]);
        x4[l] = std::fma(x4[l], a, b[l]);
        x5[l] = std::fma(x5[l], a, b[l]);
        x6[l] = std::fma(x6[l], a, b[l]);
        x7[l] = std::fma(x7[l], a, b[l]);
      } else {
        x0[l] = x0[l] * a + b[l];
        x1[l] = x1[l] * a + b[l];
        x2[l] = x2[l] * a + b[l];
        x3[l] = x3[l] * a + b[l];
        x4[l] = x4[l] * a + b[l];
        x5[l] = x5[l] * a + b[l];
        x6[l] = x6[l] * a + b[l];
        x7[l] = x7[l] * a + b[l];
      }
    }
  }
#pragma omp simd
  for (int l = 0; l < n; ++l) out[l] = ((x0[l] + x1[l]) + (x2[l] + x3[l])) + ((x4[l] + x5[l]) + (x6[l] + x7[l]));
}

// One item compiled for each ISA. The threads are started outside these (an OpenMP region is
// outlined before inlining, so it would not take the ISA of a function it sits in).
template <typename T>
void item_baseline(T* out, std::uint64_t first_item, std::uint32_t iterations, T a, T one_minus_a) {
#ifdef GPUBENCH_CEILINGS_X86
  chains<T, false>(out, first_item, iterations, a, one_minus_a);  // no FMA in x86-64's baseline
#else
  chains<T, true>(out, first_item, iterations, a, one_minus_a);  // FMA is baseline on aarch64, ppc64le
#endif
}

#ifdef GPUBENCH_CEILINGS_X86
template <typename T>
[[gnu::target("avx2,fma")]] void item_avx2(T* out, std::uint64_t first_item, std::uint32_t iterations, T a,
                                           T one_minus_a) {
  chains<T, true>(out, first_item, iterations, a, one_minus_a);
}

template <typename T>
[[gnu::target("avx512f,avx512vl,fma,prefer-vector-width=512")]] void item_avx512(T* out, std::uint64_t first_item,
                                                                         std::uint32_t iterations, T a,
                                                                         T one_minus_a) {
  chains<T, true>(out, first_item, iterations, a, one_minus_a);
}
#endif

template <typename T>
struct ChainsVariant {
  const char* isa;
  bool fused;  // one FMA per step, or a multiply and an add
  void (*item)(T* out, std::uint64_t first_item, std::uint32_t iterations, T a, T one_minus_a);
};

// The widest the CPU runs.
template <typename T>
ChainsVariant<T> best_variant() {
#ifdef GPUBENCH_CEILINGS_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma"))
    return {"AVX-512", true, item_avx512<T>};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {"AVX2", true, item_avx2<T>};
  return {"SSE2", false, item_baseline<T>};
#else
  return {"baseline ISA", true, item_baseline<T>};
#endif
}

// All items, `items` x `lanes` outputs, over the threads, handed out one at a time: a thread that
// runs slower (sharing its core, or its vCPU preempted) takes fewer, so the region ends when the
// CPU's work is done, not when its slowest thread is.
template <typename T>
void run_chains(const ChainsVariant<T>& variant, T* out, std::size_t items, std::uint32_t iterations) {
  const T a = static_cast<T>(ceilings::fma_a);
  const T one_minus_a = static_cast<T>(ceilings::fma_one_minus_a);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t item = 0; item < items; ++item)
    variant.item(out + item * lanes<T>, item * lanes<T>, iterations, a, one_minus_a);
}

template <typename T>
double measure_flops(const DeviceInfo& device, std::ostream& log) {
  constexpr bool is_double = std::is_same_v<T, double>;
  const char* name = is_double ? "f64" : "f32";
  const ChainsVariant<T> variant = best_variant<T>();
  const std::size_t items = static_cast<std::size_t>(std::max(omp_get_max_threads(), 1)) * 256;
  const std::size_t work_items = items * lanes<T>;
  std::vector<T> out(work_items);

  auto launch = [&](std::uint32_t iterations) {
    return seconds_of([&] { run_chains<T>(variant, out.data(), items, iterations); });
  };
  // Launches of 0.1 s (not a GPU's 8 ms): a host's threads start and meet in tens of microseconds,
  // and a short region loses a larger share to one late thread. On the GPU machine's 16-vCPU Xeon
  // the probe at 8 ms with 32 items a thread read 661 GFLOP/s f64 (2026-11-23), below OpenBLAS's
  // DGEMM then (689); this one's trials read 834-1016 there (2026-11-27; OpenBLAS: 543).
  const std::uint32_t iterations = ceilings::calibrate_iterations(launch, 0.1);
  double gflops = 0;
  for (int r = 0; r < 5; ++r) {
    const double seconds = launch(iterations);
    if (seconds > 0) gflops = std::max(gflops, ceilings::fma_flops(work_items, iterations) / seconds * 1e-9);
  }

  for (const std::size_t item : {std::size_t{0}, work_items / 2 + 1, work_items - 1})
    ceilings::check_result(device, std::string("fma chains (") + variant.isa + ")",
                           std::string(name) + " out[" + std::to_string(item) + "]", static_cast<double>(out[item]),
                           static_cast<double>(ceilings::fma_expected<T>(item, iterations, variant.fused)),
                           is_double ? 1e-9 : 1e-3);

  ceilings::log_line(log, device, name, gflops, "GFLOP/s",
                     std::to_string(ceilings::fma_chains) + " FMA chains x " + std::to_string(work_items) +
                         " lanes x " + std::to_string(iterations) + " iterations, " + variant.isa + ", " +
                         std::to_string(omp_get_max_threads()) + " threads");
  return gflops;
}

Ceilings probe(const DeviceInfo& device, std::ostream& log) {
  Ceilings result;
  result.backend = "openmp";
  // FLOP/s first: releasing the bandwidth arrays (gigabytes) keeps the kernel busy for a while
  // on some machines (virtual ones returning the pages to their host), slowing what follows.
  result.f32_gflops = measure_flops<float>(device, log);
  if (device.fp64) result.f64_gflops = measure_flops<double>(device, log);
  measure_bandwidth(device, result, log);
  return result;
}

}  // namespace

}  // namespace gpubench::openmp

GPUBENCH_REGISTER_CEILING_PROBE("openmp", gpubench::openmp::probe);
