// Two helpers of the Clang OpenMP kernels that hold team memory (kernels/lu/omp_target_device.cpp,
// kernels/ft/omp_target_device.cpp), for LLVM 19's NVPTX back end.
#pragma once

namespace gpubench::omp_clang {

#pragma omp declare target
// *p = v, seen by every team (LLVM 19's NVPTX back end selects no release store: PTX's own).
inline void publish(int* p, int v) {
#ifdef __NVPTX__
  asm volatile("st.relaxed.gpu.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}
#pragma omp end declare target

#ifdef __NVPTX__
// A team-memory variable's address, hidden from the optimiser: LLVM 19 turned a team-memory
// variable that only one kernel uses, and no call takes the address of, into each thread's own
// (the LU leaf's `flag`: its threads then read no meeting's outcome, and the leaf's pivots came
// out wrong on the H200, reports/data/h200-2026-12-03-issue57); one whose address leaves through
// an asm stays the team's.
template <typename P>
__attribute__((always_inline)) inline P* held(P* p) {
  asm volatile("" : "+l"(p));
  return p;
}
#endif

}  // namespace gpubench::omp_clang
