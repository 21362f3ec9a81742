#!/usr/bin/env bash
# Issue 59, 2026-12-07 night, call 1: the whole target table in one call (main with the thin
# shape class and the tuned kernel's split K): f32 on `tuned`, f64 on `tensor` (each API's default
# variant of that precision) beside cuBLAS and CLBlast on thin, degenerate and square shapes; LU;
# the host beside OpenBLAS and BLIS. Then the GPU tests of the split K (CUDA and NVIDIA's OpenCL).
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
filt() { grep -v -E '^\s*$' | grep -v -E '^gpubench: \[[0-9]+/[0-9]+\] .* on ' | grep -v -E '^gpubench:   .*(setting up|repetition)' | grep -v -E '^gpubench: \[[0-9]+/[0-9]+\] .* verified' | cut -c1-200; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks_throttle_reasons.active --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg; $g --version | head -2
L=${L:-585}
run() { n=$1; t=$2; shift 2; [ $((SECONDS + 15)) -lt $L ] || { echo "== $n skipped: the call's time"; return; }; t=$(( t < L - SECONDS ? t : L - SECONDS )); s0=$SECONDS; timeout $t $g run --isolate off --repetitions 3 --format json --out $res/$n.json "$@" > $res/$n.log 2>&1; echo "== $n rc=$? in $((SECONDS - s0)) s"; filt < $res/$n.log | grep -E "^(cuda|opencl|openmp):|^gemm |^lu |^  (panel|laswp|trsm|gemm|getrf) |warning|rror"; pack; }
B=cuda,opencl:1
T=8000x8000x72,7999x8001x256,64x8000x8000,8000x48x8000
run thin-f32 80 --backend $B --suite gemm --precision f32 --variant tuned,vendor --problem $T --breakdown
run thin-f64 80 --backend $B --suite gemm --precision f64 --variant tensor,vendor --problem $T --breakdown
D=1x8000x8000,8000x1x8000,8000x8000x1
run deg-f32 65 --backend $B --suite gemm --precision f32 --variant tuned,vendor --problem $D
run deg-f64 70 --backend $B --suite gemm --precision f64 --variant tensor,vendor --problem $D
run sq-f32 50 --backend $B --suite gemm --precision f32 --variant tuned,vendor --problem 8192
run sq-f64 60 --backend $B --suite gemm --precision f64 --variant tensor,vendor --problem 8192,8191
run lu 80 --backend $B --suite lu --precision f64 --variant blocked,vendor --problem 4096,16384 --breakdown
export OPENBLAS_CORETYPE=SkylakeX BLIS_ARCH_TYPE=skx OPENBLAS_VERBOSE=2
run host-gemm 25 --backend openmp --suite gemm --precision f64 --variant packed,vendor,blis --problem 4096
run host-lu 30 --backend openmp --suite lu --precision f64 --variant blocked,vendor --problem 8192 --breakdown
unset OPENBLAS_VERBOSE OPENBLAS_CORETYPE BLIS_ARCH_TYPE
date -u
echo "== tests (split K on the GPU: CUDA, NVIDIA's OpenCL)"
[ $((SECONDS + 30)) -lt $L ] && timeout $((L - SECONDS - 10)) /tmp/g/gpu/bin/gpubench_tests --gtest_filter='*GemmDevice*cuda_tuned*:*GemmDevice*opencl_tuned*:*GemmDevice*cuda_tensor*' > $res/tests.log 2>&1; echo "tests rc=$?"
grep -E "^\[ +(OK|FAILED|SKIPPED) |PASSED|FAILED|Failure|Expected" $res/tests.log | head -12
pack; date -u
