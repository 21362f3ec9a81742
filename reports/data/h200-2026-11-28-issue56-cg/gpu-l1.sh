#!/usr/bin/env bash
# Issue 56 item 1, experiment: the OpenCL slab SpMV with its gathers through the L1 cache (x not
# staged in local memory, slabs sized to GPUBENCH_EXP_SLAB_KIB) against the staged kernel, NAS CG
# class C, lanes swept; CUDA beside it; then the tracked set.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
b=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-l1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$b --version
sw() { timeout 60 $b sweep --suite cg --backend opencl --device 1 --problem npb:C --precision f64 --kernel spmv_dot2 --exhaustive --replace \
      --param work_group_size=256 --param row_runs=2 --param slabs=1 --param slab_lanes=$1 \
      --tuning-db $res/db-$2 --cache $res/sw-$2.jsonl 2>&1 | grep -E "\] .*ms$|EXP" | sed "s/^/$2 /"; }
sw 2,4 staged
for ck in 2:64 2:128 2:192 2:256 1:128 1:192 4:128; do cu=${ck%:*} kib=${ck#*:}
  GPUBENCH_EXP_SLAB_PER_CU=$cu GPUBENCH_EXP_SLAB_KIB=$kib sw 2,4,8,16 l1-k$kib-cu$cu
done
sw 4 staged2
echo "== form1 end to end"
timeout 120 $b --suite cg --backend cuda,opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 2>&1 | grep -E "^(cuda|opencl)"
for kib in 128 192; do
GPUBENCH_EXP_SLAB_PER_CU=2 GPUBENCH_EXP_SLAB_KIB=$kib timeout 120 $b --suite cg --backend opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 2>&1 | grep -E "^(opencl)|EXP"
done
tar czf $OUT/l1.tar.gz -C $res .
date -u
