#!/usr/bin/env bash
# Call 2 (the same machine, warm after call 1, which ran out of time in its tracked set): the
# tracked set alone, with call 1's build (the experiment build; its knobs unset, so the change).
set -u; root=$PWD; [ -x /tmp/g/gpu/bin/gpubench ] || { mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g; }
source /tmp/g/gpu/env.sh; export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db; res=/tmp/res2; mkdir -p $res/records
exec > >(tee $OUT/log-track.txt) 2>&1; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
(while sleep 20; do tar czf $OUT/track.tar.gz -C $res . 2>/dev/null; done) &
GPUBENCH_BINARY=/tmp/g/gpu/bin/gpubench timeout 340 python3 $root/reports/track.py run --set $root/reports/nightly.json --history $res/history.sqlite --records $res/records 2>&1 | tail -5
tar czf $OUT/track.tar.gz -C $res .; date -u
