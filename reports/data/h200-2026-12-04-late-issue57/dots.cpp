// Where Clang 19's reduction regions lose their time: CG's dot at poisson2d:4096 (2^24 doubles a
// vector, 268 MB read) written six ways, 300 regions each, the host's clock around each region
// (every region is synchronous); and what a region costs outside its kernel: an empty one, a
// one-element one, CG's axpy synchronous and ten of them `nowait` before one taskwait; then the same
// after the context is set to CUDA's default scheduling (cuda_default_scheduling). Built like
// gpubench's module (and registering LLVM's NVPTX target as it does, for the runtime's JIT):
//   clang++-19 -O3 -fopenmp --offload-arch=sm_90 --cuda-path=/usr/local/cuda \
//     --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib -fopenmp-target-jit dots.cpp -o dots
#include <dlfcn.h>
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>

__attribute__((constructor)) static void register_nvptx_target() {
  void* llvm = ::dlopen("libLLVM.so.19.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!llvm) return;
  for (const char* name : {"LLVMInitializeNVPTXTargetInfo", "LLVMInitializeNVPTXTarget", "LLVMInitializeNVPTXTargetMC",
                           "LLVMInitializeNVPTXAsmPrinter"})
    if (void* init = ::dlsym(llvm, name)) reinterpret_cast<void (*)()>(init)();
}

// libomptarget's CUDA plugin makes the primary context CU_CTX_SCHED_BLOCKING_SYNC (the host thread
// sleeps until the GPU interrupts); this sets the CUDA runtime's default, CU_CTX_SCHED_AUTO (0),
// on the active primary context and on it made current, and says what the context's flags read.
static void cuda_default_scheduling(int ordinal) {
  void* cu = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cu) return std::puts("no libcuda.so.1"), void();
  auto get = reinterpret_cast<int (*)(int*, int)>(::dlsym(cu, "cuDeviceGet"));
  auto retain = reinterpret_cast<int (*)(void**, int)>(::dlsym(cu, "cuDevicePrimaryCtxRetain"));
  auto set_primary = reinterpret_cast<int (*)(int, unsigned)>(::dlsym(cu, "cuDevicePrimaryCtxSetFlags_v2"));
  auto state = reinterpret_cast<int (*)(int, unsigned*, int*)>(::dlsym(cu, "cuDevicePrimaryCtxGetState"));
  auto push = reinterpret_cast<int (*)(void*)>(::dlsym(cu, "cuCtxPushCurrent_v2"));
  auto pop = reinterpret_cast<int (*)(void**)>(::dlsym(cu, "cuCtxPopCurrent_v2"));
  auto set_ctx = reinterpret_cast<int (*)(unsigned)>(::dlsym(cu, "cuCtxSetFlags"));
  auto get_ctx = reinterpret_cast<int (*)(unsigned*)>(::dlsym(cu, "cuCtxGetFlags"));
  int device = 0;
  void* ctx = nullptr;
  unsigned before = 99, after = 99, current = 99;
  int active = 0;
  get(&device, ordinal);
  state(device, &before, &active);
  const int r1 = set_primary(device, 0);
  retain(&ctx, device);
  push(ctx);
  const int r2 = set_ctx ? set_ctx(0) : -1;
  if (get_ctx) get_ctx(&current);
  void* popped = nullptr;
  pop(&popped);
  state(device, &after, &active);
  std::printf("primary context flags %u -> %u (active %d; SetFlags %d, cuCtxSetFlags %d, the context's flags now %u)\n",
              before, after, active, r1, r2, current);
}

