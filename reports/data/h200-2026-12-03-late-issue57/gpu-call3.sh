#!/usr/bin/env bash
# Call 3: (1) why call 2's FT fast on Clang failed its team check on class B's z axis and with
# radix 16: the runtime's launch info and the threads the failing team saw; (2) the four models
# side by side, one run per suite; (3) the tracked set.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res/records
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call3.txt) 2>&1
pack() { tar czf $OUT/res3.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. FT B fast on Clang, the runtime's launches (LIBOMPTARGET_INFO=1)"
LIBOMPTARGET_INFO=1 timeout 40 $g run --backend omp_target_clang:0 --suite ft --problem B --variant fast --repetitions 1 --tuning off --isolate off > $res/info-B.txt 2>&1
grep -E "FAILED|verified|threads in a team" $res/info-B.txt | cut -c1-400 | head -5
grep -E "Launching kernel" $res/info-B.txt | sed -E 's/0x[0-9a-f]+//g' | sort | uniq -c | sort -rn | cut -c1-300 | head -10
LIBOMPTARGET_INFO=1 timeout 30 $g sweep --backend omp_target_clang:0 --suite ft --problem W --kernel cffts2 --param radix=16 --param lines=4 --strategy exhaustive --tuning-db $res/tdbw > $res/info-W.txt 2>&1
grep -E "launch failed|configurations" $res/info-W.txt | cut -c1-400 | head -3
grep -E "Launching kernel" $res/info-W.txt | sed -E 's/0x[0-9a-f]+//g' | sort | uniq -c | sort -rn | cut -c1-300 | head -6
pack; date -u
echo "== 2. the four models, one run per suite"
tab() { n=$1; shift; timeout 150 $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --repetitions 3 --format json --out $res/$n.json "$@" 2>&1 | filt | grep -E "^(cuda|opencl|omp)|FAILED|WRONG|crash|rror|\[(forced|gpubench|the compiler)" | cut -c1-330 | head -40; pack; date -u; }
tab cg-4096 --suite cg --problem poisson2d:4096 --precision f64
tab ep-C --suite ep --problem C
tab ft-B --suite ft --problem B --variant nas,fast,vendor --breakdown
tab gemm-4096 --suite gemm --problem 4096 --precision f64 --variant tiled,tuned,tensor,vendor
tab lu-8192 --suite lu --problem 8192 --precision f64 --variant blocked,vendor --breakdown
echo "== 3. tracked set"
GPUBENCH_BINARY=$g timeout $((590 - SECONDS)) python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL" | tail -16
pack; date -u
