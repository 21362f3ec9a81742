// The widest x86 vector instruction set this CPU runs. The build targets x86-64's baseline (SSE2),
// so host code that wants wider vectors picks its kernels when it runs (the host GEMM's
// micro-kernel), and a library's kernels are judged against it (host_blas.hpp).
#pragma once

#include <array>

namespace gpubench {

// Narrowest first; unknown on other architectures. avx2 and avx512 count with FMA.
enum class HostIsa : int { unknown = -1, sse2, sse3, sse4, avx, avx2, avx512 };
inline constexpr std::array<const char*, 6> host_isa_names = {"SSE2", "SSE3", "SSE4", "AVX", "AVX2", "AVX-512"};

inline HostIsa host_isa() {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_cpu_init();
  const bool fma = __builtin_cpu_supports("fma");
  if (__builtin_cpu_supports("avx512f") && fma) return HostIsa::avx512;
  if (__builtin_cpu_supports("avx2") && fma) return HostIsa::avx2;
  if (__builtin_cpu_supports("avx")) return HostIsa::avx;
  if (__builtin_cpu_supports("sse4.1") || __builtin_cpu_supports("ssse3")) return HostIsa::sse4;
  if (__builtin_cpu_supports("sse3")) return HostIsa::sse3;
  return HostIsa::sse2;
#else
  return HostIsa::unknown;
#endif
}

}  // namespace gpubench
