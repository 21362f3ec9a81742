#!/usr/bin/env bash
# The tracked set once more with this stop's final build (a fifth night for the H200's new points).
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
res=/tmp/res; mkdir -p $res/records
exec > >(tee $OUT/log-track2.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
GPUBENCH_BINARY=/tmp/g/gpu/bin/gpubench timeout 330 python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | tail -3
tar czf $OUT/track2.tar.gz -C $res .
date -u
