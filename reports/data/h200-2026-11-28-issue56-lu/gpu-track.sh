#!/usr/bin/env bash
# The tracked set (reports/nightly.json, with issue 56's three points) with fddea8b's build and
# this one's, into one history, then the check.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
res=/tmp/res; mkdir -p $res/records-old $res/records-new
exec > >(tee $OUT/log-track.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
for v in old new; do
  b=/tmp/g/gpu/bin/gpubench; [ $v = old ] && b=/tmp/g/gpu/old/bin/gpubench
  echo "== tracked set, $v"
  GPUBENCH_BINARY=$b timeout 270 python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records-$v 2>&1 | tail -6
done
echo "== check"
GPUBENCH_BINARY=/tmp/g/gpu/bin/gpubench timeout 60 python3 $root/reports/track.py check --history $res/history.sqlite --no-remeasure 2>&1 | grep -iE "lu|npb|4096|improv|regress|benchmarks" | head -30
tar czf $OUT/track.tar.gz -C $res .
