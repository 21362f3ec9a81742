#!/usr/bin/env bash
# Issue 56 item 2: does the OpenCL leaf (one work-group per SM, ~48 KiB of local memory each) keep
# the look-ahead's GEMM off the SMs? LU 8192 f64 blocked, kernels timed alone (--breakdown) against
# the timed run, CUDA beside OpenCL; then OpenCL with the leaf in 66 and 33 work-groups (the test
# hook GPUBENCH_LU_LEAF_GROUPS: an experiment, not a setting).
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call10.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version
f() { grep -E "^(cuda|opencl)|per kernel|^  (panel|laswp|trsm|gemm|overhead) |panel:|leaf"; }
timeout 60 $new --suite lu --backend cuda,opencl:1 --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown 2>&1 | f
for g in 66 33; do
  echo "-- leaf groups $g"
  GPUBENCH_LU_LEAF_GROUPS=$g timeout 45 $new --suite lu --backend opencl:1 --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown 2>&1 | f
done
date -u
