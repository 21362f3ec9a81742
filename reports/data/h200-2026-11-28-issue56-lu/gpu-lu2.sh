#!/usr/bin/env bash
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res; db=$res/db; mkdir -p $db
exec > >(tee $OUT/log-lu2.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
show() { python3 - "$@" <<'PY'
import json, sys, statistics
for f in sys.argv[1:]:
    r = json.load(open(f)); by = {}
    for b in r["benchmarks"]:
        if b.get("run_type") == "iteration": by.setdefault(b["name"], []).append(b)
    for name, bs in by.items():
        b = bs[0]
        print(name, f"{statistics.median(x['real_time'] for x in bs)/1e6:.2f} ms", b.get("verified"), json.dumps(b.get("launch")), "|", b.get("panel", ""))
        for k in b.get("kernels", []): print("   ", k.get("kernel") or k.get("name"), k.get("seconds") or k)
PY
}
for g in "" 1 2 256; do
  echo "== hook groups '$g'"
  GPUBENCH_LU_LEAF_GROUPS=$g timeout 100 $new --suite lu --backend opencl --problem 300 --precision f32,f64 --variant blocked --repetitions 1 --tuning-db $db --format json --out $res/hook$g.json 2>&1 | grep -E "^opencl|FAILED|rror" | head -4
  show $res/hook$g.json 2>&1 | grep -v "^ "
done
for n in 300 16384; do
  echo "== opencl lu $n"
  timeout 120 $new --suite lu --backend opencl --device 1 --problem $n --precision f64 --variant blocked --repetitions 3 --breakdown --tuning-db $db --format json --out $res/lu$n.json 2>&1 | grep -E "^opencl|FAILED|rror|panel|gemm|trsm|laswp" | head -12
  show $res/lu$n.json
done
echo "== opencl lu 16384 base 16 / 32 / 64 via sweep of fixed points"
timeout 200 $new sweep --suite lu --backend opencl --device 1 --problem 16384 --precision f64 --exhaustive --param nb=256 --param base=16,32 --param update=0,1 --tuning-db $db --cache $res/sweep.jsonl 2>&1 | tail -8
cat $res/sweep.jsonl | head -20
tar czf $OUT/lu2.tar.gz -C $res .
