#!/usr/bin/env bash
# Call 1: Clang's LU with CUDA's row swaps (lu_laswp) and trsm (lu_trtri, then GEMM): LU 8192
# f64 on CUDA, OpenCL and Clang with the breakdown; the LU offload tests; compute-sanitizer
# memcheck and racecheck over a small Clang LU; a sweep of nb and base for Clang at 8192; the
# same three backends again with the sweep's entry; the tracked set's omp-clang-lu.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; mkdir -p $res/records
cp -r $root/tuning-db $res/tdb
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call1.txt) 2>&1
pack() { tar czf $OUT/res1.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. LU 8192 f64: CUDA, OpenCL, Clang"
timeout 60 $g run --backend cuda,opencl:1,omp_target_clang:0 --suite lu --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown --format json --out $res/lu-8192.json 2>&1 | filt | grep -E "^(cuda|opencl|omp)|panel |laswp |trsm |gemm |overhead|FAILED|crash|rror" | head -24
python3 -c "
import json; d=json.load(open('$res/lu-8192.json'))
for b in d['benchmarks']:
  if b.get('run_type')!='aggregate' and 'clang' in b['name']: print(b['name'], b.get('verified'), '|', b.get('panel'), '|', [c.get('by')+': '+c.get('cause')[:100] for c in b.get('gap_causes',[])])" | sort -u
pack; date -u
echo "== 2. the LU offload tests on the GPU"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && env -u OMP_TARGET_OFFLOAD timeout 60 /tmp/g/gpu/bin/gpubench_omp_target_tests --gtest_filter='*Lu*:*RanOnTheHost*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED|     OK) |Failure|Expected|Which is|actual|rror" | tail -14)
date -u
echo "== 3. compute-sanitizer memcheck and racecheck, Clang LU 300 f64 (nb 128, base 32: leaves, swaps, inverses)"
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 6 $g run --backend omp_target_clang:0 --suite lu --problem 300 --precision f64 --variant blocked --repetitions 1 --isolate off --tuning off 2>&1 | filt | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|hazard|verified|FAILED|rror" | head -12
  date -u
done
echo "== 4. sweep nb x base, Clang LU 8192 f64"
timeout 150 $g sweep --suite lu --backend omp_target_clang:0 --problem 8192 --precision f64 --param nb=128,256,512 --param base=32,64 --tuning-db $res/tdb --format json --out $res/sweep-lu.json 2>&1 | filt | tail -14
pack; date -u
echo "== 5. LU 8192 f64 again, Clang with the sweep's entry"
timeout 60 $g run --backend cuda,opencl:1,omp_target_clang:0 --suite lu --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown --tuning-db $res/tdb --format json --out $res/lu-8192-tuned.json 2>&1 | filt | grep -E "^(cuda|opencl|omp)|panel |laswp |trsm |gemm |overhead|FAILED|crash|rror" | head -24
pack; date -u
echo "== 6. the tracked set's omp-clang-lu"
GPUBENCH_BINARY=$g timeout 40 python3 $root/reports/track.py run --set $root/reports/nightly.json --only omp-clang-lu --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL" | tail -3
pack; date -u
