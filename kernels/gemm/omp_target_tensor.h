// GEMM's tensor variant on Clang's OpenMP offload (the kernel: omp_target_tensor.cpp), f64 on the FP64 tensor cores of an NVIDIA GPU of
// compute capability 9.0 (kernels/gemm/omp_target.cpp; LU's trailing updates on a GPU take it too):
// C = alpha A B + beta C, column-major, A(i, l) at a[i + l lda] and B(l, j) at b[l + j ldb] (or at
// b[j + l ldb], B transposed: BT). OpenMP has no construct for tensor cores, but Clang compiles
// inline PTX in a target region as CUDA does, so this is CUDA's tensor kernel (tensor.h) written
// in OpenMP: a team of 32 wm wn threads (a `parallel` region tightly nested in `target teams`,
// which Clang runs in SPMD mode: an OpenMP thread per CUDA thread, a team per block) holds a bm x bn
// block of C, each warp a (bm/wm) x (bn/wn) tile of mma.sync.m16n8k16 f64; slices of 16 along K go
// through team memory (`omp allocate` with omp_pteam_mem_alloc: CUDA's shared memory) in a
// `stages`-deep cp.async pipeline, `omp barrier` between slices (bar.sync). What CUDA's kernel has
// and this one lacks: 16-byte copies, split K, and blocks above 64 x 64 -- LLVM 19's CUDA plugin
// never opts a kernel into more than the 48 KB of static shared memory (it calls no
// cuFuncSetAttribute), where CUDA's 128 x 128 blocks take up to 227 KB. On the host (the initial
// device) there are no tensor cores: the region says so and computes nothing (the suite refuses
// the variant there). Shared rows padded by 4 doubles: the fragment loads of a half-warp hit 16
// distinct 8-byte banks. Fragments of m16n8k16 (g = lane / 4, t = lane % 4): a[u] = A(g + 8 (u %
// 2), t + 4 (u / 2)), b[u] = B(t + 4 u, g), c[e] = C(g + 8 (e / 2), 2 t + e % 2).
//
// The kernel is built into a device image of its own (backends/omp_target_clang/backend.cmake:
// libgpubench_omp_tensor.so, which the module links), not into the module's: Clang's runtime
// JIT-compiles a module's whole image as one program, and with these kernels in it LLVM 19
// compiled EP's 12-variable reduction region differently (102 registers and 432 bytes of stack
// against 92 and 48) and wrongly: on the H200 its sy came out 37% off, every run, at 528, 924 and
// 1056 teams, where the image without them verifies (reports/data/h200-2026-12-02-late-issue57).
#pragma once

#include <cstdint>

namespace gpubench::gemm::omp_tensor {

// Why it lags CUDA's tensor kernel, for the records' gap causes (GEMM's and LU's): the toolchain's
// limit, and what gpubench has not written.
inline const char* team_memory_gap =
    "blocks of C of at most 64 x 64 in 48 KB of team memory: LLVM 19's CUDA plugin never raises a kernel's shared "
    "memory past the static 48 KB (it calls no cuFuncSetAttribute, so ompx_dyn_cgroup_mem cannot pass it), where "
    "CUDA's tensor kernel takes 128 x 128 blocks in up to 227 KB";
inline const char* own_gap = "8-byte cp.async copies (CUDA's kernel: 16-byte), no split K for shapes of few blocks";

struct Shape {
  int bm = 64, bn = 64, wm = 2, wn = 2, stages = 2;
};

// The shape a launch's parameters name (bm bn wm wn stages; the tensor variant's names on CUDA),
// the heuristic's for those it lacks (kernels/gemm/suite.cpp: omp_tensor_heuristic).
template <typename Params>
Shape shape_of(const Params& params) {
  const auto get = [&](const char* name, int fallback) {
    const auto it = params.find(name);
    return it == params.end() ? fallback : static_cast<int>(it->second);
  };
  return {get("bm", 64), get("bn", 64), get("wm", 2), get("wn", 2), get("stages", 2)};
}

// Team memory a configuration takes (the space's constraint: at most 48 KB, less the runtime's).
constexpr int team_bytes(const Shape& s, bool bt) {
  constexpr int bk = 16;  // the slices' depth (omp_target_tensor.cpp)
  return s.stages * (bk * (s.bm + 4) + (bt ? bk * (s.bn + 4) : s.bn * (bk + 4))) * 8;
}

// The configurations built (the space's values): 64 x 64 blocks of 4 or 8 warps in two stages,
// 32 x 64 and 64 x 32 ones of 4 warps in three. status: null, or a device pointer to an int that
// is left as it is where the region ran on the GPU with its threads, else set to 1 (it ran on the
// host) or 2 (with fewer threads than its warps need).
void dispatch(int dev, const Shape& s, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a,
              std::int64_t lda, const double* b, std::int64_t ldb, bool bt, double beta, double* c, std::int64_t ldc,
              int* status);

}  // namespace gpubench::gemm::omp_tensor
