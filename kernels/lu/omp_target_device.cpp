// LU's device kernels on Clang's OpenMP offload: kernels/lu/device.h's lu_leaf, lu_laswp and
// lu_trtri in target regions (omp_target_device.h says what they are and why they are an image of
// their own).
#include "kernels/lu/omp_target_device.h"

#include <omp.h>

#include <cmath>
#include <cstdint>

#include "backends/omp_target_clang/team_memory.h"

namespace gpubench::lu::omp_lu {

namespace {

using omp_clang::publish;
#ifdef __NVPTX__
using omp_clang::held;
#endif

#pragma omp declare target
#define LU_FN inline
#define LU_G
#define LU_L
#define LU_SYNC() _Pragma("omp barrier")
#define LU_GROUP 256

inline int max(int a, int b) { return a > b ? a : b; }
inline int min(int a, int b) { return a < b ? a : b; }

// The leaf's meeting (device.h's lu_grid_sync), counted as kernels/lu/nvrtc.cu's grid_sync: team 0
// adds 2^31 - (teams - 1), every other team 1, so each meeting flips the word's top bit and leaves
// its low bits zero again; a team waits for the flip, at most 10 s, then gives up and sets
// *failed, as any team does that sees *failed set. NVIDIA GPUs only.
inline int lu_grid_sync(unsigned* word, int* failed, int* flag) {
  LU_SYNC();
  if (omp_get_thread_num() == 0) {
    int met = 1;
#ifdef __NVPTX__
    const unsigned add = omp_get_team_num() == 0 ? 0x80000000u - unsigned(omp_get_num_teams() - 1) : 1u;
    unsigned before, now;
    unsigned long long t0, t;
    asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(before) : "l"(word), "r"(add) : "memory");
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (unsigned polls = 1;; ++polls) {
      asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(word) : "memory");
      if ((before ^ now) & 0x80000000u) break;
      if (polls % 256 == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > 10000000000ull || *static_cast<volatile int*>(failed)) {
          met = 0;
          break;
        }
      }
    }
#else
    (void)word;
    met = 0;  // (never reached: the host runs no leaf, run_leaf's region says so)
#endif
    if (!met) publish(failed, 1);
    *flag = met;
  }
  LU_SYNC();
  return *flag;
}

#ifdef __NVPTX__
// Warp shuffles (device.h's LU_SHUFFLE): v from the lane o away in a butterfly of 32 lanes.
#define LU_SHUFFLE
inline int lu_shfl_int(int v, int o) {
  int r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(o));
  return r;
}
inline float lu_shfl_real(float v, int o) { return __builtin_bit_cast(float, lu_shfl_int(__builtin_bit_cast(int, v), o)); }
inline double lu_shfl_real(double v, int o) {
  const auto bits = __builtin_bit_cast(unsigned long long, v);
  const auto lo = static_cast<unsigned>(lu_shfl_int(static_cast<int>(bits & 0xffffffffu), o));
  const auto hi = static_cast<unsigned>(lu_shfl_int(static_cast<int>(bits >> 32), o));
  return __builtin_bit_cast(double, static_cast<unsigned long long>(hi) << 32 | lo);
}
#endif

namespace f64 {
using real = double;
using std::fabs;
#include "kernels/lu/device.h"
}  // namespace f64
namespace f32 {
using real = float;
using std::fabs;
#include "kernels/lu/device.h"
}  // namespace f32

[[maybe_unused]] inline void lu_leaf_of(double* a, int n, int j, int w, int slab, double* pvalue, int* prow, double* prows, double* rowc,
                       int* ipiv, unsigned* word, int* failed, double* s, double* value, int* row, double* u,
                       int* winner, int* flag, int tid, int b, int groups) {
  f64::lu_leaf(a, n, j, w, slab, pvalue, prow, prows, rowc, ipiv, word, failed, s, value, row, u, winner, flag, tid, b,
               groups);
}
[[maybe_unused]] inline void lu_leaf_of(float* a, int n, int j, int w, int slab, float* pvalue, int* prow, float* prows, float* rowc,
                       int* ipiv, unsigned* word, int* failed, float* s, float* value, int* row, float* u, int* winner,
                       int* flag, int tid, int b, int groups) {
  f32::lu_leaf(a, n, j, w, slab, pvalue, prow, prows, rowc, ipiv, word, failed, s, value, row, u, winner, flag, tid, b,
               groups);
}

