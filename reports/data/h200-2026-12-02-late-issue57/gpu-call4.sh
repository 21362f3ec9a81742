#!/usr/bin/env bash
# Call 4: Clang's EP reduce with this session's module, and with the same module built without
# GEMM's and LU's tensor code (their omp_target.cpp as at 3dab600).
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench; m=/tmp/g/gpu/lib/gpubench/libgpubench_omp_target_clang.so
exec > >(tee $OUT/log-call4.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
for mod in new notensor new; do
  cp .gpu/mod-$mod.so $m
  echo "== EP A reduce and partials, module $mod"
  timeout 35 $g run --backend omp_target_clang:0 --suite ep --problem A --variant reduce,partials --repetitions 3 2>&1 | grep -E "^omp_target_clang|FAILED" | cut -c1-200
done
echo "== CG poisson2d:512 form1 (its dots reduce), module new"
timeout 30 $g run --backend omp_target_clang:0 --suite cg --problem poisson2d:512 --variant classic,form1 --repetitions 2 2>&1 | grep -E "^omp_target_clang|FAILED" | cut -c1-200
date -u
