// LU's device kernels on Clang's OpenMP offload (the code: omp_target_device.cpp), those CUDA and
// OpenCL run (kernels/lu/device.h's, included there, not rewritten), each in a region of teams of
// `group` threads with team memory: the panel's leaf, the row swaps (lu_laswp) and the triangular
// inverse (lu_trtri) of the trsm, as kernels/lu/cuda.cu's trsm.
//
// The leaf (lu_leaf): columns [j, j + w) of the panel in one region whose teams each hold `slab`
// rows in team memory and meet once per column at a barrier in global memory. OpenMP, like OpenCL, does not promise that a region's teams
// run at once: the host runs the leaf only where meet() saw that many teams, each with the leaf's
// team memory, all resident; a team that waits more than 10 s gives up and sets status[0], after
// which every team returns at its meeting, the matrix untouched, and the host says so. On an NVIDIA
// GPU the meeting is the CUDA leaf's (inline PTX: a release add and acquire loads at GPU scope, the
// global timer), the groups' maxima warp shuffles, team memory `omp allocate` with
// omp_pteam_mem_alloc (CUDA's shared memory: the static 48 KB, as LLVM 19's plugin allows, so
// slab x w elements at most slab_bytes). NVIDIA GPUs only: on the host (the initial device) a
// league's teams get no more threads between them than it has cores (libomp), not 256 each, so
// the regions there only say where they ran (the panel takes column steps there).
//
// The row swaps and the inverse need no meeting: they run on a GPU wherever they are asked; a team
// with other than `group` threads leaves status[0] at 2 (and the matrix as it was) as the leaf's do.
//
// Built into a device image of its own (backends/omp_target_clang/backend.cmake), as GEMM's tensor
// kernel is (omp_target_tensor.h says why: LLVM 19 compiled EP's reduction wrongly with team-memory
// kernels beside it in the module's image).
#pragma once

#include <cstddef>

namespace gpubench::lu::omp_lu {

// The slab's team memory (bytes): a team's slab x w elements at most.
inline constexpr std::size_t slab_bytes = 36864;
inline constexpr int group = 256;  // the threads of a team (LU_GROUP)

// status (device memory, two ints): [0] 0, or 1 where a team gave up waiting, 2 where the region
// ran with other than `group` threads a team (or on the host); [1] set to 1 where it ran on the
// initial device. The region launches `groups` teams (LLVM's plugin: a grid of num_teams). word:
// the barrier's word, zero before a launch and after one where status[0] stayed 0. partials:
// pvalue 2 group values, prow 2 group ints, prows 2 group 64 values, rowc 2 64 values.
void leaf(int dev, double* a, int n, int j, int w, int slab, int groups, double* pvalue, int* prow, double* prows,
          double* rowc, int* ipiv, unsigned* word, int* status);
void leaf(int dev, float* a, int n, int j, int w, int slab, int groups, float* pvalue, int* prow, float* prows,
          float* rowc, int* ipiv, unsigned* word, int* status);

// The probe: `groups` teams of `group` threads, each holding the leaf's team memory, meet once.
// Sets status as the leaf does.
void meet(int dev, int groups, unsigned* word, int* status);

// Rows k and ipiv[k] (0-based) swapped for k in [k0, k1), in order, on columns [c0, c1): a team
// per 32 columns (device.h's lu_laswp).
void laswp(int dev, double* a, int n, const int* ipiv, int k0, int k1, int c0, int c1, int* status);
void laswp(int dev, float* a, int n, const int* ipiv, int k0, int k1, int c0, int c1, int* status);

// inv (w x w, column-major) = L(j:j+w, j:j+w)^-1, L unit lower: a team per column (device.h's
// lu_trtri), w <= trtri_max.
inline constexpr int trtri_max = 512;  // (LU_TRTRI_MAX)
void trtri(int dev, const double* a, int n, int j, int w, double* inv, int* status);
void trtri(int dev, const float* a, int n, int j, int w, float* inv, int* status);

}  // namespace gpubench::lu::omp_lu
