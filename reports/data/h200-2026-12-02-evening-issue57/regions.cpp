// Per-region cost of Clang 19's OpenMP offload on the GPU: shapes of LU's regions, 2000 each.
#include <omp.h>
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <initializer_list>
int main() {
  const int dev = 0, reps = 2000;
  const std::int64_t n = 8192;
  double* a = static_cast<double*>(omp_target_alloc(sizeof(double) * n * 64, dev));
  int* flags = static_cast<int*>(omp_target_alloc(sizeof(int) * 256, dev));
  double* tv = static_cast<double*>(omp_target_alloc(sizeof(double) * 256 * 256, dev));
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, flags)
  for (std::int64_t i = 0; i < n * 64; ++i) { a[i] = 1.0 + (i % 7); if (i < 256) flags[i] = 0; }
  auto time = [&](const char* what, auto&& f) {
    f();
    const double t0 = omp_get_wtime();
    for (int r = 0; r < reps; ++r) f();
    std::printf("%-60s %8.2f us/region\n", what, (omp_get_wtime() - t0) / reps * 1e6);
  };
  time("empty target", [&] {
#pragma omp target device(dev)
    {}
  });
  time("combined teams distribute parallel for, 8192 iters", [&] {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a)
    for (std::int64_t i = 0; i < n; ++i) a[i] += 1.0;
  });
  time("combined, num_teams(32) thread_limit(256)", [&] {
#pragma omp target teams distribute parallel for device(dev) num_teams(32) thread_limit(256) is_device_ptr(a)
    for (std::int64_t i = 0; i < n; ++i) a[i] += 1.0;
  });
  time("teams(32)+parallel(256), rows loop", [&] {
#pragma omp target teams num_teams(32) thread_limit(256) device(dev) is_device_ptr(a)
#pragma omp parallel num_threads(256)
    {
      const int team = omp_get_team_num(), t = omp_get_thread_num(), nt = omp_get_num_threads();
      for (std::int64_t r = std::int64_t(team) * nt + t; r < n; r += std::int64_t(omp_get_num_teams()) * nt) a[r] += 1.0;
    }
  });
  time("teams+parallel, 8 barriers", [&] {
#pragma omp target teams num_teams(32) thread_limit(256) device(dev) is_device_ptr(a, tv)
#pragma omp parallel num_threads(256)
    {
      const int team = omp_get_team_num(), t = omp_get_thread_num(), nt = omp_get_num_threads();
      tv[team * 256 + t] = a[team * 256 + t];
      for (int s = 1; s < nt; s *= 2) {
#pragma omp barrier
        if (t % (2 * s) == 0 && t + s < nt && tv[team * 256 + t + s] > tv[team * 256 + t]) tv[team * 256 + t] = tv[team * 256 + t + s];
      }
    }
  });
  time("teams+parallel, flush + atomic capture seq_cst", [&] {
#pragma omp target teams num_teams(32) thread_limit(256) device(dev) is_device_ptr(a, flags)
#pragma omp parallel num_threads(256)
    {
      const int team = omp_get_team_num(), t = omp_get_thread_num(), nteams = omp_get_num_teams();
#pragma omp flush
#pragma omp barrier
      if (t == 0) {
        int done = 0;
#pragma omp atomic capture seq_cst
        done = flags[0]++;
        flags[2 + team] = done == nteams - 1;
      }
#pragma omp barrier
#pragma omp flush
      if (flags[2 + team]) { if (t == 0) { flags[0] = 0; flags[2 + team] = 0; } }
    }
  });
  time("teams+parallel, std::abs + lambda compare", [&] {
#pragma omp target teams num_teams(32) thread_limit(256) device(dev) is_device_ptr(a, tv)
#pragma omp parallel num_threads(256)
    {
      const int team = omp_get_team_num(), t = omp_get_thread_num(), nt = omp_get_num_threads();
      const auto better = [](double v, std::int64_t r, double than, std::int64_t than_row) { return v > than || (v == than && r < than_row); };
      double best = -1; std::int64_t row = n;
      for (std::int64_t r = std::int64_t(team) * nt + t; r < n; r += std::int64_t(omp_get_num_teams()) * nt) {
        const double v = std::abs(a[r]);
        if (better(v, r, best, row)) { best = v; row = r; }
      }
      tv[team * 256 + t] = best + double(row);
    }
  });
  omp_target_free(a, dev); omp_target_free(flags, dev); omp_target_free(tv, dev);
}
#include <dlfcn.h>
__attribute__((constructor)) static void register_nvptx_target() {
  void* llvm = ::dlopen("libLLVM.so.19.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!llvm) return;
  for (const char* name : {"LLVMInitializeNVPTXTargetInfo", "LLVMInitializeNVPTXTarget", "LLVMInitializeNVPTXTargetMC",
                           "LLVMInitializeNVPTXAsmPrinter"})
    if (void* init = ::dlsym(llvm, name)) reinterpret_cast<void (*)()>(init)();
}
