#!/usr/bin/env bash
# Call 2: where Clang's LU regions lose their time (a microbenchmark of region shapes, the
# runtime's launch info), the module's code loaded at the first allocation (the sweep's first
# configuration no longer pays the JIT), then the spec example and the tracked set.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
mkdir -p /tmp/m && tar xJf .gpu/mods.tar.xz -C /tmp/m && cp /tmp/m/libgpubench_omp_target*.so /tmp/g/gpu/lib/gpubench/
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-call2.txt) 2>&1
pack() { cp $GPUBENCH_TUNING_DB/*.json $res/ 2>/dev/null; tar czf $OUT/res2.tar.gz -C $res .; }
left() { echo $((590 - SECONDS)); }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. region shapes on Clang's runtime (2000 each)"
timeout 60 /tmp/m/regions 2>&1 | grep -v "loop not vectorized" | tail -12
echo "== 2. the runtime's launch info, LU 96 on Clang"
LIBOMPTARGET_INFO=16 timeout 60 $g run --backend omp_target_clang:0 --suite lu --problem 96 --precision f64 --variant blocked --repetitions 1 --isolate off 2>&1 | grep -E "Launching kernel" | sed -E 's/__omp_offloading_[0-9a-f]+_[0-9a-f]+_//' | sort | uniq -c | sort -rn | head -12
date -u
echo "== 3. the Clang GEMM test on the GPU (its sweep's first configuration)"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && env -u OMP_TARGET_OFFLOAD timeout 100 /tmp/g/gpu/bin/gpubench_omp_target_tests --gtest_filter='*Gemm*:*Lu*:*Gaps*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|Expected|Which is|actual" | tail -12)
date -u
echo "== 4. the spec example: GCC's offload object from the carried cache"
mkdir -p /tmp/k && tar xJf .gpu/kcache.tar.xz -C /tmp/k && export GPUBENCH_KERNEL_CACHE=/tmp/k/kcache
timeout 60 $g run --spec $root/examples/reduction/reduction.json --backend cuda,omp_target:0,omp_target_clang:0 --problem n=1048576 --precision f64 --repetitions 3 --format json --out $res/spec-reduction.json 2>&1 | grep -v '^\s*$' | tail -8
unset GPUBENCH_KERNEL_CACHE
pack; date -u
echo "== 5. the tracked set ($(left) s left)"
GPUBENCH_BINARY=$g timeout $(( $(left) - 10 )) python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL" | tail -40
pack; date -u
