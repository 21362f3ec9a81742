#!/usr/bin/env bash
set -u
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
exec > >(tee $OUT/log-race.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
for p in f64 f32; do
timeout 100 compute-sanitizer --tool racecheck /tmp/g/gpu/bin/gpubench --suite lu --backend cuda --problem 300 --variant blocked --precision $p --repetitions 1 --isolate off --tuning-db /tmp/db 2>&1 | grep -E "SUMMARY|Hazard|verified" | tail -3
done
