#!/usr/bin/env bash
# Issue 56, third call: NAS CG class C form1 with this stop's final build (the slab SpMV's 4 lanes
# on NVIDIA's OpenCL by default) against fddea8b's (gpu/old), alternating, CUDA beside OpenCL in
# each run; then the tracked set with the final build.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench old=/tmp/g/gpu/old/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-cg3.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version; $old --version
for round in 1 2; do
  for v in old new; do
    b=$new; [ $v = old ] && b=$old
    echo "== npb:C form1 $v round $round"
    timeout 150 $b --suite cg --backend cuda,opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 --format json --out $res/npbC-$v-$round.json 2>&1 | grep -E "^(cuda|opencl)|^  |slower"
  done
done
echo "== tracked set"
GPUBENCH_BINARY=$new timeout 330 python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | tail -3
tar czf $OUT/cg3.tar.gz -C $res .
date -u
