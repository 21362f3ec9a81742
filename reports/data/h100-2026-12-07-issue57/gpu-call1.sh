#!/usr/bin/env bash
# Issue 57 on the H100, 2026-12-07, call 1 (main 8e13f56): the offload devices listed, the region
# probe (dots.cpp of reports/data/h200-2026-12-04-late-issue57: regions with libomptarget's blocking
# wait, then after CUDA's default scheduling is set in the same process), then the table:
# CUDA, OpenCL, GCC's and Clang's OpenMP offload, one run per suite.
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
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg; $g --version | head -2
echo "== 1. the offload devices"
timeout 90 $g --list-devices 2>&1 | sed -n '/^omp_target/,/^openmp:/p' | filt | head -30
echo "== 2. regions on Clang's runtime: libomptarget's blocking wait, then CUDA's default scheduling"
timeout 60 .gpu/dots 2>&1 | filt | tail -24
date -u
tab() { n=$1; t=$2; shift 2; timeout $t $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --repetitions 3 --format json --out $res/$n.json "$@" 2>&1 | filt | grep -v -E '^  [a-z_]+:[0-9] +[0-9.]+ GB/s' | grep -E "^(cuda|opencl|omp)|^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ |^  [a-z_0-9]+ +[0-9.]+ ms|FAILED|WRONG|crash|rror|  on |gap" | cut -c1-220 | head -80; pack; date -u; }
echo "== 3. the four models, one run per suite"
tab ft-B 110 --suite ft --problem B --variant nas,fast,vendor --breakdown
tab cg-4096 100 --suite cg --problem poisson2d:4096 --precision f64 --breakdown
tab ep-C 70 --suite ep --problem C
tab gemm-4096 100 --suite gemm --problem 4096 --precision f64 --variant tiled,tuned,tensor,vendor
tab lu-8192 $((590 - SECONDS)) --suite lu --problem 8192 --precision f64 --variant blocked,vendor --breakdown
