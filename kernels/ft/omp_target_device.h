// FT's fast transform and checksum on Clang's OpenMP offload (the code: omp_target_device.cpp):
// the kernels CUDA and OpenCL run (kernels/ft/device.h's ft_fast_lines and ft_checksum, included
// there, not rewritten). The transform: a team per
// group of `lines` lines of n points, each of its n lines / radix threads holding `radix` values
// in registers per pass, the group's lines through a tile in team memory between passes (`omp
// allocate` with omp_pteam_mem_alloc: CUDA's shared memory; LLVM 19's CUDA plugin allows the
// static 48 KB, so the tile is at most tile_bytes, in a few sizes so that a small group holds no
// more than it needs). NVIDIA GPUs only: on the host (the initial device) a league's teams get no
// more threads between them than it has cores, not n lines / radix each, so the region there
// only says where it ran and that it did nothing (status), and the suite refuses fast there.
//
// Built into a device image of its own (backends/omp_target_clang/backend.cmake), as GEMM's tensor
// kernel and LU's device kernels are (kernels/gemm/omp_target_tensor.h says why).
#pragma once

#include <cstdint>

namespace gpubench::ft::omp_fast {

inline constexpr std::uint64_t tile_bytes = 40960;  // the largest tile (lines x n x 16 bytes)

// The lines of the field: line g (g < groups lines) starts at (g % count_a) stride_a + (g /
// count_a) stride_b, its n elements elem_stride apart; line_fastest: the strided axes' layout
// (device.h's ft_lines). What the first pass reads, mode 0 the field, 1 NAS's initial
// conditions (seed, multiplier), 2 the field times the factors of the tables `axes` (device.h's
// ft_first, nx and ny the field's).
struct Lines {
  int n, lines, line_fastest, count_a;
  std::int64_t elem_stride, stride_a, stride_b;
};
struct First {
  int mode, nx, ny;
  std::uint64_t seed, multiplier;
};

// The 1-D FFTs of `groups` groups from src to dst (complex values as pairs of doubles; roots[p] =
// exp(-2 pi i p / n), p < n), sign -1 forward, +1 inverse unnormalised; radix 4, 8 or 16.
// status (device memory, four ints): [0] set to 2 where the region ran with other than n lines /
// radix threads a team (or on the host: it then transforms nothing), [2] the threads and [3] the
// team that saw it; [1] 1 where it ran on the initial device.
void fast(int dev, const double* src, double* dst, const double* roots, const Lines& g, const First& f,
          const double* axes, int sign, int radix, int groups, int* status);

// NAS's checksum of field u (nx x ny x nz complex values) into sums[2 iteration .. + 1] (device
// memory), by one team of checksum_threads threads; status as fast's ([0] 2 on the host, which
// sums nothing).
inline constexpr int checksum_threads = 128;
void checksum(int dev, const double* u, double* sums, int iteration, int nx, int ny, int nz, int* status);

}  // namespace gpubench::ft::omp_fast
