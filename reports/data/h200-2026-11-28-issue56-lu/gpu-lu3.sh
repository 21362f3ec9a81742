#!/usr/bin/env bash
# The OpenCL tensor kernel swept for LU's update shape (16384 x 16384 x 256), then the blocked LU's
# nb, then CUDA and OpenCL in one run at 16384 and 4096.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res; db=$res/db; mkdir -p $db
exec > >(tee $OUT/log-lu3.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== gemm tensor sweep at LU's update shape"
timeout 200 $new sweep --suite gemm --backend opencl --device 1 --kernel tensor --problem 16384x16384x256 --precision f64 --replace --exhaustive \
  --param bm=64,128 --param bn=64,128 --param bk=16 --param stages=2,3 --param wm=2 --param wn=1,2 --param unroll=1 --param splitk=1 --time-budget 170 \
  --tuning-db $db --cache $res/gemm-sweep.jsonl 2>&1 | tail -8
echo "== lu sweep nb"
timeout 120 $new sweep --suite lu --backend opencl --device 1 --problem 16384 --precision f64 --replace --exhaustive --param nb=128,256,512 --param base=32 --param update=0 \
  --tuning-db $db --cache $res/lu-sweep.jsonl 2>&1 | tail -6
for n in 16384 4096; do
  echo "== final lu $n"
  timeout 120 $new --suite lu --backend cuda,opencl --problem $n --precision f64 --variant blocked,vendor --repetitions 5 --tuning-db $db --format json --out $res/lu$n-final.json 2>&1 | grep -E "^(cuda|opencl)|FAILED|rror" | head -6
done
python3 - $res/lu16384-final.json $res/lu4096-final.json <<'PY'
import json, sys, statistics
for f in sys.argv[1:]:
    r = json.load(open(f)); by = {}
    for b in r["benchmarks"]:
        if b.get("run_type") == "iteration": by.setdefault(b["name"], []).append(b)
    for name, bs in by.items():
        b = bs[0]; l = (b.get("params") or {}).get("launch") or {}
        print(name, f"{statistics.median(x['real_time'] for x in bs)/1e6:.2f} ms", b.get("verified"), json.dumps(l.get("blocked")), json.dumps(l.get("update")), "|", b.get("panel", ""))
PY
tar czf $OUT/lu3.tar.gz -C $res .
