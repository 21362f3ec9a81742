#!/usr/bin/env bash
# Issue 56 item 1, second call: the OpenCL slab SpMV with two sums in flight per work-item (gpu:
# this change) against one (gpu/expB) at NAS CG class C, its CSR kernels swept over work-group
# sizes and row runs; then the tracked set (reports/nightly.json) with this build.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench expb=/tmp/g/gpu/expB/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-cg2.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version
for round in 1 2; do
  for v in A B; do
    b=$new; [ $v = B ] && b=$expb
    rm -rf $res/db-$v-$round; mkdir -p $res/db-$v-$round
    timeout 60 $b sweep --suite cg --backend opencl --device 1 --problem npb:C --precision f64 --kernel spmv_dot2 --exhaustive --replace \
      --param work_group_size=256 --param row_runs=2 --param slabs=1 --param slab_lanes=0,1,2,4 \
      --tuning-db $res/db-$v-$round --cache $res/slab-$v-$round.jsonl 2>&1 | grep -E "\] .*ms$" | sed "s/^/$v $round /"
  done
done
echo "== CSR swept (OpenCL, npb:C)"
for k in spmv_dot2 spmv; do
  timeout 120 $new sweep --suite cg --backend opencl --device 1 --problem npb:C --precision f64 --kernel $k --exhaustive --replace \
    --param slabs=0 --param slab_lanes=0 --tuning-db $res/db-csr --cache $res/csr-$k.jsonl 2>&1 | grep -E "best|stored" | tail -3
done
echo "== tracked set"
GPUBENCH_BINARY=$new timeout 330 python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | tail -4
tar czf $OUT/cg2.tar.gz -C $res .
date -u
