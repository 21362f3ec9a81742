#!/usr/bin/env bash
# Issue 56 item 1: does the L1 size explain OpenCL's 10% on the slab SpMV through L1? CUDA's kernel
# with its preferred shared-memory carve-out set (exp-carveout.patch, gpu/e: 0 = the most L1,
# 100 = the most shared memory, unset = the driver's choice), NVIDIA's OpenCL beside it; then NAS
# CG class C form1 (CUDA beside OpenCL) with a2cd913 and the committed database, twice; then the
# tracked set with a2cd913.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench exp=/tmp/g/gpu/e/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-call5.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version
sw() {  # binary label backend kibs
  timeout 60 $1 sweep --suite cg --backend $3 --problem npb:C --precision f64 --kernel spmv_dot2 --exhaustive --replace \
      --param work_group_size=256 --param row_runs=2 --param slabs=1 --param slab_lanes=0 --param slab_cache_kib=$4 \
      --tuning-db $res/db-$2 --cache $res/sw-$2.jsonl 2>&1 | grep -E "\] .*ms$|error|fail" | sed "s/^/$2 /"
}
for round in 1 2; do
  sw $exp cuda-driver-r$round cuda 0,64,128
  for c in 0 25 50 100; do GPUBENCH_EXP_CARVEOUT=$c sw $exp cuda-carveout$c-r$round cuda 0,64,128; done
  sw $new opencl-r$round opencl:1 0,64,128
done
echo "== NAS CG class C form1"
for round in 1 2; do
  timeout 60 $new --suite cg --backend cuda,opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 --format json --out $OUT/npbC-$round.json 2>&1 | grep -E "^(cuda|opencl)"
done
$new report models $OUT/npbC-1.json $OUT/npbC-2.json 2>&1 | head -5
echo "== tracked set"
GPUBENCH_BINARY=$new timeout 300 python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | tail -2
tar czf $OUT/call5.tar.gz -C $res records $(cd $res && ls sw-*.jsonl)
date -u