int main() {
  const int dev = 0, reps = 300;
  const int n = 4096 * 4096;
  const int teams = 132 * 4, threads = 256;  // CG's heuristic on the H200: 4 teams an SM, 256 threads
  double* x = static_cast<double*>(omp_target_alloc(sizeof(double) * n, dev));
  double* y = static_cast<double*>(omp_target_alloc(sizeof(double) * n, dev));
  double* part = static_cast<double*>(omp_target_alloc(sizeof(double) * 2 * 4096, dev));
  int* flag = static_cast<int*>(omp_target_alloc(sizeof(int) * 4, dev));
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(x, y)
  for (int i = 0; i < n; ++i) {
    x[i] = 1.0 / (1 + i % 7);
    y[i] = 1.0 + i % 5;
  }
  double expect = 0;
  for (int i = 0; i < n; ++i) expect += (1.0 / (1 + i % 7)) * (1.0 + i % 5);
  auto time = [&](const char* what, auto&& f, int per = 1) {  // per: regions a call of f makes
    double got = f();
    const double t0 = omp_get_wtime();
    for (int r = 0; r < reps; ++r) got = f();
    const double us = (omp_get_wtime() - t0) / reps * 1e6 / per;
    std::printf("%-66s %8.1f us  %6.0f GB/s  rel.err %.1e\n", what, us, 2.0 * 8 * n / us / 1e3,
                (got - expect) / expect);
  };
  time("read only (no reduction, a flag never set)", [&] {
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(threads) is_device_ptr(x, y, flag)
    for (int i = 0; i < n; ++i)
      if (x[i] * y[i] == -1.0) flag[0] = 1;
    return expect;
  });
  time("reduction(+:sum) + map(tofrom: initial) [CG's dot today]", [&] {
    double sum = 0;
    int initial = 0;
#pragma omp target teams distribute parallel for simd device(dev) num_teams(teams) thread_limit(threads) \
    is_device_ptr(x, y) map(tofrom : initial) reduction(+ : sum)
    for (int i = 0; i < n; ++i) {
      if (i == 0) initial = omp_is_initial_device();
      sum += x[i] * y[i];
    }
    return sum + initial;
  });
  time("reduction(+:sum) only", [&] {
    double sum = 0;
#pragma omp target teams distribute parallel for simd device(dev) num_teams(teams) thread_limit(threads) \
    is_device_ptr(x, y) reduction(+ : sum)
    for (int i = 0; i < n; ++i) sum += x[i] * y[i];
    return sum;
  });
  time("reduction(+:sum) only, no simd", [&] {
    double sum = 0;
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(threads) \
    is_device_ptr(x, y) reduction(+ : sum)
    for (int i = 0; i < n; ++i) sum += x[i] * y[i];
    return sum;
  });
  time("reduction(+:sum) only, default teams and threads", [&] {
    double sum = 0;
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(x, y) reduction(+ : sum)
    for (int i = 0; i < n; ++i) sum += x[i] * y[i];
    return sum;
  });
  time("partials: a team's parallel-for reduction into part[t], then a sum region, then a copy", [&] {
    const int chunk = (n + teams - 1) / teams;
#pragma omp target teams device(dev) num_teams(teams) thread_limit(threads) is_device_ptr(x, y, part)
    {
      const int t = omp_get_team_num();
      const int lo = t * chunk, hi = lo + chunk < n ? lo + chunk : n;
      double s = 0;
#pragma omp parallel for reduction(+ : s)
      for (int i = lo; i < hi; ++i) s += x[i] * y[i];
      part[t] = s;
    }
#pragma omp target device(dev) is_device_ptr(part)
    {
      double s = 0;
      for (int t = 0; t < teams; ++t) s += part[t];
      part[4095] = s;
    }
    double sum = 0;
    omp_target_memcpy(&sum, part, sizeof(double), 0, sizeof(double) * 4095, omp_get_initial_device(), dev);
    return sum;
  });
  time("empty target region with map(tofrom: a double)", [&] {
    double v = expect;
#pragma omp target device(dev) map(tofrom : v)
    { v += 0; }
    return v;
  });
  time("omp_target_memcpy of 8 bytes device to host", [&] {
    double v = 0;
    omp_target_memcpy(&v, part, sizeof(double), 0, 0, omp_get_initial_device(), dev);
    return expect + 0 * v;
  });
  time("empty target region (no maps)", [&] {
#pragma omp target device(dev)
    {}
    return expect;
  });
  time("one-element region (is_device_ptr)", [&] {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(flag)
    for (int i = 0; i < 1; ++i) flag[1] = i;
    return expect;
  });
  time("CG's axpy (y += a x), synchronous", [&] {
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(threads) is_device_ptr(x, y)
    for (int i = 0; i < n; ++i) y[i] += 1e-300 * x[i];
    return expect;
  });
  cuda_default_scheduling(0);
  time("CG's axpy (y += a x), synchronous, CUDA's default scheduling", [&] {
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(threads) is_device_ptr(x, y)
    for (int i = 0; i < n; ++i) y[i] += 1e-300 * x[i];
    return expect;
  });
  time("read only, CUDA's default scheduling", [&] {
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(threads) is_device_ptr(x, y, flag)
    for (int i = 0; i < n; ++i)
      if (x[i] * y[i] == -1.0) flag[0] = 1;
    return expect;
  });
  time("reduction(+:sum) + map(tofrom: initial), CUDA's default scheduling", [&] {
    double sum = 0;
    int initial = 0;
#pragma omp target teams distribute parallel for simd device(dev) num_teams(teams) thread_limit(threads) \
    is_device_ptr(x, y) map(tofrom : initial) reduction(+ : sum)
    for (int i = 0; i < n; ++i) {
      if (i == 0) initial = omp_is_initial_device();
      sum += x[i] * y[i];
    }
    return sum + initial;
  });
  time("empty target region (no maps), CUDA's default scheduling", [&] {
#pragma omp target device(dev)
    {}
    return expect;
  });
  time("CG's axpy, ten regions nowait then one taskwait (per region)", [&] {
    for (int k = 0; k < 10; ++k) {
#pragma omp target teams distribute parallel for device(dev) num_teams(teams) thread_limit(threads) is_device_ptr(x, y) nowait
      for (int i = 0; i < n; ++i) y[i] += 1e-300 * x[i];
    }
#pragma omp taskwait
    return expect;
  }, 10);
  omp_target_free(x, dev);
  omp_target_free(y, dev);
  omp_target_free(part, dev);
  omp_target_free(flag, dev);
}
