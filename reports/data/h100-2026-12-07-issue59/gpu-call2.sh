#!/usr/bin/env bash
# Issue 59 on the H100, 2026-12-07, call 2 (call 1's machine, warm): the outer product call 1's
# time cut, then the tracked set (its new GEMM shape classes with it).
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
res=/tmp/res2; rm -rf $res; mkdir -p $res/records
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call2.txt) 2>&1
pack() { tar czf $OUT/res2.tar.gz -C $res .; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks_throttle_reasons.active --format=csv,noheader
timeout 60 $g run --repetitions 3 --format json --out $res/shapes-outer.json --backend cuda,opencl:1 --suite gemm --precision all --variant tuned,tensor,vendor --problem 8000x8000x1 2>&1 | grep -E "^(cuda|opencl)|ENDED|FAIL"
pack; date -u
GPUBENCH_BINARY=$g timeout 400 python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | grep -E "track:|FAIL|rror" | tail -30
pack; date -u
