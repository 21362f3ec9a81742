// The GEMM suite's host kernels (issue 13), for the openmp backend: the study's naive triple loop
// and its cache-tiled loop (square tiles of C, the k loop in tiles of the same size), each in
// parallel over rows of C with OpenMP or on one host thread (the study's serial column). Any
// shape: the last tiles are cut to the matrix. C = alpha A B + beta C, row-major; A read through
// the block's layout (NN or TN), each matrix with its own row stride (gemm.hpp's Block).
#pragma once

#include "kernels/gemm/gemm.hpp"

namespace gpubench::gemm {

enum class HostLoop { naive, tiled, packed };

// The packed loop's blocking (GotoBLAS's, as OpenBLAS and BLIS run it): B in kc x nc panels
// packed in NR-column strips, A in mc x kc blocks packed in MR-row strips, an MR x NR register
// tile of C per micro-kernel call (MR and NR from the CPU's vector width: 8 x 24 doubles with
// AVX-512). 0: the defaults (kc 256, nc 4096, mc from the threads so that they share m evenly).
struct Packing {
  int kc = 0, mc = 0, nc = 0;
};

// `tile` is the tiled loop's tile edge (the study's 8, 16, 32); `packing` the packed loop's
// blocking; `threads` 0: OpenMP's default, 1: one thread.
// `a`, `b` and `c` are the buffers the block's offsets count from.
template <typename T>
void host_gemm(HostLoop loop, const Block& s, int tile, int threads, T alpha, const T* a, const T* b, T beta, T* c,
               const Packing& packing = {});

extern template void host_gemm<float>(HostLoop, const Block&, int, int, float, const float*, const float*, float, float*,
                                      const Packing&);
extern template void host_gemm<double>(HostLoop, const Block&, int, int, double, const double*, const double*, double,
                                       double*, const Packing&);

}  // namespace gpubench::gemm
