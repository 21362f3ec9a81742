#!/usr/bin/env bash
# Issue 59, 2026-12-07 late: the whole target table in one call (main 35d1ade+: the tensor
# kernel's aligned copies at odd sizes, CUDA's launch gate with its warm-up ungated): SGEMM 8192,
# DGEMM 8192 and 8191, the thin and degenerate shapes, LU 4096 and 16384 with per-kernel times,
# the host's DGEMM 4096 and LU 8192, each beside its vendor (cuBLAS, CLBlast, cuSOLVER, OpenBLAS,
# BLIS). --isolate off (one process a run), 3 repetitions a point.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call1.txt) 2>&1
pack() { tar czf $OUT/res1.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$' | grep -v -E '^gpubench: \[[0-9]+/[0-9]+\] .* on ' | grep -v -E '^gpubench:   .*(setting up|repetition)' | cut -c1-260; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks_throttle_reasons.active --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg; $g --version | head -2
L=575
run() { n=$1; t=$2; shift 2; [ $((SECONDS + 15)) -lt $L ] || { echo "== $n skipped: the call's time"; return; }; t=$(( t < L - SECONDS ? t : L - SECONDS )); s0=$SECONDS; timeout $t $g run --isolate off --repetitions 3 --format json --out $res/$n.json "$@" > $res/$n.log 2>&1; echo "== $n rc=$? in $((SECONDS - s0)) s"; filt < $res/$n.log | grep -v "^  \(verif\|tuning\)"; pack; }
B=cuda,opencl:1
echo "== 1. square: SGEMM 8192 (tuned), DGEMM 8192 and 8191 (tensor), beside cuBLAS and CLBlast"
run sq-f32 70 --backend $B --suite gemm --precision f32 --variant tuned,vendor --problem 8192
run sq-f64 90 --backend $B --suite gemm --precision f64 --variant tensor,vendor --problem 8192,8191
echo "== 2. thin and degenerate"
run thin 120 --backend $B --suite gemm --precision all --variant tuned,tensor,vendor --problem 8000x8000x72,7999x8001x256,64x8000x8000,8000x48x8000
run degenerate 90 --backend $B --suite gemm --precision all --variant tuned,tensor,vendor --problem 1x8000x8000,8000x1x8000,8000x8000x1
echo "== 3. LU beside cuSOLVER (with its per-kernel times)"
run lu 80 --backend $B --suite lu --precision f64 --variant blocked,vendor --problem 4096,16384 --breakdown
echo "== 4. the host beside OpenBLAS and BLIS"
export OPENBLAS_CORETYPE=SkylakeX BLIS_ARCH_TYPE=skx OPENBLAS_VERBOSE=2
run host-gemm 35 --backend openmp --suite gemm --precision f64 --variant packed,vendor,blis --problem 4096
run host-lu 55 --backend openmp --suite lu --precision f64 --variant blocked,vendor --problem 8192 --breakdown
date -u
