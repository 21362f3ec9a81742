#!/usr/bin/env bash
# Issue 56 item 2 on the H200: why LU's look-ahead overlaps nothing on NVIDIA's OpenCL.
# 1. lahead (the look-ahead's pattern with spin kernels): no flush / flush after each mark /
#    queue 1 of high priority (cl_khr_priority_hints, where listed) / the update in 8 chunks.
# 2. The LU tests on NVIDIA's OpenCL with the change (flush after each mark, side queue of high
#    priority where listed).
# 3. LU 8192 f64 blocked, CUDA beside OpenCL, then OpenCL under the experiment build's knobs
#    (GPUBENCH_EXP_FLUSH, GPUBENCH_EXP_PRIO, GPUBENCH_EXP_CHUNKS; unset = the change), and CUDA
#    with its panels' stream of normal priority (GPUBENCH_EXP_CUDA_PRIO=0).
# 4. LU 16384 f64 blocked and vendor, CUDA beside OpenCL, the change; --breakdown at 8192.
# 5. The tracked set.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res/records; db=$res/db; mkdir -p $db
exec > >(tee $OUT/log-call1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$g --version
echo "== 1. lahead"
timeout 60 $root/.probe/lahead | sed -e 's/^extensions: \(.\{0,2000\}\).*/extensions: \1/'
echo "== 2. LU tests on NVIDIA's OpenCL"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && timeout 120 /tmp/g/gpu/bin/gpubench_tests --gtest_filter='LuOpencl.*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|FAILED|tests ran" | tail -20)
lu() { timeout 120 $g --suite lu --precision f64 --tuning-db $db "$@" 2>&1 | grep -E "^(cuda|opencl)|FAILED|rror|EXPERIMENT" | sort | uniq -c | sed 's/^ *1 //'; }
echo "== 3. LU 8192"
lu --backend cuda,opencl:1 --problem 8192 --variant blocked --repetitions 5 --format json --out $res/lu8192-change.json
for mode in "FLUSH=0 PRIO=0" "FLUSH=1 PRIO=0" "FLUSH=0 PRIO=1" "FLUSH=1 PRIO=1 CHUNKS=4" "FLUSH=1 PRIO=0 CHUNKS=4" "FLUSH=1 PRIO=0 CHUNKS=8"; do
  echo "-- $mode"
  (for kv in $mode; do export GPUBENCH_EXP_$kv; done; lu --backend opencl:1 --problem 8192 --variant blocked --repetitions 5)
done
echo "-- CUDA with the panels' stream of normal priority (GPUBENCH_EXP_CUDA_PRIO=0), then as committed"
GPUBENCH_EXP_CUDA_PRIO=0 lu --backend cuda --problem 8192 --variant blocked --repetitions 5
lu --backend cuda --problem 8192 --variant blocked --repetitions 5
echo "== 4. LU 16384, and the breakdown at 8192"
lu --backend cuda,opencl:1 --problem 16384 --variant blocked,vendor --repetitions 5 --format json --out $res/lu16384-change.json
lu --backend cuda,opencl:1 --problem 8192 --variant blocked --repetitions 3 --breakdown --format json --out $res/lu8192-breakdown.json
date -u
echo "== 5. tracked set"
GPUBENCH_BINARY=$g timeout 300 python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | tail -3
tar czf $OUT/res.tar.gz -C $res .
date -u
# 6. With the time left (the call's limit is 600 s): CUDA's blocked LU 16384 swept over nb (no
#    CUDA LU entry for the H200 yet, so CUDA ran its heuristic nb 256 where OpenCL ran its swept 512).
left=$((560 - SECONDS))
if [ $left -gt 40 ]; then
  echo "== 6. CUDA LU 16384 sweep ($left s left)"
  timeout $left $g sweep --suite lu --backend cuda --problem 16384 --precision f64 --kernel blocked --exhaustive --param nb=256,512 --param base=32,64 --param update=0 --tuning-db $db --format json --out $res/sweep-cuda-lu16384.json 2>&1 | tail -12
  tar czf $OUT/res.tar.gz -C $res .
fi
date -u
