// Issue 39: what GCC 12's nvptx offload costs per region and how its GEMM loops run.
#include <omp.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cstdint>
#include <algorithm>
int main() {
  const int dev = 0;
  const std::int64_t n = 1 << 24;
  double* x = (double*)omp_target_alloc(n * 8, dev); double* y = (double*)omp_target_alloc(n * 8, dev);
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(x, y)
  for (std::int64_t i = 0; i < n; ++i) { x[i] = 1; y[i] = 2; }
  // Launch cost: an empty-ish region of one iteration, at several launch sizes.
  int teams_list[] = {0, 132, 1056, 4224}; int thr_list[] = {0, 8, 32};
  for (int t : teams_list) for (int th : thr_list) {
    std::int64_t one = 1;
    double s1 = 1e30; for (int r_ = 0; r_ < 20; ++r_) { double t_ = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(x) num_teams(t) thread_limit(th)
      for (std::int64_t i = 0; i < one; ++i) x[i] += 1;
 s1 = std::min(s1, omp_get_wtime() - t_); }
    double sa = 1e30; for (int r_ = 0; r_ < 10; ++r_) { double t_ = omp_get_wtime();
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(x, y) num_teams(t) thread_limit(th)
      for (std::int64_t i = 0; i < n; ++i) y[i] += 0.5 * x[i];
 sa = std::min(sa, omp_get_wtime() - t_); }
    std::printf("launch teams=%d threads=%d: one-iteration region %.3f ms, axpy 2^24 f64 %.3f ms = %.0f GB/s\n", t, th, s1 * 1e3, sa * 1e3, 24.0 * n / sa / 1e9);
  }
  // GEMM naive 2048 f32 forms.
  const std::int64_t m = 2048; float* a = (float*)omp_target_alloc(m * m * 4, dev); float* b = (float*)omp_target_alloc(m * m * 4, dev); float* c = (float*)omp_target_alloc(m * m * 4, dev);
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(a, b, c)
  for (std::int64_t i = 0; i < m * m; ++i) { a[i] = 1.0f / (1 + i % 7); b[i] = 1.0f / (1 + i % 5); c[i] = 0; }
  const double fl = 2.0 * m * m * m;
  int initial = 0;
  double tA = 1e30; for (int r_ = 0; r_ < 3; ++r_) { double t_ = omp_get_wtime();
#pragma omp target teams distribute parallel for simd collapse(2) device(dev) is_device_ptr(a, b, c) map(tofrom : initial)
    for (std::int64_t i = 0; i < m; ++i) for (std::int64_t j = 0; j < m; ++j) {
      if (i == 0 && j == 0) initial = omp_is_initial_device();
      float acc = 0; for (std::int64_t l = 0; l < m; ++l) acc += a[i * m + l] * b[l * m + j]; c[i * m + j] = acc; }
 tA = std::min(tA, omp_get_wtime() - t_); }
  double tB = 1e30; for (int r_ = 0; r_ < 3; ++r_) { double t_ = omp_get_wtime();
#pragma omp target teams distribute parallel for simd collapse(2) device(dev) is_device_ptr(a, b, c)
    for (std::int64_t i = 0; i < m; ++i) for (std::int64_t j = 0; j < m; ++j) {
      float acc = 0; for (std::int64_t l = 0; l < m; ++l) acc += a[i * m + l] * b[l * m + j]; c[i * m + j] = acc; }
 tB = std::min(tB, omp_get_wtime() - t_); }
  double tC = 1e30; for (int r_ = 0; r_ < 3; ++r_) { double t_ = omp_get_wtime();
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b, c)
    for (std::int64_t i = 0; i < m; ++i) {
#pragma omp simd
      for (std::int64_t j = 0; j < m; ++j) {
      float acc = 0; for (std::int64_t l = 0; l < m; ++l) acc += a[i * m + l] * b[l * m + j]; c[i * m + j] = acc; } }
 tC = std::min(tC, omp_get_wtime() - t_); }
  double tD = 1e30; for (int r_ = 0; r_ < 3; ++r_) { double t_ = omp_get_wtime();
#pragma omp target teams distribute device(dev) is_device_ptr(a, b, c)
    for (std::int64_t i = 0; i < m; ++i) {
#pragma omp parallel for simd
      for (std::int64_t j = 0; j < m; ++j) {
      float acc = 0; for (std::int64_t l = 0; l < m; ++l) acc += a[i * m + l] * b[l * m + j]; c[i * m + j] = acc; } }
 tD = std::min(tD, omp_get_wtime() - t_); }
  int im = (int)m;
  double tE = 1e30; for (int r_ = 0; r_ < 3; ++r_) { double t_ = omp_get_wtime();
#pragma omp target teams distribute parallel for simd collapse(2) device(dev) is_device_ptr(a, b, c)
    for (int i = 0; i < im; ++i) for (int j = 0; j < im; ++j) {
      float acc = 0; for (int l = 0; l < im; ++l) acc += a[i * im + l] * b[l * im + j]; c[i * im + j] = acc; }
 tE = std::min(tE, omp_get_wtime() - t_); }
  double tF = 1e30; for (int r_ = 0; r_ < 3; ++r_) { double t_ = omp_get_wtime();
#pragma omp target teams distribute parallel for collapse(2) device(dev) is_device_ptr(a, b, c)
    for (std::int64_t i = 0; i < m; ++i) for (std::int64_t j = 0; j < m; ++j) {
      float acc = 0; for (std::int64_t l = 0; l < m; ++l) acc += a[i * m + l] * b[l * m + j]; c[i * m + j] = acc; }
 tF = std::min(tF, omp_get_wtime() - t_); }
  std::printf("GEMM naive 2048 f32 (GFLOP/s): A collapse(2) simd + initial check %.1f; B collapse(2) simd %.1f; C parallel for i + simd j %.1f; D distribute i + parallel for simd j %.1f; E collapse(2) simd, int indices %.1f; F collapse(2) no simd %.1f\n",
              fl / tA / 1e9, fl / tB / 1e9, fl / tC / 1e9, fl / tD / 1e9, fl / tE / 1e9, fl / tF / 1e9);
  return 0;
}
