#!/usr/bin/env bash
# Session 2026-12-02 late, call 1: Clang's OpenMP tensor kernel on the GPU (its tests, GEMM 4096
# beside CUDA and OpenCL, a sweep of its configurations, ncu of one launch), LU 8192 with its
# updates on it, the spec example from a cache filled on the host, (the tracked set in call 2).
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-call2.txt) 2>&1
pack() { cp $GPUBENCH_TUNING_DB/*.json $res/ 2>/dev/null; tar czf $OUT/res2.tar.gz -C $res .; }
left() { echo $((590 - SECONDS)); }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. LU 8192 f64: CUDA, OpenCL, Clang (tensor updates), GCC"
timeout 100 $g run --backend cuda,opencl:1,omp_target_clang:0,omp_target:0 --suite lu --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown --format json --out $res/lu-8192.json 2>&1 | grep -v -E '^\s*$' | grep -v -E '^  (vendor|v1|v2) on ' | tail -30
pack; date -u
echo "== 2. the spec example: offload objects from a cache filled on the host"
mkdir -p /tmp/k && tar xJf .gpu/kcache.tar.xz -C /tmp/k && export GPUBENCH_KERNEL_CACHE=/tmp/k/kcache
timeout 60 $g run --spec $root/examples/reduction/reduction.json --backend cuda,opencl:1,openmp,omp_target:0,omp_target_clang:0 --problem n=1048576 --precision f64 --repetitions 3 --format json --out $res/spec-reduction.json 2>&1 | grep -v '^\s*$' | tail -12
timeout 60 $g sweep --spec $root/examples/reduction/reduction.json --backend omp_target:0,omp_target_clang:0 --problem n=1048576 --precision f64 --param group=64,256 --param items=1,8 --param final=64,256 --exhaustive --tuning-db /tmp/spec-db 2>&1 | grep -v '^\s*$' | tail -10
unset GPUBENCH_KERNEL_CACHE
pack; date -u
echo "== 3. the tracked set ($(left) s left)"
GPUBENCH_BINARY=$g timeout $(( $(left) - 70 )) python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL" | tail -40
pack; date -u
echo "== 4. ncu: one launch of the tensor kernel at 4096 ($(left) s left)"
( ncu --clock-control none --kernel-name regex:'omp_tensor' --launch-skip 1 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis $g run --backend omp_target_clang:0 --suite gemm --problem 4096 --precision f64 --variant tensor --repetitions 1 --isolate off > $res/ncu-tensor.txt 2>&1 ) &
for i in $(seq 1 50); do sleep 1; if ! pgrep -f "ncu --clock" > /dev/null; then break; fi; done
pkill -9 -f "ncu --clock"; pkill -9 -f "gpubench run --backend omp_target_clang"
grep -E "__omp_offloading|Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Stall|Warp Cycles Per Issued|Block Limit|==PROF==|rror" $res/ncu-tensor.txt | head -50
pack; date -u
