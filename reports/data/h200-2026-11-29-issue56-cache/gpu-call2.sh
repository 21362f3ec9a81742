#!/usr/bin/env bash
# Issue 56 item 1, why OpenCL's slab SpMV through L1 (0.267 ms) trails CUDA's same scheme (0.178)
# at NAS CG class C's fused SpMV: A = bfea868; B = A with the OpenCL plan's work-groups sized by
# the folds it really needs (1024 work-items with warp shuffles, not 512: exp-group.patch); C = B
# with two sums in flight in the cached loop as CUDA's (exp-two.patch). And the PTX NVIDIA's
# OpenCL makes of opencl.cl (C's source): which loads gather x.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
res=/tmp/res; mkdir -p $res
exec > >(tee $OUT/log-exp2.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
sw() {  # binary label backend lanes kibs
  timeout 100 $1 sweep --suite cg --backend $3 --problem npb:C --precision f64 --kernel spmv_dot2 --exhaustive --replace \
      --param work_group_size=256 --param row_runs=2 --param slabs=1 --param slab_lanes=$4 --param slab_cache_kib=$5 \
      --tuning-db $res/db-$2 --cache $res/sw-$2.jsonl 2>&1 | grep -E "\] .*ms$|error|fail" | sed "s/^/$2 /"
}
for round in 1 2; do
  sw /tmp/g/gpu/bin/gpubench A$round opencl:1 0,8 0,64,128
  sw /tmp/g/gpu/b/bin/gpubench B$round opencl:1 0,8 0,64,128
  sw /tmp/g/gpu/c/bin/gpubench C$round opencl:1 0,8 0,64,128
done
sw /tmp/g/gpu/bin/gpubench cuda cuda 0 0,128
echo "== PTX"
/tmp/g/gpu/bin/ptxdump $root/kernels/cg/opencl.cl "-DREAL=double -DOPENCL_PTX -I $root" > $res/opencl-cg.ptx && \
  awk '/.entry spmv_slabs/,/^}/' $res/opencl-cg.ptx > $OUT/spmv_slabs.ptx && grep -E "\.maxntid|\.reqntid|ld\.global|ld\.shared|\.reg" $OUT/spmv_slabs.ptx | sed 's/%[a-z]*[0-9]*/%/g' | sort | uniq -c
cp $res/opencl-cg.ptx $OUT/ 2>/dev/null
tar czf $OUT/exp2.tar.gz -C $res .
date -u
