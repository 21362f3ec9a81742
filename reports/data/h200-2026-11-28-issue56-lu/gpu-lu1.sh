#!/usr/bin/env bash
# Issue 56 item 2 on the GPU machine: the LU tests on CUDA and OpenCL, compute-sanitizer on the
# CUDA leaf (now device.h's lu_leaf), then before (gpu/old: fddea8b) and after (gpu: the leaf on
# OpenCL, tensor updates) in one call, alternating, and the profiled passes.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench old=/tmp/g/gpu/old/bin/gpubench
res=/tmp/res; mkdir -p $res
exec > >(tee $OUT/log-lu1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --list-devices 2>&1 | head -8
echo "== tests (the source tree at the path the test binary names)"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp /tmp/g/gpu/bin/gpubench $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && timeout 300 /tmp/g/gpu/bin/gpubench_tests --gtest_filter='*LuDevice*:*LuCuda*:LuOpencl.ThePanels*:LuOpencl.EveryVariant*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|FAILED|tests ran" | tail -30)
db=$res/db; mkdir -p $db
echo "== sanitizer (CUDA leaf)"
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool $new --suite lu --backend cuda --problem 300 --variant blocked --precision f64 --repetitions 1 --isolate off --tuning-db $db 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Hazard|error|verified|cuda" | head -6
done
for n in 16384 4096; do
  for round in 1 2; do
    for v in old new; do
      echo "== $v lu $n round $round"
      timeout 150 ${!v} --suite lu --backend cuda,opencl --problem $n --precision f64 --variant blocked,vendor --repetitions 5 --tuning-db $db --format json --out $res/lu$n-$v-$round.json 2>&1 | grep -E "^(cuda|opencl)|FAILED|error" | head -8
    done
  done
done
echo "== profiled pass, new, 16384"
timeout 150 $new --suite lu --backend cuda,opencl --problem 16384 --precision f64 --variant blocked --repetitions 3 --breakdown --tuning-db $db --format json --out $res/lu16384-breakdown.json 2>&1 | tail -30
python3 - $res <<'PY'
import json, sys, glob, os, statistics
for f in sorted(glob.glob(sys.argv[1] + "/lu*.json")):
    r = json.load(open(f))
    by = {}
    for b in r["benchmarks"]:
        if b.get("run_type") == "iteration":
            by.setdefault(b["name"], []).append(b)
    for name, bs in by.items():
        t = statistics.median(x["real_time"] for x in bs) / 1e6
        b = bs[0]
        print(os.path.basename(f), name, f"{t:.2f} ms", b.get("verified"), (b.get("launch") or {}).get("update", {}).get("gemm_kernel", ""), "|", b.get("panel", "")[:110])
PY
tar czf $OUT/lu1.tar.gz -C $res .
