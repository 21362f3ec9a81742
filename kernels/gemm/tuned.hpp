// The tuned kernel's configurations (kernels/gemm/tuned_body.h): block tile BM x BN, step BK along
// K, per-item tile TM x TN, vector width VW of the global loads. The work-group is
// (BN/TN) x (BM/TM) items, laid out 1-D. Plain C++, included by the suite and by cuda.cu, which
// compiles the configurations listed here (CUDA has no run-time compiler in this build; OpenCL
// builds any legal configuration when it is first used).
#pragma once

#include <cstddef>

namespace gpubench::gemm {

struct TunedConfig {
  int bm, bn, bk, tm, tn, vw;
  constexpr int threads() const { return (bm / tm) * (bn / tn); }
  // Local memory of the kernel: two slices of A and two of B.
  constexpr std::size_t local_bytes(std::size_t element) const {
    return 2 * static_cast<std::size_t>(bk) * (static_cast<std::size_t>(bm) + static_cast<std::size_t>(bn)) * element;
  }
  // Every item loads whole vectors, as many of A's slice as of every other item, and of B's.
  constexpr bool whole_vectors() const {
    const int per = vw * threads();
    return bk % vw == 0 && bm % vw == 0 && bn % vw == 0 && (bm * bk) % per == 0 && (bk * bn) % per == 0 &&
           bm * bk >= per && bk * bn >= per;
  }
  constexpr bool operator==(const TunedConfig&) const = default;
};

// The configurations cuda.cu instantiates, for each precision where they are legal (a vector
// load of 16 bytes at most, 48 KB of static shared memory at most). X(bm, bn, bk, tm, tn, vw).
#define GPUBENCH_GEMM_CUDA_TUNED(X) \
  X(128, 128, 8, 8, 8, 4)           \
  X(128, 128, 8, 8, 8, 2)           \
  X(128, 128, 8, 8, 8, 1)           \
  X(128, 128, 16, 8, 8, 4)          \
  X(128, 128, 16, 8, 8, 2)          \
  X(128, 128, 32, 8, 8, 4)          \
  X(128, 64, 8, 8, 8, 4)            \
  X(64, 128, 8, 8, 8, 4)            \
  X(128, 64, 16, 8, 8, 2)           \
  X(64, 128, 16, 8, 8, 2)           \
  X(128, 64, 32, 8, 8, 4)           \
  X(64, 64, 8, 8, 8, 4)             \
  X(64, 64, 16, 4, 4, 4)            \
  X(64, 64, 8, 4, 4, 2)             \
  X(128, 128, 16, 8, 4, 4)          \
  X(128, 128, 16, 4, 8, 4)          \
  X(256, 128, 8, 8, 8, 2)           \
  X(128, 256, 8, 8, 8, 2)           \
  X(128, 64, 8, 8, 8, 2)            \
  X(64, 128, 8, 8, 8, 2)            \
  X(128, 128, 8, 8, 4, 2)           \
  X(128, 128, 8, 4, 8, 2)           \
  X(64, 64, 8, 8, 8, 2)             \
  X(32, 32, 8, 4, 4, 1)             \
  X(32, 64, 16, 4, 4, 2)

constexpr std::size_t cuda_static_shared_limit = 48 * 1024;

// Whether cuda.cu compiles `c` for elements of `element` bytes.
constexpr bool cuda_compiles(const TunedConfig& c, std::size_t element) {
  return c.whole_vectors() && static_cast<std::size_t>(c.vw) * element <= 16 &&
         c.local_bytes(element) <= cuda_static_shared_limit;
}

}  // namespace gpubench::gemm
