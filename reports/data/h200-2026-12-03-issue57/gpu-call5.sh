#!/usr/bin/env bash
# Call 5: call 4's standalone leaf verified (0 of 64 pivots off, 3.4e-15), but gpubench's Clang LU
# still stopped with an illegal memory access: gpubench's LU 150 in one process under
# compute-sanitizer, to name the kernel and the address.
set -u
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
cp .leaftest/libgpubench_omp_lu_leaf.so /tmp/g/gpu/lib/gpubench/
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin OMP_TARGET_OFFLOAD=MANDATORY
exec > >(tee $OUT/log-call5.txt) 2>&1
date -u
timeout 150 compute-sanitizer --tool memcheck --print-limit 6 /tmp/g/gpu/bin/gpubench run --backend omp_target_clang:0 --suite lu --problem 150 --precision f64 --variant blocked --repetitions 1 --isolate off 2>&1 | grep -v "loop not vectorized" | head -70
date -u