[[maybe_unused]] inline void lu_laswp_of(double* a, int n, const int* ipiv, int k0, int k1, int c0, int c1, double* seg,
                                         double* out, int* piv, int* prev, int* last, int tid, int b) {
  f64::lu_laswp(a, n, ipiv, k0, k1, c0, c1, seg, out, piv, prev, last, tid, b);
}
[[maybe_unused]] inline void lu_laswp_of(float* a, int n, const int* ipiv, int k0, int k1, int c0, int c1, float* seg,
                                         float* out, int* piv, int* prev, int* last, int tid, int b) {
  f32::lu_laswp(a, n, ipiv, k0, k1, c0, c1, seg, out, piv, prev, last, tid, b);
}
[[maybe_unused]] inline void lu_trtri_of(const double* a, int n, int j, int w, double* inv, double* x, int col, int tid) {
  f64::lu_trtri(a, n, j, w, inv, x, col, tid);
}
[[maybe_unused]] inline void lu_trtri_of(const float* a, int n, int j, int w, float* inv, float* x, int col, int tid) {
  f32::lu_trtri(a, n, j, w, inv, x, col, tid);
}

// Whether the region runs as the leaf needs (status[0] = 2 where not: no team then meets, so none
// waits); team 0 says whether it runs on the initial device.
[[maybe_unused]] inline bool as_asked(int* status) {
  if (omp_get_team_num() == 0 && omp_get_thread_num() == 0) status[1] = omp_is_initial_device();
  if (omp_get_num_threads() == LU_GROUP) return true;
  if (omp_get_thread_num() == 0) publish(status, 2);
  return false;
}
// The host's region: where it ran, and no leaf (status[0] = 2): the host's teams get no more
// threads than it has cores.
[[maybe_unused]] inline void refuse_on_host(int* status) {
  if (omp_get_thread_num() != 0) return;
  status[1] = omp_is_initial_device();
  publish(status, 2);
}
#pragma omp end declare target
static_assert(trtri_max == LU_TRTRI_MAX && group == LU_GROUP);


// A team's part of the leaf, run by each of its threads, its team memory declared here (as GEMM's
// tensor kernel's is). The teams are as many as the region asked for (num_teams: LLVM's plugin
// launches that grid), so the body need not name `groups`: with the region's body written out and
// naming it (1111603), the probe's barrier atomic went to address 0x84 (132, the teams' number)
// on the H200, compute-sanitizer said; with the body this one call, it does not.
template <typename T>
__attribute__((always_inline)) inline void team_leaf(T* a, int n, int j, int w, int slab, T* pvalue, int* prow,
                                                     T* prows, T* rowc, int* ipiv, unsigned* word, int* status) {
#ifdef __NVPTX__
  T s[slab_bytes / sizeof(T)];
#pragma omp allocate(s) allocator(omp_pteam_mem_alloc)
  T value[LU_GROUP];
#pragma omp allocate(value) allocator(omp_pteam_mem_alloc)
  int row[LU_GROUP];
#pragma omp allocate(row) allocator(omp_pteam_mem_alloc)
  T u[LU_LEAF_MAX];
#pragma omp allocate(u) allocator(omp_pteam_mem_alloc)
  int flags[2];
#pragma omp allocate(flags) allocator(omp_pteam_mem_alloc)
  int* f = held(flags);
  if (as_asked(status))
    lu_leaf_of(a, n, j, w, slab, pvalue, prow, prows, rowc, ipiv, word, status, held(s), held(value), held(row),
               held(u), f, f + 1, omp_get_thread_num(), omp_get_team_num(), omp_get_num_teams());
#else
  (void)a, (void)n, (void)j, (void)w, (void)slab, (void)pvalue, (void)prow, (void)prows, (void)rowc, (void)ipiv, (void)word;
  refuse_on_host(status);
#endif
}

// The probe's team: the leaf's team memory, so that the teams resident at once here are those the
// leaf's would be, then one meeting.
__attribute__((always_inline)) inline void team_meet(unsigned* word, int* status) {
#ifdef __NVPTX__
  double s[(slab_bytes + 3584) / sizeof(double)];
#pragma omp allocate(s) allocator(omp_pteam_mem_alloc)
  int flag[1];
#pragma omp allocate(flag) allocator(omp_pteam_mem_alloc)
  if (as_asked(status)) {
    volatile double* kept = held(s);  // (stores the compiler keeps, so that the region holds the memory)
    for (std::size_t i = static_cast<std::size_t>(omp_get_thread_num()); i < sizeof s / sizeof s[0]; i += LU_GROUP)
      kept[i] = omp_get_team_num();
    lu_grid_sync(word, status, held(flag));
  }
#else
  (void)word;
  refuse_on_host(status);
#endif
}

