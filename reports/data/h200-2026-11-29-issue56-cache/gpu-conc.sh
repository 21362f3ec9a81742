#!/usr/bin/env bash
# Issue 56 item 2: do NVIDIA's OpenCL kernels of two in-order queues run at once (LU's look-ahead)?
set -u
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
exec > >(tee $OUT/log-conc.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
timeout 60 /tmp/g/gpu/bin/conc
