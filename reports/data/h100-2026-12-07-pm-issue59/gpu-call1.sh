#!/usr/bin/env bash
# Issue 59, 2026-12-07 afternoon, the session's one call (main 3125aa6; the device time left fit
# one): the launch gate's GPU test, the whole target table beside the vendors (the square sizes
# with 8191, every thin and degenerate shape, LU, the host), the profiler on what misses (ncu:
# SGEMM tuned, DGEMM tensor at 8191, an f32 degenerate kernel, LU's panel), then the tracked set's
# GEMM and LU entries.
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
run() { n=$1; t=$2; shift 2; [ $((SECONDS + 20)) -lt 390 ] || { echo "== $n skipped: the call's time"; return; }; t=$(( t < 390 - SECONDS ? t : 390 - SECONDS )); timeout $t $g run --isolate off --repetitions 3 --format json --out $res/$n.json "$@" > $res/$n.log 2>&1; echo "== $n rc=$?"; filt < $res/$n.log | grep -v "^  \(verif\|tuning\)"; pack; date -u; }
B=cuda,opencl:1
echo "== 0. the launch gate's test"
timeout 60 /tmp/g/gpu/bin/gpubench_cuda_tests --gtest_filter='*LaunchGate*' 2>&1 | tail -4
echo "== 1. square: SGEMM 8192 (tuned), DGEMM 8192 and 8191 (tensor), beside cuBLAS and CLBlast"
run sq-f32 60 --backend $B --suite gemm --precision f32 --variant tuned,vendor --problem 8192
run sq-f64 80 --backend $B --suite gemm --precision f64 --variant tensor,vendor --problem 8192,8191
echo "== 2. thin and degenerate"
run thin 150 --backend $B --suite gemm --precision all --variant tuned,tensor,vendor --problem 8000x8000x72,7999x8001x256,64x8000x8000,8000x48x8000
run degenerate 100 --backend $B --suite gemm --precision all --variant tuned,tensor,vendor --problem 1x8000x8000,8000x1x8000,8000x8000x1
echo "== 3. LU beside cuSOLVER (with its per-kernel times)"
run lu 80 --backend $B --suite lu --precision f64 --variant blocked,vendor --problem 4096,16384 --breakdown
echo "== 4. the host beside OpenBLAS and BLIS"
export OPENBLAS_CORETYPE=SkylakeX BLIS_ARCH_TYPE=skx OPENBLAS_VERBOSE=2
run host-gemm 40 --backend openmp --suite gemm --precision f64 --variant packed,vendor,blis --problem 4096
run host-lu 60 --backend openmp --suite lu --precision f64 --variant blocked,vendor --problem 8192 --breakdown
unset OPENBLAS_VERBOSE
sw() { n=$1; t=$2; shift 2; [ $((SECONDS + 20)) -lt 390 ] || { echo "== sweep $n skipped: the call's time"; return; }; t=$(( t < 390 - SECONDS ? t : 390 - SECONDS )); timeout $t $g sweep --isolate off --tuning-db $res/tdb-sweep --format json --out $res/sweep-$n.json "$@" > $res/sweep-$n.log 2>&1; echo "== sweep $n rc=$?"; grep -vE "^gpubench: +\[" $res/sweep-$n.log | filt | tail -12; pack; }
sw host-packed 25 --backend openmp --suite gemm --precision f64 --kernel packed --problem 4096 --strategy exhaustive
echo "== 5. ncu"
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis"
nc() { n=$1; t=$2; k=$3; shift 3; [ $((SECONDS + 20)) -lt 390 ] || { echo "== ncu $n skipped: the call's time"; return; }; t=$(( t < 390 - SECONDS ? t : 390 - SECONDS )); timeout $t ncu --clock-control none --kernel-name regex:"$k" --launch-skip ${SKIP:-1} --launch-count ${LC:-1} $S $g run --isolate off --repetitions 1 "$@" > $res/ncu-$n.txt 2>&1; echo "== ncu $n rc=$?"; grep -E "^  [a-z_]+|Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Stall|Warp Cycles Per Issued|Issue Slots|Executed Ipc|Block Limit|Dynamic Shared|==PROF==|rror" $res/ncu-$n.txt | head -45; pack; }
nc sgemm 40 gemm_tuned --backend cuda --suite gemm --precision f32 --variant tuned --problem 8192
nc dgemm8191 40 gemm_tensor --backend cuda --suite gemm --precision f64 --variant tensor --problem 8191
for s in 1x8000x8000; do nc deg-$s 30 'gemm_(outer|rowdot|colsum|finish)' --backend cuda --suite gemm --precision f32 --variant tuned --problem $s; done
SKIP=40 LC=3 nc lu-panel 50 'column_step|pivot|leaf' --backend cuda --suite lu --precision f64 --variant blocked --problem 16384
date -u
echo "== 6. the tracked set's GEMM and LU entries"
mkdir -p $res/records
[ $((SECONDS + 30)) -lt 425 ] && GPUBENCH_BINARY=$g timeout $((425 - SECONDS)) python3 $root/reports/track.py run --set $root/reports/nightly.json --only gemm-degenerate,gemm-thin,gemm-4096,lu-4096,gemm,lu --history $res/history.sqlite --records $res/records > $res/track.log 2>&1; echo "== track rc=$?"
grep -E "track:|FAIL|rror" $res/track.log | tail -20
pack; date -u
