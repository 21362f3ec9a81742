#!/usr/bin/env bash
# Issue 56 item 4: is OpenCL's 2.7% on CG poisson2d:4096's fused CSR SpMV the L1/shared split too?
# CUDA's spmv_dot2 and three_term_update with a preferred carve-out (exp-carveout-csr.patch, gpu/e;
# unset = the driver's choice), NVIDIA's OpenCL beside it, kernels timed alone (--breakdown).
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
exp=/tmp/g/gpu/e/bin/gpubench
exec > >(tee $OUT/log-call8.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
for c in none 25 50 100 none; do
  echo "-- carveout $c"
  if [ $c = none ]; then unset GPUBENCH_EXP_CARVEOUT; else export GPUBENCH_EXP_CARVEOUT=$c; fi
  timeout 60 $exp --suite cg --backend cuda --problem poisson2d:4096 --variant form1 --precision f64 --repetitions 3 --breakdown 2>&1 | grep -E "^cuda:0 |^  (spmv_dot2|three_term)"
done
unset GPUBENCH_EXP_CARVEOUT
echo "-- opencl"
timeout 60 $exp --suite cg --backend opencl:1 --problem poisson2d:4096 --variant form1 --precision f64 --repetitions 3 --breakdown 2>&1 | grep -E "^opencl:1 |^  (spmv_dot2|three_term)"
date -u
