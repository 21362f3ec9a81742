#!/usr/bin/env bash
# Issue 57 on the H100, 2026-12-07, call 2: the tracked set (its Clang entries included), the
# reduction example and the planted faults on the H100's host and GPU (spec-commands.sh, the offload
# objects from the kernel cache filled here by the same script), then the offload tests on the GPU
# (the planted fallback: a GPU region that ran on the host fails by name, for both compilers).
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res/records
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call2.txt) 2>&1
pack() { tar czf $OUT/res2.tar.gz -C $res .; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks_throttle_reasons.active --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; cat /proc/loadavg
echo "== 1. the tracked set"
GPUBENCH_BINARY=$g timeout 330 python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL|rror" | tail -24
pack; date -u
echo "== 2. the reduction example and the planted faults, host and GPU"
mkdir -p /tmp/k && tar xJf .gpu/kcache.tar.xz -C /tmp/k && export GPUBENCH_KERNEL_CACHE=/tmp/k/kcache
export g res; timeout $((500 - SECONDS)) bash $root/reports/data/h100-2026-12-07-issue57/spec-commands.sh
unset GPUBENCH_KERNEL_CACHE
pack; date -u
echo "== 3. the offload tests on the GPU ($((585 - SECONDS)) s left)"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && env -u OMP_TARGET_OFFLOAD timeout $((585 - SECONDS)) /tmp/g/gpu/bin/gpubench_omp_target_tests --gtest_filter='*RanOnTheHost*:*Gaps*:*AndVerifiesOnAGpu*:*Verifies*/omp_target_clang' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED|     OK) |tests ran|Failure|Expected|Which is|rror" | tail -30)
date -u
