#!/usr/bin/env bash
# Call 2: what a region costs on Clang's runtime outside its kernel on this machine (dots.cpp: the dot six
# ways, an empty region, a one-element one, axpy synchronous and nowait), FT B fast and CG
# poisson2d:4096 form1 on CUDA and Clang with the breakdown (a second machine), then the tracked set.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res/records
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call2.txt) 2>&1
pack() { tar czf $OUT/res2.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks_throttle_reasons.active --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; cat /proc/loadavg
echo "== 1. FT B fast, CUDA and Clang"
timeout 80 $g run --backend cuda,omp_target_clang:0 --suite ft --problem B --variant fast --repetitions 3 --breakdown --format json --out $res/ft-B.json 2>&1 | filt | grep -E "^(cuda|omp)|^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ |FAILED|WRONG|rror" | cut -c1-200 | head -20
pack; date -u
echo "== 2. CG's dot six ways, and regions outside their kernels, on Clang's runtime"
timeout 60 .gpu/dots 2>&1 | filt | tail -16
echo "== 3. CG poisson2d:4096 form1, CUDA and Clang"
timeout 90 $g run --backend cuda,omp_target_clang:0 --suite cg --problem poisson2d:4096 --variant form1 --precision f64 --repetitions 3 --breakdown --format json --out $res/cg-4096.json 2>&1 | filt | grep -E "^(cuda|omp)|^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ |FAILED|WRONG|rror" | cut -c1-200 | head -24
pack; date -u
echo "== 3b. EP C, CUDA and Clang"
timeout 60 $g run --backend cuda,omp_target_clang:0 --suite ep --problem C --repetitions 3 --format json --out $res/ep-C.json 2>&1 | filt | grep -E "^(cuda|omp)|FAILED|WRONG|rror" | cut -c1-200 | head -8
pack; date -u
echo "== 4. tracked set"
GPUBENCH_BINARY=$g timeout $((590 - SECONDS)) python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL|rror" | tail -20
pack; date -u
