#!/usr/bin/env bash
# Call 4: Clang's FT shapes swept again at class B with the aligned complex values (call 3: radix 8
# passes as fast as CUDA's under ncu, the tuned radix-16 ones slower), FT B on CUDA and Clang with
# that sweep's entries, then the tracked set (reports/nightly.json) with this build.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
res=/tmp/res; rm -rf $res; mkdir -p $res/records
cp -r $root/tuning-db $res/tdb
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call4.txt) 2>&1
pack() { tar czf $OUT/res4.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$|loop not vectorized'; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. sweep Clang's FT shapes at class B (exhaustive, replacing)"
timeout 100 $g sweep --suite ft --backend omp_target_clang:0 --problem B --strategy exhaustive --replace --time-budget 25 --tuning-db $res/tdb --format json --out $res/sweep-ft-clang.json 2>&1 | filt | grep -E "best|FAIL|rror" | cut -c1-200 | tail -6
pack; date -u
echo "== 2. FT B fast, CUDA and Clang (the sweep's entries)"
timeout 80 $g run --backend cuda,omp_target_clang:0 --suite ft --problem B --variant fast --repetitions 3 --breakdown --tuning-db $res/tdb --format json --out $res/ft-B-resweep.json 2>&1 | filt | grep -E "^(cuda|omp)|^  [a-z_0-9]+ +[0-9.]+ +[0-9.]+ |FAILED|WRONG|rror" | cut -c1-200 | head -20
pack; date -u
echo "== 3. tracked set"
GPUBENCH_BINARY=$g timeout $((590 - SECONDS)) python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL|rror" | tail -20
pack; date -u
