#!/usr/bin/env bash
# Issue 57 on the H200, call 1 of 2026-12-02 evening: Clang's offload tests on the GPU with the
# fixed module, Clang's new LU panel (a region per column over many teams) and GEMM tuned kernel
# (register blocks, also LU's updates), swept and beside CUDA, ncu of both, the spec example's
# GCC offload from the carried cache, and the tracked set.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-call1.txt) 2>&1
pack() { cp $GPUBENCH_TUNING_DB/*.json $res/ 2>/dev/null; tar czf $OUT/res1.tar.gz -C $res .; }
left() { echo $((590 - SECONDS)); }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$g --version | head -1
echo "== 1. the offload tests on the GPU"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && env -u OMP_TARGET_OFFLOAD timeout 150 /tmp/g/gpu/bin/gpubench_omp_target_tests 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|Expected|Which is|actual" | tail -30)
date -u
echo "== 2. LU 8192 f64: CUDA and Clang's new panel and updates (GCC's unchanged: 3489 ms in the last call)"
timeout 90 $g run --backend cuda,omp_target_clang:0 --suite lu --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown --format json --out $res/lu-8192.json 2>&1 | grep -v -E '^\s*$' | grep -v -E '^  (vendor|v1|v2) on ' | tail -24
pack; date -u
echo "== 3. GEMM tuned on Clang swept at 4096 f64, then the table"
timeout 100 $g sweep --backend omp_target_clang:0 --suite gemm --problem 4096 --precision f64 --kernel tuned --exhaustive --time-budget 60 --param work_group_size=128,256,512 2>&1 | grep -v -E '^\s*$' | tail -8
timeout 80 $g run --backend cuda,omp_target_clang:0 --suite gemm --problem 4096 --precision f64 --variant tiled,tuned,tensor,vendor --repetitions 3 --format json --out $res/gemm-4096.json 2>&1 | grep -v -E '^\s*$' | tail -16
timeout 60 $g run --backend omp_target_clang:0 --suite lu --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown 2>&1 | grep -E "^omp|  (panel|laswp|trsm|gemm) " | tail -8
pack; date -u
echo "== 4. ncu: the panel's column_step and the tuned GEMM (LU 2048 on Clang)"
timeout 90 ncu --clock-control none --kernel-name regex:'column_step|omp_tuned' --launch-skip 200 --launch-count 4 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats $g run --backend omp_target_clang:0 --suite lu --problem 2048 --precision f64 --variant blocked --repetitions 1 --isolate off 2>&1 | grep -E "__omp_offloading|Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Stall|Warp Cycles Per Issued|==PROF==|rror" | head -60
date -u
echo "== 5. the spec example: GCC's offload object from the carried cache ($(left) s left)"
mkdir -p /tmp/k && tar xJf .gpu/kcache.tar.xz -C /tmp/k && export GPUBENCH_KERNEL_CACHE=/tmp/k/kcache
timeout 60 $g run --spec $root/examples/reduction/reduction.json --backend cuda,omp_target:0,omp_target_clang:0 --problem n=1048576 --precision f64 --repetitions 3 --format json --out $res/spec-reduction.json 2>&1 | grep -v '^\s*$' | tail -10
unset GPUBENCH_KERNEL_CACHE
pack; date -u
echo "== 6. the tracked set ($(left) s left)"
GPUBENCH_BINARY=$g timeout $(( $(left) - 10 )) python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL" | tail -40
pack; date -u
