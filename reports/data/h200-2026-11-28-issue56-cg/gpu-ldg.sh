#!/usr/bin/env bash
# Issue 56 item 4a, an experiment: the OpenCL CSR SpMV's gathers of x by ld.global.nc (inline PTX,
# gpu/expC) against plain loads (gpu: 0a29a43), CG poisson2d:4096 classic and form1, alternating.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench expc=/tmp/g/gpu/expC/bin/gpubench
res=/tmp/res; mkdir -p $res
exec > >(tee $OUT/log-ldg.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
for round in 1 2; do
  for v in base ldg; do
    b=$new; [ $v = ldg ] && b=$expc
    echo "== poisson2d:4096 $v round $round"
    timeout 100 $b --suite cg --backend cuda,opencl:1 --problem poisson2d:4096 --variant classic,form1 --precision f64 --repetitions 5 --breakdown --format json --out $res/p-$v-$round.json 2>&1 | grep -E "^(cuda|opencl)|spmv"
  done
done
tar czf $OUT/ldg.tar.gz -C $res .
date -u
