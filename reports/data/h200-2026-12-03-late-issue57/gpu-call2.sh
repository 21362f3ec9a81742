#!/usr/bin/env bash
# Call 2: FT's fast on Clang (kernels/ft/device.h's ft_fast_lines in team memory): its offload
# test, compute-sanitizer over class S, a sweep of its shapes at class B, then FT B on the four
# models with the sweep's entries.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res/records
cp -r $root/tuning-db $res/tdb
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call2.txt) 2>&1
pack() { tar czf $OUT/res2.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. the FT fast offload test on the GPU"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && env -u OMP_TARGET_OFFLOAD timeout 90 /tmp/g/gpu/bin/gpubench_omp_target_tests --gtest_filter='*FtFast*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED|     OK) |Failure|Expected|Which is|actual|rror|WRONG|class" | head -30)
date -u
echo "== 2. compute-sanitizer memcheck and racecheck, Clang FT S fast"
for tool in memcheck racecheck; do
  timeout 80 compute-sanitizer --tool $tool --print-limit 6 $g run --backend omp_target_clang:0 --suite ft --problem S --variant fast --repetitions 1 --isolate off --tuning off 2>&1 | filt | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|hazard|verified|WRONG|FAILED|rror" | head -12
  date -u
done
echo "== 3. sweep fast's shapes, Clang FT B"
timeout 150 $g sweep --suite ft --backend omp_target_clang:0 --problem B --time-budget 40 --tuning-db $res/tdb --format json --out $res/sweep-ft.json 2>&1 | filt | grep -v "^gpubench: sweep omp" | tail -16
pack; date -u
echo "== 4. FT B on the four models (Clang with the sweep's entries)"
timeout 150 $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --suite ft --problem B --repetitions 3 --breakdown --tuning-db $res/tdb --format json --out $res/ft-B.json 2>&1 | filt | grep -E "^(cuda|opencl|omp)|cffts|evolve |checksum |setup |FAILED|WRONG|crash|rror|unavail|on omp" | head -50
pack; date -u
