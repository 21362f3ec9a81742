// sum = x[0] + ... + x[n-1] in two steps in OpenMP target regions, for gpubench's offload backends
// (omp_target, GCC's; omp_target_clang, Clang's), which compile this with their offload flags and
// GROUP, ITEMS, FINAL and `real` as -D. The pointers are the device's (is_device_ptr) and GB_DEVICE
// is its OpenMP number. reduce_partial: as many chunks of GROUP * ITEMS consecutive elements as the
// GPU launch has work-groups (its `global`, n / ITEMS, over GROUP), a team per chunk whose GROUP
// threads sum it into partial[c]; reduce_final: one team of FINAL threads sums the partials into
// sum[0]. Both accumulate in double, so that f32's sum does not depend on the chunks.
#include <cstdint>

void reduce_partial(real* partial, const real* x) {
  const std::int64_t chunk = (std::int64_t)GROUP * ITEMS, chunks = GB_GLOBAL_SIZE(0) / GROUP;
#pragma omp target teams distribute device(GB_DEVICE) is_device_ptr(partial, x) thread_limit(GROUP)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const real* in = x + c * chunk;
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (std::int64_t i = 0; i < chunk; ++i) s += in[i];
    partial[c] = (real)s;
  }
}

void reduce_final(real* sum, const real* partial, std::int32_t count) {
#pragma omp target teams device(GB_DEVICE) is_device_ptr(sum, partial) num_teams(1) thread_limit(FINAL)
  {
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (std::int32_t i = 0; i < count; ++i) s += partial[i];
    sum[0] = (real)s;
  }
}
