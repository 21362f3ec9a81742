// A scaling step with a fault planted by its own defines: LIMIT past n writes past the end of `out`,
// WRONG >= 0 adds 1 to that element. The reference is the same step without them.
#define LIMIT (n)
#define WRONG (5)
void scale(real* out, const real* in, std::int32_t n) {
  const std::int64_t items = GB_GLOBAL_SIZE(0);
#pragma omp parallel for
  for (std::int64_t i = 0; i < items; ++i)
    if (i < LIMIT) out[i] = (real)2 * in[i] + (i == WRONG ? (real)1 : (real)0);
}
void scale_reference(real* out, const real* in, std::int32_t n) {
  for (std::int32_t i = 0; i < n; ++i) out[i] = (real)2 * in[i];
}
