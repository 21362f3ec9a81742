// sum = x[0] + ... + x[n-1] in two steps on the host's cores (gpubench's openmp backend compiles
// this with the host compiler, -O3 -march=native -fopenmp, with GROUP, ITEMS, FINAL and `real` as
// -D). reduce_partial: as many chunks of GROUP * ITEMS consecutive elements as the GPU launch has
// work-groups (its `global`, n / ITEMS, over GROUP), chunk c summed into partial[c], the chunks
// shared among the threads; reduce_final: the partials summed into sum[0], handed to the threads
// FINAL at a time. Both accumulate in double, so that f32's sum does not depend on the chunks.
#include <cstdint>

void reduce_partial(real* partial, const real* x) {
  const std::int64_t chunk = (std::int64_t)GROUP * ITEMS, chunks = GB_GLOBAL_SIZE(0) / GROUP;
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const real* in = x + c * chunk;
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (std::int64_t i = 0; i < chunk; ++i) s += in[i];
    partial[c] = (real)s;
  }
}

void reduce_final(real* sum, const real* partial, std::int32_t count) {
  double s = 0;
#pragma omp parallel for schedule(static, FINAL) reduction(+ : s)
  for (std::int32_t i = 0; i < count; ++i) s += partial[i];
  sum[0] = (real)s;
}
