#!/usr/bin/env bash
# Issue 56 item 4: where CG poisson2d:4096 form1's 2.8% between OpenCL and CUDA goes: each API's
# kernels timed alone (--breakdown), CUDA beside OpenCL, twice.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call7.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version
for round in 1 2; do
  timeout 90 $new --suite cg --backend cuda,opencl:1 --problem poisson2d:4096 --variant form1 --precision f64 --repetitions 5 --breakdown --format json --out $OUT/p4096-$round.json 2>&1 | grep -vE "^gpubench: \[|^  (device|cuda|opencl:)|WARNING|roofline ceilings"
done
date -u
