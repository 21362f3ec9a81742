#!/usr/bin/env bash
# Issue 56 items 1 and 4 on the GPU machine: the CG tests on NVIDIA's OpenCL (the warp-shuffle
# path), NAS CG class C and CG poisson2d:4096 form1 before (gpu/old: fddea8b's build, the CG code
# of main before this change) and after, alternating, on CUDA and OpenCL in one run each; the slab
# SpMV's lanes swept on both APIs; then the swept entries' run; EP class D on both.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench old=/tmp/g/gpu/old/bin/gpubench
res=/tmp/res; mkdir -p $res; db=$res/db; mkdir -p $db
exec > >(tee $OUT/log-cg1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version; $old --version
echo "== tests (the source tree at the path the test binary names)"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp /tmp/g/gpu/bin/gpubench $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && timeout 200 /tmp/g/gpu/bin/gpubench_tests --gtest_filter='*CgOperations*opencl*:*CgOperations*cuda*:AllBackends/SolverTest*opencl_f64*:AllBackends/SolverTest*cuda_f64*:*CgTune*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |FAILED|tests ran" | tail -12)
summ() {
python3 - "$@" <<'PY'
import json, sys, statistics
for f in sys.argv[1:]:
    try: r = json.load(open(f))
    except Exception as e: print(f, "unreadable", e); continue
    by = {}
    for b in r["benchmarks"]:
        if b.get("run_type") == "iteration": by.setdefault(b["name"], []).append(b)
    for name, bs in by.items():
        b = bs[0]; l = (b.get("params") or {}).get("launch") or {}
        ks = {k["kernel"]: round(k["ms_per_iteration"], 4) for k in b.get("kernels", [])[:3]}
        print(f.split('/')[-1], name, f"{statistics.median(x['real_time'] for x in bs)/1e3:.1f} us/iter", b.get("verified"),
              "total_s", b.get("total_seconds"), ks, json.dumps({k: {p: v for p, v in (l.get(k) or {}).items() if p not in ("detail",)} for k in ("spmv_dot2",)}),
              "|", json.dumps(b.get("gap_causes")))
    for b in r.get("failed_benchmarks", []): print("FAILED", b.get("name"), b.get("error_message"))
PY
}
for round in 1 2; do
  for v in old new; do
    b=$new; [ $v = old ] && b=$old
    echo "== npb:C form1 $v round $round"
    timeout 150 $b --suite cg --backend cuda,opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 --format json --out $res/npbC-$v-$round.json > /dev/null 2>&1
    summ $res/npbC-$v-$round.json
  done
done
for v in old new; do
  b=$new; [ $v = old ] && b=$old
  echo "== poisson2d:4096 form1 $v"
  timeout 120 $b --suite cg --backend cuda,opencl:1 --problem poisson2d:4096 --variant form1 --precision f64 --repetitions 5 --format json --out $res/p4096-$v.json > /dev/null 2>&1
  summ $res/p4096-$v.json
done
echo "== sweep the slab SpMV's lanes (and CSR) at npb:C"
for be in "cuda --device 0" "opencl --device 1"; do
  for k in spmv_dot2 spmv; do
    timeout 120 $new sweep --suite cg --backend $be --problem npb:C --precision f64 --kernel $k --exhaustive --replace \
      --param work_group_size=256 $([ $k = spmv_dot2 ] && echo --param row_runs=2) --param slabs=0,1 --param slab_lanes=0,1,2,4,8,16,32 \
      --tuning-db $db --cache $res/sweep-${be%% *}-$k.jsonl 2>&1 | tail -12
  done
done
echo "== npb:C form1 with the swept entries"
timeout 150 $new --suite cg --backend cuda,opencl:1 --problem npb:C --variant form1 --precision f64 --repetitions 5 --tuning-db $db --format json --out $res/npbC-swept.json 2>&1 | tail -14
summ $res/npbC-swept.json
echo "== EP D"
timeout 120 $new --suite ep --backend cuda,opencl:1 --problem D --repetitions 3 --format json --out $res/epD.json 2>&1 | grep -E "^(cuda|opencl)" | head
summ $res/epD.json
tar czf $OUT/cg1.tar.gz -C $res .
date -u
