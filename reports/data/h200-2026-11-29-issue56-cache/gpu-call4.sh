#!/usr/bin/env bash
# Issue 56: f9e91d4 (+ the gap causes' wording) against 0740de4 (gpu/old, with the tuning database
# it shipped with, gpu/olddb), alternating, three rounds, each run CUDA beside OpenCL:
# poisson2d:1024 form1 and classic (the tracked set's suspected +10.8% on OpenCL form1), NAS CG
# class C form1 with --tuning off (the staged slab SpMV on both: CUDA's kernel source changed),
# and poisson2d:4096 form1 (item 4) with the new build and its database.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
new=/tmp/g/gpu/bin/gpubench old=/tmp/g/gpu/old/bin/gpubench
exec > >(tee $OUT/log-ab.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version; $old --version
run() {  # label binary db args...
  local l=$1 b=$2 db=$3; shift 3
  GPUBENCH_COMMITTED_TUNING_DB=$db timeout 90 $b --suite cg --backend cuda,opencl:1 --precision f64 --repetitions 5 "$@" 2>&1 | grep -E "^(cuda|opencl)" | sed "s/^/$l /"
}
for round in 1 2 3; do
  run "old p1024 r$round" $old /tmp/g/gpu/olddb --problem poisson2d:1024 --variant form1,classic
  run "new p1024 r$round" $new $root/tuning-db --problem poisson2d:1024 --variant form1,classic
done
for round in 1 2; do
  run "old npbC-off r$round" $old /tmp/g/gpu/olddb --problem npb:C --variant form1 --tuning off
  run "new npbC-off r$round" $new $root/tuning-db --problem npb:C --variant form1 --tuning off
done
run "new p4096" $new $root/tuning-db --problem poisson2d:4096 --variant form1 --format json --out $OUT/p4096-new.json
date -u
