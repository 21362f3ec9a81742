#!/usr/bin/env bash
# Issue 57 item 2 on the H200, call 1: Clang 19's OpenMP offload on the GPU (libcuda.so link),
# its launch swept, then the four models side by side per suite, then the tracked set.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-call1.txt) 2>&1
pack() { cp $GPUBENCH_TUNING_DB/*.json $res/ 2>/dev/null; tar czf $OUT/res1.tar.gz -C $res .; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$g --version | head -3
echo "== 0. the runtime's libraries"
for f in /tmp/g/gpu/lib/gpubench/libgpubench_omp_target_clang.so /tmp/g/gpu/lib/libomptarget.so*; do echo "$f: $(ldd $f | grep -c 'not found') not found"; ldd $f | grep 'not found'; done
ls -la /tmp/g/gpu/lib/libcuda.so
echo "== 1. devices"
timeout 120 $g --list-devices 2>&1 | grep -v '^ *$' | head -40
echo "== 2. Clang smoke: EP S, the runtime's launch info"
LIBOMPTARGET_INFO=4 timeout 60 $g --suite ep --backend omp_target_clang:0 --problem S --variant reduce --repetitions 1 2>&1 | head -30
LIBOMPTARGET_INFO=0 timeout 60 $g --suite ep --backend omp_target_clang:0 --problem S --repetitions 1 2>&1 | grep -E "omp_target|FAIL|rror" | head
echo "== 3. Clang's launches swept (H200, f64)"
sw() { timeout $1 $g sweep --backend omp_target_clang:0 --exhaustive --time-budget 25 --precision f64 "${@:2}" 2>&1 | grep -v -E '^\s*$' | tail -14; }
sw 100 --suite cg --problem poisson2d:4096 --param work_group_size=128,256,512,1024 --param work_groups_per_cu=2,4,8,16
sw 60 --suite ep --problem C --param work_group_size=128,256,512,1024 --param work_groups_per_cu=2,4,8,16
sw 80 --suite gemm --problem 4096 --kernel tiled --param tile=16,32,64 --param work_group_size=64,128,256,512
pack; date -u
echo "== 4. the four models, one run per suite"
tab() { n=$1; shift; timeout 150 $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --repetitions 3 --format json --out $res/$n.json "$@" 2>&1 | grep -v -E '^\s*$' | tail -40; }
tab cg-4096 --suite cg --problem poisson2d:4096 --precision f64 --breakdown
tab ep-C --suite ep --problem C
tab ft-B --suite ft --problem B --breakdown
tab gemm-4096 --suite gemm --problem 4096 --precision f64 --variant naive,tiled,tuned,tensor,vendor
tab lu-8192 --suite lu --problem 8192 --precision f64 --variant blocked,vendor --breakdown
pack; date -u
echo "== 5. tracked set"
GPUBENCH_BINARY=$g timeout $((585 - SECONDS)) python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | tail -8
pack; date -u
