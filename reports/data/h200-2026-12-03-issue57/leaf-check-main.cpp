#include <omp.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <dlfcn.h>
__attribute__((constructor)) void register_nvptx_target() {
  void* llvm = ::dlopen("libLLVM.so.19.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!llvm) { printf("no libLLVM loaded\n"); return; }
  for (const char* name : {"LLVMInitializeNVPTXTargetInfo", "LLVMInitializeNVPTXTarget", "LLVMInitializeNVPTXTargetMC",
                           "LLVMInitializeNVPTXAsmPrinter"})
    if (void* init = ::dlsym(llvm, name)) reinterpret_cast<void (*)()>(init)();
}
#include "kernels/lu/omp_target_leaf.h"
using namespace gpubench::lu;
template <typename T> T* dalloc(size_t n, int dev) { return static_cast<T*>(omp_target_alloc(n * sizeof(T), dev)); }
int main(int argc, char** argv) {
  const int n = atoi(argv[1]), w = atoi(argv[2]), dev = 0, host = omp_get_initial_device();
  std::vector<double> a(size_t(n) * n);
  srand(1);
  for (auto& x : a) x = rand() / double(RAND_MAX) - 0.5;
  double* da = dalloc<double>(a.size(), dev);
  double* pv = dalloc<double>(512, dev); int* pr = dalloc<int>(512, dev); double* prs = dalloc<double>(512 * 64, dev);
  double* rc = dalloc<double>(128, dev); int* ipiv = dalloc<int>(n, dev); unsigned* word = dalloc<unsigned>(1, dev); int* st = dalloc<int>(2, dev);
  int zero[2] = {0, 0};
  omp_target_memcpy(da, a.data(), a.size() * 8, 0, 0, dev, host);
  omp_target_memcpy(word, zero, 4, 0, 0, dev, host);
  omp_target_memcpy(st, zero, 8, 0, 0, dev, host);
  omp_leaf::meet(dev, 132, word, st);
  int s[2]; omp_target_memcpy(s, st, 8, 0, 0, host, dev);
  printf("meet: status %d initial %d\n", s[0], s[1]); fflush(stdout);
  if (w == 0) return 0;
  omp_target_memcpy(word, zero, 4, 0, 0, dev, host);
  omp_target_memcpy(st, zero, 8, 0, 0, dev, host);
  const int slab = std::max(64, (n + 131) / 132), groups = (n + slab - 1) / slab;
  printf("leaf: n %d w %d slab %d groups %d\n", n, w, slab, groups); fflush(stdout);
  double t = omp_get_wtime();
  omp_leaf::leaf(dev, da, n, 0, w, slab, groups, pv, pr, prs, rc, ipiv, word, st);
  t = omp_get_wtime() - t;
  omp_target_memcpy(s, st, 8, 0, 0, host, dev);
  printf("leaf: status %d initial %d, %.3f ms\n", s[0], s[1], t * 1e3); fflush(stdout);
  std::vector<double> got(a.size()); std::vector<int> gp(n);
  omp_target_memcpy(got.data(), da, a.size() * 8, 0, 0, host, dev);
  omp_target_memcpy(gp.data(), ipiv, n * 4, 0, 0, host, dev);
  // host getf2 of columns [0, w)
  std::vector<int> hp(w);
  for (int c = 0; c < w; ++c) {
    int p = c; double best = -1;
    for (int r = c; r < n; ++r) if (std::fabs(a[r + size_t(c) * n]) > best) { best = std::fabs(a[r + size_t(c) * n]); p = r; }
    hp[c] = p;
    for (int k = 0; k < w; ++k) std::swap(a[c + size_t(k) * n], a[p + size_t(k) * n]);
    for (int r = c + 1; r < n; ++r) { const double m = a[r + size_t(c) * n] /= a[c + size_t(c) * n]; for (int k = c + 1; k < w; ++k) a[r + size_t(k) * n] -= m * a[c + size_t(k) * n]; }
  }
  double err = 0; int badp = 0;
  for (int c = 0; c < w; ++c) { if (gp[c] != hp[c]) ++badp; for (int r = 0; r < n; ++r) err = std::max(err, std::fabs(got[r + size_t(c) * n] - a[r + size_t(c) * n])); }
  printf("check: max err %.3e, pivots differing %d of %d\n", err, badp, w);
  // repeat timing
  t = omp_get_wtime();
  for (int i = 0; i < 20; ++i) omp_leaf::leaf(dev, da, n, 0, w, slab, groups, pv, pr, prs, rc, ipiv, word, st);
  printf("leaf x20: %.3f ms each\n", (omp_get_wtime() - t) / 20 * 1e3);
}
