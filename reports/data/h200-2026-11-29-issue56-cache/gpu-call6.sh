#!/usr/bin/env bash
# Issue 56 item 1: NAS CG class C form1, CUDA beside OpenCL, with the final build and the
# committed database, twice: the records whose gap causes the ledger reads.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call6.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version
for round in 1 2; do
  timeout 60 $new --suite cg --backend cuda,opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 --format json --out $OUT/npbC-$round.json 2>&1 | grep -E "^(cuda|opencl)"
done
$new report models $OUT/npbC-1.json $OUT/npbC-2.json 2>&1 | head -5
date -u
