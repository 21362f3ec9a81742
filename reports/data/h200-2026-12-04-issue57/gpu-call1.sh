#!/usr/bin/env bash
# Call 1: FT's fast on Clang with device.h's functions always inlined (96 registers and no stack
# at radix 8, where `inline` gave 204 and 240 bytes): the runtime's launches, ncu of both APIs'
# fast kernels, a sweep of fast's shapes at class B on CUDA and on Clang, then FT B on the four
# models with the sweeps' entries, and CG poisson2d:4096 with --breakdown.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res
cp -r $root/tuning-db $res/tdb
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call1.txt) 2>&1
pack() { tar czf $OUT/res1.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. FT A fast on Clang, the runtime's launches (LIBOMPTARGET_INFO=16)"
LIBOMPTARGET_INFO=16 timeout 40 $g run --backend omp_target_clang:0 --suite ft --problem A --variant fast --repetitions 1 --tuning off --isolate off > $res/info-A.txt 2>&1
grep -E "FAILED|verified|threads in a team" $res/info-A.txt | cut -c1-300 | head -3
grep -iE "launching kernel" $res/info-A.txt | sed -E 's/0x[0-9a-f]+//g' | sort | uniq -c | sort -rn | cut -c1-300 | head -8
date -u
echo "== 2. ncu: Clang's and CUDA's fast kernels, FT A (3 launches each)"
timeout -s KILL 80 ncu --clock-control none --target-processes all -k regex:runILi -c 3 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis $g run --backend omp_target_clang:0 --suite ft --problem A --variant fast --repetitions 1 --tuning off --isolate off > $res/ncu-clang-ft-A.txt 2>&1; echo "ncu rc $?"
grep -E "runILi|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Memory Throughput|Block Size|Grid Size|Local|Shared Memory Config|==PROF==|==ERR" $res/ncu-clang-ft-A.txt | cut -c1-200 | head -40
date -u
timeout -s KILL 60 ncu --clock-control none --target-processes all -k regex:fft_fast -c 3 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis $g run --backend cuda --suite ft --problem A --variant fast --repetitions 1 --tuning off --isolate off > $res/ncu-cuda-ft-A.txt 2>&1; echo "ncu rc $?"
grep -E "fft_fast|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Memory Throughput|Block Size|Grid Size|==PROF==|==ERR" $res/ncu-cuda-ft-A.txt | cut -c1-200 | head -30
pack; date -u
echo "== 3. sweep fast's shapes at class B, CUDA and Clang"
for b in cuda omp_target_clang:0; do
  timeout 90 $g sweep --suite ft --backend $b --problem B --time-budget 15 --tuning-db $res/tdb --format json --out $res/sweep-ft-$(echo $b | tr -d ':0').json 2>&1 | filt | grep -E "best|FAIL|rror" | cut -c1-250 | tail -8
  pack; date -u
done
echo "== 4. FT B on the four models (the sweeps' entries)"
timeout 150 $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --suite ft --problem B --variant nas,fast,vendor --repetitions 3 --breakdown --tuning-db $res/tdb --format json --out $res/ft-B.json 2>&1 | filt | grep -E "^(cuda|opencl|omp)|cffts|evolve|checksum|setup|overhead|FAILED|WRONG|crash|rror|\[(forced|gpubench|the compiler)" | cut -c1-330 | head -70
pack; date -u
echo "== 5. CG poisson2d:4096 f64 on the four models, --breakdown"
timeout $((585 - SECONDS)) $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --suite cg --problem poisson2d:4096 --precision f64 --repetitions 3 --breakdown --tuning-db $res/tdb --format json --out $res/cg-4096.json 2>&1 | filt | grep -vE "^  (opencl|omp_target):" | cut -c1-330 | head -90
pack; date -u
