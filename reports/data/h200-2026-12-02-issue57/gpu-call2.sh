#!/usr/bin/env bash
# Issue 57 item 2 on the H200, call 2: Clang's module as LLVM bitcode compiled by the runtime at
# load (-fopenmp-target-jit; CUDA 13's cubin header defeats LLVM 19's check), its launches swept,
# the four models side by side per suite, the Clang tracked points, the spec example on the GPU.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-call2.txt) 2>&1
pack() { cp $GPUBENCH_TUNING_DB/*.json $res/ 2>/dev/null; tar czf $OUT/res2.tar.gz -C $res .; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$g --version | head -1; which ptxas
echo "== 1. devices"
timeout 120 $g --list-devices 2>&1 | sed -n '/^omp_target_clang:/,/^openmp:/p'
echo "== 2. Clang on the GPU: EP S, its JIT at load (wall time of the whole run)"
for mode in "" "LIBOMPTARGET_JIT_SKIP_OPT=true"; do
  s=$SECONDS; env $mode LIBOMPTARGET_INFO=1 timeout 120 $g --suite ep --backend omp_target_clang:0 --problem S --variant reduce --repetitions 1 --isolate off 2>&1 | grep -v '^\s*$' | head -12; echo "-- [$mode] wall $((SECONDS - s)) s"
done
echo "== 3. Clang's launches swept (f64)"
sw() { timeout $1 $g sweep --backend omp_target_clang:0 --exhaustive --time-budget 20 --precision f64 "${@:2}" 2>&1 | grep -v -E '^\s*$' | tail -12; }
sw 90 --suite cg --problem poisson2d:4096 --param work_group_size=128,256,512,1024 --param work_groups_per_cu=2,4,8,16
sw 50 --suite ep --problem C --param work_group_size=128,256,512,1024 --param work_groups_per_cu=2,4,8,16
sw 60 --suite gemm --problem 4096 --kernel tiled --param tile=16,32,64 --param work_group_size=64,128,256,512
pack; date -u
echo "== 4. the four models, one run per suite"
tab() { n=$1; shift; timeout 150 $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --repetitions 3 --format json --out $res/$n.json "$@" 2>&1 | grep -v -E '^\s*$' | grep -v -E '^  (nas|serial|v1|v2|fast|vendor|tuned|tensor|naive) on ' | tail -32; }
tab cg-4096 --suite cg --problem poisson2d:4096 --precision f64 --breakdown
tab ep-C --suite ep --problem C
tab ft-B --suite ft --problem B --breakdown
tab gemm-4096 --suite gemm --problem 4096 --precision f64 --variant naive,tiled,tuned,tensor,vendor
tab lu-8192 --suite lu --problem 8192 --precision f64 --variant blocked,vendor --breakdown
pack; date -u
echo "== 5. the Clang tracked points"
GPUBENCH_BINARY=$g timeout 150 python3 $root/reports/track.py run --set $root/reports/nightly.json --only omp-clang-cg,omp-clang-ep,omp-clang-ft,omp-clang-gemm,omp-clang-lu --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL" | tail -8
pack; date -u
echo "== 6. the reduction spec: host and GPU, objects compiled elsewhere (GPUBENCH_KERNEL_CACHE)"
mkdir -p /tmp/k && tar xJf .gpu/kcache.tar.xz -C /tmp/k && export GPUBENCH_KERNEL_CACHE=/tmp/k/kcache
timeout 100 $g run --spec $root/examples/reduction/reduction.json --backend cuda,opencl:1,openmp,omp_target:0,omp_target_clang:0 --problem n=1048576 --precision f64 --repetitions 3 --format json --out $res/spec-reduction.json 2>&1 | grep -v '^\s*$' | tail -14
timeout 60 $g sweep --spec $root/examples/reduction/reduction.json --backend omp_target:0,omp_target_clang:0 --problem n=1048576 --precision f64 --exhaustive --param group=64,256 --param items=4,8 --param final=256 2>&1 | grep -E "configurations|FAIL|rror" | tail -6
pack; date -u
echo "== 7. the offload tests on the GPU ($((585 - SECONDS)) s left)"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
unset GPUBENCH_KERNEL_CACHE
unset OMP_TARGET_OFFLOAD
(cd $src && timeout $((585 - SECONDS)) /tmp/g/gpu/bin/gpubench_omp_target_tests --gtest_filter='*OmpTarget*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |FAILED|tests ran|Failure" | tail -20)
(cd $src && timeout $((585 - SECONDS)) /tmp/g/gpu/bin/gpubench_tests --gtest_filter='*SpecOpenmpObjects*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |FAILED|tests ran|Failure" | tail -20)
date -u
