#!/usr/bin/env bash
# Call 1: FT B fast on CUDA and Clang with 4bd4c15 (the transform regions take scalars only), six
# ways of writing CG's dot on Clang's runtime (dots.cpp), and CG poisson2d:4096 form1 on CUDA and
# Clang with the per-kernel breakdown.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call1.txt) 2>&1
pack() { tar czf $OUT/res1.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks_throttle_reasons.active --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; cat /proc/loadavg
echo "== 1. FT B fast, CUDA and Clang"
timeout 80 $g run --backend cuda,omp_target_clang:0 --suite ft --problem B --variant fast --repetitions 3 --breakdown --format json --out $res/ft-B.json 2>&1 | filt | grep -E "^(cuda|omp)|^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ |FAILED|WRONG|rror" | cut -c1-200 | head -20
pack; date -u
echo "== 2. CG's dot six ways on Clang's runtime"
timeout 60 .gpu/dots 2>&1 | filt | tail -12
echo "== 3. CG poisson2d:4096 form1, CUDA and Clang"
timeout 90 $g run --backend cuda,omp_target_clang:0 --suite cg --problem poisson2d:4096 --variant form1 --precision f64 --repetitions 3 --breakdown --format json --out $res/cg-4096.json 2>&1 | filt | grep -E "^(cuda|omp)|^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ |FAILED|WRONG|rror" | cut -c1-200 | head -24
pack; date -u
