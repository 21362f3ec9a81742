#!/usr/bin/env bash
# Call 3: FT's complex values 16-byte aligned on Clang (v2.f64 loads and stores, as CUDA's): ncu of
# Clang's FT A fast, then the four models, one run per suite, with the committed tuning database.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call3.txt) 2>&1
pack() { tar czf $OUT/res3.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. ncu of Clang's FT A fast (application only)"
timeout -s KILL 60 ncu --clock-control none --target-processes application-only -k regex:runILi -c 3 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis $g run --backend omp_target_clang:0 --suite ft --problem A --variant fast --repetitions 1 --tuning off --isolate off > $res/ncu-clang-ft-A.txt 2>&1; echo "ncu rc $?"
grep -E "runILi|Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Memory Throughput|==ERR" $res/ncu-clang-ft-A.txt | sed -E 's/__omp_offloading_[0-9a-f_]+__ZN8gpubench2ft8omp_fast12_GLOBAL__N_1//' | cut -c1-120 | head -24
pack; date -u
tab() { n=$1; shift; timeout 150 $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --repetitions 3 --format json --out $res/$n.json "$@" 2>&1 | filt | grep -E "^(cuda|opencl|omp)|^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ |FAILED|WRONG|crash|rror" | cut -c1-200 | head -70; pack; date -u; }
echo "== 2. the four models, one run per suite"
tab ft-B --suite ft --problem B --variant nas,fast,vendor --breakdown
tab cg-4096 --suite cg --problem poisson2d:4096 --precision f64 --breakdown
tab ep-C --suite ep --problem C
tab gemm-4096 --suite gemm --problem 4096 --precision f64 --variant tiled,tuned,tensor,vendor
tab lu-8192 --suite lu --problem 8192 --precision f64 --variant blocked,vendor
