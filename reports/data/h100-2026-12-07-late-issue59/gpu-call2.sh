#!/usr/bin/env bash
# Issue 59, 2026-12-07 late, call 2 (a fresh machine: call 1's was taken back before its second
# call ran): the whole target table again in one call, each shape class split by precision so that
# a step cut by its time loses little (call 1's thin and degenerate steps, 40 and 30 points at
# about 4 s each, ran past their limits and wrote nothing): f32 on `tuned`, f64 on `tensor` (each
# API's default variant of that precision) beside cuBLAS and CLBlast; LU; the host. Then the GPU
# tests of what changed, the tracked set's GEMM and LU entries, and ncu of DGEMM tensor at 8191.
# The shape classes call 1 lost come first (the session's device time was short after refused
# starts).
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res; rm -rf $res; mkdir -p $res/records
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench
exec > >(tee $OUT/log-call2.txt) 2>&1
pack() { tar czf $OUT/res2.tar.gz -C $res .; }
filt() { grep -v -E '^\s*$' | grep -v -E '^gpubench: \[[0-9]+/[0-9]+\] .* on ' | grep -v -E '^gpubench:   .*(setting up|repetition)' | grep -v -E '^gpubench: \[[0-9]+/[0-9]+\] .* verified' | cut -c1-200; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks_throttle_reasons.active --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg; $g --version | head -2
L=${L:-520}
run() { n=$1; t=$2; shift 2; [ $((SECONDS + 15)) -lt $L ] || { echo "== $n skipped: the call's time"; return; }; t=$(( t < L - SECONDS ? t : L - SECONDS )); s0=$SECONDS; timeout $t $g run --isolate off --repetitions 3 --format json --out $res/$n.json "$@" > $res/$n.log 2>&1; echo "== $n rc=$? in $((SECONDS - s0)) s"; filt < $res/$n.log | grep -E "^(cuda|opencl|openmp):|^gemm |^lu |^  (panel|laswp|trsm|gemm|getrf) |warning|rror"; pack; }
B=cuda,opencl:1
T=8000x8000x72,7999x8001x256,64x8000x8000,8000x48x8000
run thin-f32 80 --backend $B --suite gemm --precision f32 --variant tuned,vendor --problem $T
run thin-f64 80 --backend $B --suite gemm --precision f64 --variant tensor,vendor --problem $T
D=1x8000x8000,8000x1x8000,8000x8000x1
run deg-f32 65 --backend $B --suite gemm --precision f32 --variant tuned,vendor --problem $D
run deg-f64 65 --backend $B --suite gemm --precision f64 --variant tensor,vendor --problem $D
run sq-f32 50 --backend $B --suite gemm --precision f32 --variant tuned,vendor --problem 8192
run sq-f64 85 --backend $B --suite gemm --precision f64 --variant tensor,vendor --problem 8192,8191
run lu 80 --backend $B --suite lu --precision f64 --variant blocked,vendor --problem 4096,16384 --breakdown
export OPENBLAS_CORETYPE=SkylakeX BLIS_ARCH_TYPE=skx OPENBLAS_VERBOSE=2
run host-gemm 25 --backend openmp --suite gemm --precision f64 --variant packed,vendor,blis --problem 4096
run host-lu 30 --backend openmp --suite lu --precision f64 --variant blocked,vendor --problem 8192 --breakdown
unset OPENBLAS_VERBOSE OPENBLAS_CORETYPE BLIS_ARCH_TYPE
date -u
echo "== tests"
[ $((SECONDS + 40)) -lt $L ] && timeout 20 /tmp/g/gpu/bin/gpubench_cuda_tests --gtest_filter='*LaunchGate*' 2>&1 | grep -E "^\[ +(OK|FAILED) |PASSED|Failure" | tail -3
[ $((SECONDS + 60)) -lt $L ] && timeout 40 /tmp/g/gpu/bin/gpubench_tests --gtest_filter='*GemmDevice*cuda_tensor*' 2>&1 | grep -E "^\[ +(OK|FAILED|SKIPPED) |PASSED|Failure|Expected" | head -8
echo "== the tracked set's GEMM and LU entries"
[ $((SECONDS + 60)) -lt $L ] && GPUBENCH_BINARY=$g timeout $((L - 35 - SECONDS)) python3 $root/reports/track.py run --set $root/reports/nightly.json --only gemm,lu,gemm-degenerate,gemm-thin,gemm-4096,lu-4096 --history $res/history.sqlite --records $res/records > $res/track.log 2>&1; echo "== track rc=$?"
grep -E "track:.*repetitions|FAIL|rror|warning" $res/track.log | tail -8
pack
S="--section SpeedOfLight --section Occupancy --section WarpStateStats"
[ $((SECONDS + 25)) -lt $L ] && timeout $((L - SECONDS - 3)) ncu --clock-control none --kernel-name regex:'gemm_tensor|gemm_pad' --launch-skip 3 --launch-count 3 $S $g run --isolate off --repetitions 1 --backend cuda --suite gemm --precision f64 --variant tensor --problem 8191 > $res/ncu-dgemm8191.txt 2>&1; echo "== ncu rc=$?"
grep -E "^  [a-z_]+|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Grid Size" $res/ncu-dgemm8191.txt | head -24
pack; date -u
