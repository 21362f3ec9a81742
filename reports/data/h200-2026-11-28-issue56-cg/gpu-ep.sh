#!/usr/bin/env bash
# Issue 56 item 4: EP on NVIDIA's OpenCL with CUDA's seeds and truncation by inline PTX, against
# fddea8b's build (gpu/old), alternating, CUDA beside OpenCL in each run; the EP, CG and LU OpenCL
# tests on the GPU.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .probe/gpu.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db
new=/tmp/g/gpu/bin/gpubench old=/tmp/g/gpu/old/bin/gpubench
res=/tmp/res; mkdir -p $res
exec > >(tee $OUT/log-ep.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
$new --version; $old --version
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp /tmp/g/gpu/bin/gpubench $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && timeout 200 /tmp/g/gpu/bin/gpubench_tests --gtest_filter='*EpOperations*opencl*:*EpOperations*cuda*:*CgOperations*opencl*:LuOpencl.ThePanels*:LuOpencl.EveryVariant*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |FAILED|tests ran" | tail -8)
for round in 1 2; do
  for v in old new; do
    b=$new; [ $v = old ] && b=$old
    echo "== EP D $v round $round"
    timeout 120 $b --suite ep --backend cuda,opencl:1 --problem D --repetitions 3 --format json --out $res/epD-$v-$round.json 2>&1 | grep -E "^(cuda|opencl)"
  done
done
tar czf $OUT/ep.tar.gz -C $res .
date -u
