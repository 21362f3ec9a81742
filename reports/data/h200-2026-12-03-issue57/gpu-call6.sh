#!/usr/bin/env bash
# Call 6: call 5 named the old probe (meet at line 160, 1111603's) as the kernel that faulted:
# gpubench loads the leaf's library from the bundle's lib/ (LD_LIBRARY_PATH comes before the
# module's RUNPATH), where calls 3 to 5 had not put the rebuilt one. Now in both places: LU 8192
# on CUDA, OpenCL and Clang, the LU offload tests, the tracked set's omp-clang-lu.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
cp .leaftest/libgpubench_omp_lu_leaf.so /tmp/g/gpu/lib/gpubench/ && cp .leaftest/libgpubench_omp_lu_leaf.so /tmp/g/gpu/lib/
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-call6.txt) 2>&1
pack() { tar czf $OUT/res6.tar.gz -C $res .; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. LU 8192 f64: CUDA, OpenCL, Clang (the leaf)"
timeout 45 $g run --backend cuda,opencl:1,omp_target_clang:0 --suite lu --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown --format json --out $res/lu-8192.json 2>&1 | grep -v -E '^\s*$|loop not vectorized' | grep -E "^(cuda|opencl|omp)|panel |laswp |trsm |gemm |overhead|FAILED|crash|rror" | head -24
python3 -c "
import json; d=json.load(open('$res/lu-8192.json'))
for b in d['benchmarks']:
  if b.get('run_type')!='aggregate' and 'clang' in b['name']: print(b['name'], b.get('verified'), '|', b.get('panel'), '|', [c.get('by')+': '+c.get('cause')[:100] for c in b.get('gap_causes',[])])" | sort -u
pack; date -u
echo "== 2. the tracked set's omp-clang-lu"
GPUBENCH_BINARY=$g timeout 30 python3 $root/reports/track.py run --set $root/reports/nightly.json --only omp-clang-lu --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL" | tail -3
pack; date -u
echo "== 3. the LU offload tests on the GPU"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && env -u OMP_TARGET_OFFLOAD timeout 50 /tmp/g/gpu/bin/gpubench_omp_target_tests --gtest_filter='*LuBlocked*:*RanOnTheHost*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED|     OK) |Failure|Expected|Which is|actual|rror" | tail -12)
date -u