// A team's row swaps: 32 columns (device.h's lu_laswp), its team memory declared here.
template <typename T>
__attribute__((always_inline)) inline void team_laswp(T* a, int n, const int* ipiv, int k0, int k1, int c0, int c1,
                                                      int* status) {
#ifdef __NVPTX__
  T seg[LU_SWAP_ROWS * LU_SWAP_LD];
#pragma omp allocate(seg) allocator(omp_pteam_mem_alloc)
  T out[LU_SWAP_ROWS * LU_SWAP_LD];
#pragma omp allocate(out) allocator(omp_pteam_mem_alloc)
  int piv[LU_SWAP_ROWS];
#pragma omp allocate(piv) allocator(omp_pteam_mem_alloc)
  int prev[LU_SWAP_ROWS];
#pragma omp allocate(prev) allocator(omp_pteam_mem_alloc)
  int last[LU_SWAP_ROWS];
#pragma omp allocate(last) allocator(omp_pteam_mem_alloc)
  if (as_asked(status))
    lu_laswp_of(a, n, ipiv, k0, k1, c0, c1, held(seg), held(out), held(piv), held(prev), held(last),
                omp_get_thread_num(), omp_get_team_num());
#else
  (void)a, (void)n, (void)ipiv, (void)k0, (void)k1, (void)c0, (void)c1;
  refuse_on_host(status);
#endif
}

// A team's column of the inverse (device.h's lu_trtri), the column's vector in team memory.
template <typename T>
__attribute__((always_inline)) inline void team_trtri(const T* a, int n, int j, int w, T* inv, int* status) {
#ifdef __NVPTX__
  T x[LU_TRTRI_MAX];
#pragma omp allocate(x) allocator(omp_pteam_mem_alloc)
  if (as_asked(status)) lu_trtri_of(a, n, j, w, inv, held(x), omp_get_team_num(), omp_get_thread_num());
#else
  (void)a, (void)n, (void)j, (void)w, (void)inv;
  refuse_on_host(status);
#endif
}

template <typename T>
void run_laswp(int dev, T* a, int n, const int* ipiv, int k0, int k1, int c0, int c1, int* status) {
  const int groups = (c1 - c0 + LU_SWAP_COLS - 1) / LU_SWAP_COLS;
#pragma omp target teams num_teams(groups) thread_limit(LU_GROUP) device(dev) is_device_ptr(a, ipiv, status)
#pragma omp parallel num_threads(LU_GROUP)
  team_laswp(a, n, ipiv, k0, k1, c0, c1, status);
}

template <typename T>
void run_trtri(int dev, const T* a, int n, int j, int w, T* inv, int* status) {
  const int columns = w;  // (the body names no clause's variable: team_leaf says why)
#pragma omp target teams num_teams(columns) thread_limit(LU_GROUP) device(dev) is_device_ptr(a, inv, status)
#pragma omp parallel num_threads(LU_GROUP)
  team_trtri(a, n, j, w, inv, status);
}

template <typename T>
void run_leaf(int dev, T* a, int n, int j, int w, int slab, int groups, T* pvalue, int* prow, T* prows, T* rowc,
              int* ipiv, unsigned* word, int* status) {
#pragma omp target teams num_teams(groups) thread_limit(LU_GROUP) device(dev) \
    is_device_ptr(a, pvalue, prow, prows, rowc, ipiv, word, status)
#pragma omp parallel num_threads(LU_GROUP)
  team_leaf(a, n, j, w, slab, pvalue, prow, prows, rowc, ipiv, word, status);
}

}  // namespace

void leaf(int dev, double* a, int n, int j, int w, int slab, int groups, double* pvalue, int* prow, double* prows,
          double* rowc, int* ipiv, unsigned* word, int* status) {
  run_leaf(dev, a, n, j, w, slab, groups, pvalue, prow, prows, rowc, ipiv, word, status);
}
void leaf(int dev, float* a, int n, int j, int w, int slab, int groups, float* pvalue, int* prow, float* prows,
          float* rowc, int* ipiv, unsigned* word, int* status) {
  run_leaf(dev, a, n, j, w, slab, groups, pvalue, prow, prows, rowc, ipiv, word, status);
}

void meet(int dev, int groups, unsigned* word, int* status) {
#pragma omp target teams num_teams(groups) thread_limit(LU_GROUP) device(dev) is_device_ptr(word, status)
#pragma omp parallel num_threads(LU_GROUP)
  team_meet(word, status);
}

void laswp(int dev, double* a, int n, const int* ipiv, int k0, int k1, int c0, int c1, int* status) {
  run_laswp(dev, a, n, ipiv, k0, k1, c0, c1, status);
}
void laswp(int dev, float* a, int n, const int* ipiv, int k0, int k1, int c0, int c1, int* status) {
  run_laswp(dev, a, n, ipiv, k0, k1, c0, c1, status);
}
void trtri(int dev, const double* a, int n, int j, int w, double* inv, int* status) {
  run_trtri(dev, a, n, j, w, inv, status);
}
void trtri(int dev, const float* a, int n, int j, int w, float* inv, int* status) {
  run_trtri(dev, a, n, j, w, inv, status);
}

}  // namespace gpubench::lu::omp_lu
