#!/usr/bin/env bash
# Issue 56 item 1, the slab SpMV through the cache with OpenCL work-groups of 1024 and two sums in
# flight: its tests, sweeps of NVIDIA's OpenCL at NAS CG class C into a copy of the committed
# tuning database (CUDA's entries from the first call), NAS CG class C form1 (CUDA beside OpenCL)
# with this build and that database against 0740de4 (gpu/old) and the committed one, alternating;
# then the tracked set with this build and that database.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
new=/tmp/g/gpu/bin/gpubench old=/tmp/g/gpu/old/bin/gpubench
res=/tmp/res; mkdir -p $res/records; tdb=$res/tuning-db; cp -r $root/tuning-db $tdb
exec > >(tee $OUT/log-cache2.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version; $old --version
echo "== tests"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp /tmp/g/gpu/bin/gpubench $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && timeout 100 /tmp/g/gpu/bin/gpubench_tests --gtest_filter='*LongRows*:*Slab*:*CgOperations*opencl*:*CgOperations*cuda*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |FAILED|tests ran" | tail -8)
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
sw() {
  local be=$1 k=$2 l=$3; shift 3
  timeout 120 $new sweep --suite cg --backend $be --problem npb:C --precision f64 --kernel $k --exhaustive --replace \
      "$@" --tuning-db $tdb --cache $res/sw-$l.jsonl 2>&1 | grep -E "\] .*ms$|best|error" | sed "s/^/$l /"
}
echo "== sweeps"
sw opencl:1 spmv_dot2 ocl-dot2 --param work_group_size=256 --param row_runs=2 --param slabs=1 --param slab_lanes=0,4,8,16 --param slab_cache_kib=0,32,64,128,256
sw opencl:1 spmv ocl-spmv --param work_group_size=256 --param slabs=0,1 --param slab_lanes=0,8 --param slab_cache_kib=0,64,128
cp $tdb/*nvidia-h200*.json $OUT/
echo "== NAS CG class C form1"
for round in 1 2; do
  echo "-- old round $round"
  timeout 60 $old --suite cg --backend cuda,opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 --format json --out $OUT/npbC-old-$round.json 2>&1 | grep -E "^(cuda|opencl)"
  echo "-- new round $round"
  GPUBENCH_COMMITTED_TUNING_DB=$tdb timeout 60 $new --suite cg --backend cuda,opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 --format json --out $OUT/npbC-new-$round.json 2>&1 | grep -E "^(cuda|opencl)"
done
$new report models $OUT/npbC-new-1.json $OUT/npbC-new-2.json 2>&1 | head -6
echo "== tracked set"
GPUBENCH_COMMITTED_TUNING_DB=$tdb GPUBENCH_BINARY=$new timeout 300 python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | tail -3
tar czf $OUT/records.tar.gz -C $res records sw-ocl-dot2.jsonl sw-ocl-spmv.jsonl
date -u
