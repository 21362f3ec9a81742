#!/usr/bin/env bash
# Call 5: the machine's clocks and throttle state, FT B fast on CUDA and Clang (committed tuning
# database), and ncu of both APIs' y and z transforms at class B at those shapes.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call5.txt) 2>&1
pack() { tar czf $OUT/res5.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks_throttle_reasons.active --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; cat /proc/loadavg
echo "== 1. FT B fast, CUDA and Clang"
timeout 80 $g run --backend cuda,omp_target_clang:0 --suite ft --problem B --variant fast --repetitions 3 --breakdown --format json --out $res/ft-B.json 2>&1 | filt | grep -E "^(cuda|omp)|^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ |FAILED|WRONG|rror" | cut -c1-200 | head -20
pack; date -u
echo "== 2. ncu: Clang's y and z transforms (radix 16, 8 lines) and CUDA's, FT B"
timeout -s KILL 55 ncu --clock-control none --target-processes application-only -k regex:runILi16ELi2048 -c 2 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats $g run --backend omp_target_clang:0 --suite ft --problem B --variant fast --repetitions 1 --isolate off > $res/ncu-clang-ft-B.txt 2>&1; echo "ncu rc $?"
timeout -s KILL 45 ncu --clock-control none --target-processes application-only -k regex:fft_fast --launch-skip 1 -c 2 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats $g run --backend cuda --suite ft --problem B --variant fast --repetitions 1 --isolate off > $res/ncu-cuda-ft-B.txt 2>&1; echo "ncu rc $?"
for f in clang cuda; do grep -E "runILi|fft_fast|Duration|Registers Per|Achieved Occupancy|DRAM Throughput|L1/TEX Hit|Mem Busy|Max Bandwidth|Issue Slot|Stall|Warp Cycles Per Issued|==ERR" $res/ncu-$f-ft-B.txt | sed -E 's/__omp_offloading_[0-9a-f_]+__ZN8gpubench2ft8omp_fast12_GLOBAL__N_1//' | cut -c1-110 | head -24; done
pack; date -u
