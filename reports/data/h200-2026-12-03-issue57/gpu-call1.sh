#!/usr/bin/env bash
# Session 2026-12-03, call 1: EP's reduce on Clang with the tensor kernel in its own image
# (578acbb), Clang's LU with CUDA's leaf (1111603) beside CUDA, OpenCL and GCC at 8192, a sweep of
# its blocking, the offload tests on the GPU, the spec example from a cache filled on the host.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res
exec > >(tee $OUT/log-call1.txt) 2>&1
pack() { cp $GPUBENCH_TUNING_DB/*.json $res/ 2>/dev/null; tar czf $OUT/res1.tar.gz -C $res .; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. EP A on Clang, both reductions"
timeout 60 $g run --backend omp_target_clang:0 --suite ep --problem A --variant reduce,partials --repetitions 5 2>&1 | grep -E "^omp_target_clang|FAILED|wrong|rel err" | cut -c1-200
date -u
echo "== 2. LU 8192 f64: CUDA, OpenCL, Clang (the leaf), GCC"
timeout 150 $g run --backend cuda,opencl:1,omp_target_clang:0,omp_target:0 --suite lu --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown --format json --out $res/lu-8192.json 2>&1 | grep -v -E '^\s*$' | grep -v -E '^  (vendor|v1|v2) on ' | tail -32
python3 -c "
import json; d=json.load(open('$res/lu-8192.json'))
for b in d['benchmarks']: print(b['name'], b.get('verified'), '|', b.get('panel'), '|', [c.get('by')+': '+c.get('cause')[:90] for c in b.get('gap_causes',[])])"
pack; date -u
echo "== 3. sweep of Clang's LU blocking at 8192"
timeout 120 $g sweep --backend omp_target_clang:0 --suite lu --problem 8192 --precision f64 --param nb=128,256,512 --param base=32,64 --exhaustive 2>&1 | grep -v -E '^\s*$' | tail -12
timeout 40 $g run --backend omp_target_clang:0 --suite lu --problem 8192,2048 --precision f64 --variant blocked --repetitions 3 --format json --out $res/lu-clang-tuned.json 2>&1 | grep -E "^omp_target_clang|FAILED" | cut -c1-160
pack; date -u
echo "== 4. the offload tests on the GPU"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && env -u OMP_TARGET_OFFLOAD timeout 150 /tmp/g/gpu/bin/gpubench_omp_target_tests --gtest_filter='*Lu*:*Ep*:*Tensor*:*Gaps*:*RanOnTheHost*:*Gemm*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED|     OK) |tests ran|Failure|Expected|Which is|actual|rror" | tail -30)
date -u
echo "== 5. the spec example: offload objects from a cache filled on the host (items 1, 4, 8)"
mkdir -p /tmp/k && tar xJf .gpu/kcache.tar.xz -C /tmp/k && export GPUBENCH_KERNEL_CACHE=/tmp/k/kcache
timeout 60 $g run --spec $root/examples/reduction/reduction.json --backend cuda,opencl:1,openmp,omp_target:0,omp_target_clang:0 --problem n=1048576 --precision f64 --repetitions 3 --format json --out $res/spec-reduction.json 2>&1 | grep -v '^\s*$' | grep -v "^  [a-z_]*:[0-9] *[0-9.]* GB/s" | tail -12
unset GPUBENCH_KERNEL_CACHE
pack; date -u
