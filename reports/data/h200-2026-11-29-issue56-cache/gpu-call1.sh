#!/usr/bin/env bash
# Issue 56 item 1, the slab SpMV through the cache (bfea868): its tests on the H200 (CUDA and
# NVIDIA's OpenCL), sweeps of slab_cache_kib x slab_lanes at NAS CG class C on both APIs into a
# copy of the committed tuning database, then NAS CG class C form1, CUDA beside OpenCL in each
# run, with bfea868 (that database) and 0740de4 (gpu/old, the committed one), alternating.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
new=/tmp/g/gpu/bin/gpubench old=/tmp/g/gpu/old/bin/gpubench
res=/tmp/res; mkdir -p $res; tdb=$res/tuning-db; cp -r $root/tuning-db $tdb
exec > >(tee $OUT/log-cache.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version; $old --version
echo "== tests (the source tree at the path the test binary names)"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp /tmp/g/gpu/bin/gpubench $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && timeout 120 /tmp/g/gpu/bin/gpubench_tests --gtest_filter='*LongRows*:*Slab*:*CgTune*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |FAILED|tests ran|LongRows.*(opencl|cuda)" | tail -14)
(cd $src && timeout 60 /tmp/g/gpu/bin/gpubench_cuda_tests --gtest_filter='*LongRows*:*Slab*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |FAILED|tests ran" | tail -6)
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
sw() {  # backend kernel label params...
  local be=$1 k=$2 l=$3; shift 3
  timeout 150 $new sweep --suite cg --backend $be --problem npb:C --precision f64 --kernel $k --exhaustive --replace \
      "$@" --tuning-db $tdb --cache $res/sw-$l.jsonl 2>&1 | grep -E "\] .*ms$|best|error" | sed "s/^/$l /"
}
echo "== sweeps"
sw opencl:1 spmv_dot2 ocl-dot2 --param work_group_size=256 --param row_runs=2 --param slabs=1 --param slab_lanes=0,4,8,16 --param slab_cache_kib=0,32,64,128,256
sw opencl:1 spmv ocl-spmv --param work_group_size=256 --param slabs=0,1 --param slab_lanes=0,8 --param slab_cache_kib=0,128
sw cuda spmv_dot2 cuda-dot2 --param work_group_size=256 --param row_runs=2 --param slabs=1 --param slab_lanes=0,8 --param slab_cache_kib=0,64,128,256
echo "== NAS CG class C form1"
for round in 1 2; do
  for v in old new; do
    echo "-- $v round $round"
    if [ $v = old ]; then
      timeout 100 $old --suite cg --backend cuda,opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 --format json --out $res/npbC-old-$round.json 2>&1 | grep -E "^(cuda|opencl)"
    else
      GPUBENCH_COMMITTED_TUNING_DB=$tdb timeout 100 $new --suite cg --backend cuda,opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 --format json --out $res/npbC-new-$round.json 2>&1 | grep -E "^(cuda|opencl)"
    fi
  done
done
python3 - $res/npbC-*.json <<'PY'
import json, sys, statistics
for f in sys.argv[1:]:
    r = json.load(open(f)); by = {}
    for b in r["benchmarks"]:
        if b.get("run_type") == "iteration": by.setdefault(b["name"], []).append(b)
    for name, bs in by.items():
        b = bs[0]; l = ((b.get("params") or {}).get("launch") or {}).get("spmv_dot2") or {}
        print(f.split('/')[-1], name, f"{statistics.median(x['real_time'] for x in bs)/1e3:.1f} us/iter", "total_s", b.get("total_seconds"),
              {k: v for k, v in l.items() if k != "detail"}, "|", json.dumps(b.get("gap_causes")))
PY
$new report models $res/npbC-new-1.json $res/npbC-new-2.json 2>&1 | head -30
cp $tdb/*nvidia-h200*.json $OUT/ 2>/dev/null
tar czf $OUT/cache.tar.gz -C $res --exclude tuning-db .
date -u
