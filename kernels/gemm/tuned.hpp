// The tuned kernel's configurations (kernels/gemm/tuned_body.h): block tile BM x BN, step BK along
// K, per-item tile TM x TN, vector width VW of the global loads. The work-group is
// (BN/TN) x (BM/TM) items, laid out 1-D. Plain C++, included by the suite and the backends, which
// build any legal configuration when it is first used (OpenCL's compiler, NVRTC).
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

}  // namespace gpubench::gemm
