#!/usr/bin/env bash
# Call 4: call 3's standalone leaf ran, but its pivots came out wrong: LLVM 19 had made the
# leaf's team-memory `flag` each thread's own (the PTX declares no shared `flag`). The library
# rebuilt with the team memory's addresses passed through an empty asm (.leaftest/, over the
# bundle's), the standalone check (t_v3) first; then LU 8192 on the four backends, a sweep of
# Clang's blocking, the LU offload tests, and the tracked set's omp-clang-lu run. (Its first try
# got no machine; the second ran with 380 s of the session's device time left to it.)
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
cp .leaftest/libgpubench_omp_lu_leaf.so /tmp/g/gpu/lib/gpubench/
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-call4.txt) 2>&1
pack() { cp $GPUBENCH_TUNING_DB/*.json $res/ 2>/dev/null; tar czf $OUT/res4.tar.gz -C $res .; }
left() { echo $((380 - SECONDS)); }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. the standalone leaf"
for nw in "150 32" "8192 64"; do echo "-- $nw"; timeout 30 .leaftest/t_v3 $nw 2>&1 | grep -v "loop not vectorized" | tail -5; done
date -u
echo "== 2. LU 8192 f64: CUDA, OpenCL, Clang (the leaf), GCC"
timeout 150 $g run --backend cuda,opencl:1,omp_target_clang:0,omp_target:0 --suite lu --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown --format json --out $res/lu-8192.json 2>&1 | grep -v -E '^\s*$|loop not vectorized' | grep -E "^(cuda|opencl|omp)|panel |laswp |trsm |gemm |overhead|FAILED|crash|rror" | head -40
python3 -c "
import json; d=json.load(open('$res/lu-8192.json'))
for b in d['benchmarks']:
  if b.get('run_type')!='aggregate' and 'clang' in b['name']: print(b['name'], b.get('verified'), '|', b.get('panel'), '|', [c.get('by')+': '+c.get('cause')[:100] for c in b.get('gap_causes',[])])" | sort -u
pack; date -u
echo "== 3. sweep of Clang's LU blocking at 8192, then 8192 and 2048 from it ($(left) s left)"
timeout 80 $g sweep --backend omp_target_clang:0 --suite lu --problem 8192 --precision f64 --param nb=128,256,512 --param base=32,64 --exhaustive 2>&1 | grep -v -E '^\s*$|loop not vectorized' | tail -9
timeout 40 $g run --backend omp_target_clang:0 --suite lu --problem 8192,2048 --precision f64 --variant blocked --repetitions 3 --format json --out $res/lu-clang-tuned.json 2>&1 | grep -E "^omp_target_clang|FAILED" | cut -c1-160
pack; date -u
echo "== 4. the LU offload tests on the GPU ($(left) s left)"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && env -u OMP_TARGET_OFFLOAD timeout 70 /tmp/g/gpu/bin/gpubench_omp_target_tests --gtest_filter='*Lu*:*Gaps*:*RanOnTheHost*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED|     OK) |tests ran|Failure|Expected|Which is|actual|rror" | tail -20)
date -u
echo "== 5. the tracked set's omp-clang-lu ($(left) s left)"
GPUBENCH_BINARY=$g timeout $(( $(left) - 10 )) python3 $root/reports/track.py run --set $root/reports/nightly.json --only omp-clang-lu --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL" | tail -5
pack; date -u
