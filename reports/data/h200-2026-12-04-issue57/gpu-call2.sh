#!/usr/bin/env bash
# Call 2: FT's fast on Clang with its checksum on the device (device.h's ft_checksum, the sums read
# once at the end): its offload tests on the GPU, ncu of Clang's kernels (ncu told to follow the
# application only: call 1's ncu waited on the runtime's ptxas child), an exhaustive sweep of
# Clang's x transform at class B, then FT B, EP C, GEMM 4096 and LU 8192 on the four models with
# the committed tuning database (call 1's FT sweeps in it).
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res
cp -r $root/tuning-db $res/tdb
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call2.txt) 2>&1
pack() { tar czf $OUT/res2.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. the FT offload tests on the GPU"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && env -u OMP_TARGET_OFFLOAD timeout 90 /tmp/g/gpu/bin/gpubench_omp_target_tests --gtest_filter='*Ft*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED|     OK) |Failure|Expected|Which is|actual|rror|WRONG" | head -30)
date -u
echo "== 2. ncu of Clang's FT A fast (application only)"
timeout -s KILL 70 ncu --clock-control none --target-processes application-only -k regex:omp_offloading -c 4 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis $g run --backend omp_target_clang:0 --suite ft --problem A --variant fast --repetitions 1 --tuning off --isolate off > $res/ncu-clang-ft-A.txt 2>&1; echo "ncu rc $?"
grep -E "omp_offloading|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Memory Throughput|Block Size|Grid Size|Local|==PROF==|==ERR|==WARN" $res/ncu-clang-ft-A.txt | sed -E 's/__omp_offloading_[0-9a-f_]+__ZN8gpubench2ft8omp_fast12_GLOBAL__N_1//' | cut -c1-160 | head -44
pack; date -u
echo "== 3. exhaustive sweep of Clang's cffts1 at class B"
timeout 80 $g sweep --suite ft --backend omp_target_clang:0 --problem B --kernel cffts1 --strategy exhaustive --time-budget 40 --tuning-db $res/tdb --format json --out $res/sweep-ft-clang-cffts1.json 2>&1 | filt | grep -E "best|FAIL|rror" | cut -c1-250 | tail -6
pack; date -u
tab() { n=$1; shift; timeout 150 $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --repetitions 3 --tuning-db $res/tdb --format json --out $res/$n.json "$@" 2>&1 | filt | grep -E "^(cuda|opencl|omp)|^  (setup|cffts|checksum|evolve|overhead|panel|laswp|trsm|gemm) |FAILED|WRONG|crash|rror|\[(forced|gpubench|the compiler)" | cut -c1-300 | head -60; pack; date -u; }
echo "== 4. the four models"
tab ft-B --suite ft --problem B --variant nas,fast,vendor --breakdown
tab ep-C --suite ep --problem C
tab gemm-4096 --suite gemm --problem 4096 --precision f64 --variant tiled,tuned,tensor,vendor
tab lu-8192 --suite lu --problem 8192 --precision f64 --variant blocked,vendor --breakdown
