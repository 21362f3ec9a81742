#!/usr/bin/env bash
# Call 3: the build that sets CUDA's default scheduling on the primary context libomptarget opens
# (backends/omp_target/omp_target.cpp, cuda_default_scheduling): dots.cpp on this machine (regions
# with libomptarget's blocking wait, then with CUDA's default), the four models one run per suite
# (the table), then the tracked set's Clang entries.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res/records
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call3.txt) 2>&1
pack() { tar czf $OUT/res3.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks_throttle_reasons.active --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; cat /proc/loadavg
echo "== 1. regions on Clang's runtime: libomptarget's blocking wait, then CUDA's default scheduling"
timeout 60 .gpu/dots 2>&1 | filt | tail -20
tab() { n=$1; shift; timeout 150 $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --repetitions 3 --format json --out $res/$n.json "$@" 2>&1 | filt | grep -E "^(cuda|opencl|omp)|^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ |FAILED|WRONG|crash|rror" | cut -c1-200 | head -70; pack; date -u; }
echo "== 2. the four models, one run per suite"
tab ft-B --suite ft --problem B --variant nas,fast,vendor --breakdown
tab cg-4096 --suite cg --problem poisson2d:4096 --precision f64 --breakdown
tab ep-C --suite ep --problem C
tab gemm-4096 --suite gemm --problem 4096 --precision f64 --variant tiled,tuned,tensor,vendor
tab lu-8192 --suite lu --problem 8192 --precision f64 --variant blocked,vendor
echo "== 3. the tracked set's Clang entries"
GPUBENCH_BINARY=$g timeout $((585 - SECONDS)) python3 $root/reports/track.py run --set $root/reports/nightly.json --only omp-clang-cg,omp-clang-ep,omp-clang-ft,omp-clang-gemm,omp-clang-lu --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL|rror" | tail -12
pack; date -u
