#!/usr/bin/env bash
# Issue 59 on the H100, 2026-12-07, call 1: the tensor-core ceilings measured (roofline
# --remeasure into a copy of tuning-db/), then where GEMM stands on each shape class beside the
# vendors, and the target table (GPU and host) before any kernel change.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res
cp -r $root/tuning-db $res/tdb-committed
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call1.txt) 2>&1
pack() { tar czf $OUT/res1.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$' | grep -v -E '^  [a-z_]+:[0-9] +[0-9.]+ GB/s' | cut -c1-230; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks_throttle_reasons.active --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg; $g --version | head -2
echo "== 1. the ceilings, the tensor cores' with them (into the committed database's copy)"
timeout 120 $g roofline --remeasure --backend cuda --tuning-db $res/tdb-committed 2>&1 | filt | head -60
pack; date -u
run() { n=$1; t=$2; shift 2; timeout $t $g run --repetitions 3 --format json --out $res/$n.json "$@" 2>&1 | filt | grep -v "^  \(verif\|tuning\)" | head -90; pack; date -u; }
echo "== 2. GEMM's shape classes, CUDA, OpenCL and the vendors"
V=tuned,tensor,vendor
run shapes-square 100 --backend cuda,opencl:1 --suite gemm --precision all --variant $V --problem 8192,8191
run shapes-thin 120 --backend cuda,opencl:1 --suite gemm --precision all --variant $V --problem 8000x8000x72,7999x8001x256,64x8000x8000,8000x48x8000
run shapes-degenerate 120 --backend cuda,opencl:1 --suite gemm --precision all --variant $V --problem 1x8000x8000,8000x1x8000,8000x8000x1
echo "== 3. LU beside cuSOLVER"
run lu 90 --backend cuda,opencl:1 --suite lu --precision f64 --variant blocked,vendor --problem 4096,16384
echo "== 4. the host: DGEMM 4096 and LU 8192 beside OpenBLAS and BLIS"
export OPENBLAS_CORETYPE=SkylakeX BLIS_ARCH_TYPE=skx OPENBLAS_VERBOSE=2
run host-gemm $((585 - SECONDS - 60)) --backend openmp --suite gemm --precision f64 --variant packed,vendor,blis --problem 4096
run host-lu $((590 - SECONDS)) --backend openmp --suite lu --precision f64 --variant blocked,vendor --problem 8192
