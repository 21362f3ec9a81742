#!/usr/bin/env bash
# Call 2 on call 1's machine while warm: the tracked set's GEMM entries, then Nsight Compute of the
# thin shapes' kernels that miss 85% of cuBLAS (f32 tuned split K, f64 tensor) and of cuBLAS there.
set -u; root=$PWD
[ -x /tmp/g/gpu/bin/gpubench ] || { mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g; }
source /tmp/g/gpu/env.sh; export PATH=$PATH:/usr/local/cuda/bin
res=/tmp/res2; rm -rf $res; mkdir -p $res/records
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db GPUBENCH_TUNING_DB=$res/tdb
g=/tmp/g/gpu/bin/gpubench; L=${L:-585}
exec > >(tee $OUT/log-call2.txt) 2>&1
pack() { tar czf $OUT/res2.tar.gz -C $res .; }
date -u
# call 1's square f64 and LU steps ran to their limits: again, with room
timeout 100 $g run --isolate off --repetitions 3 --format json --out $res/sq-f64.json --backend cuda,opencl:1 --suite gemm --precision f64 --variant tensor,vendor --problem 8192,8191 > $res/sq-f64.log 2>&1; echo "== sq-f64 rc=$? at $SECONDS s"; grep -E "^(cuda|opencl):|^gemm " $res/sq-f64.log; pack
timeout 120 $g run --isolate off --repetitions 3 --format json --out $res/lu.json --backend cuda,opencl:1 --suite lu --precision f64 --variant blocked,vendor --problem 4096,16384 --breakdown > $res/lu.log 2>&1; echo "== lu rc=$? at $SECONDS s"; grep -E "^(cuda|opencl):|^lu |^  (panel|laswp|trsm|gemm|getrf) " $res/lu.log; pack
GPUBENCH_BINARY=$g timeout 200 python3 $root/reports/track.py run --set $root/reports/nightly.json --only gemm,gemm-thin,gemm-degenerate --history $res/history.sqlite --records $res/records > $res/track.log 2>&1; echo "== track rc=$? at $SECONDS s"
grep -E "track:.*repetitions|FAIL|rror|warning" $res/track.log | tail -8; pack
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats"
prof() { n=$1; t=$2; shift 2; [ $((SECONDS + 20)) -lt $L ] || { echo "== ncu $n skipped"; return; }; t=$(( t < L - SECONDS - 5 ? t : L - SECONDS - 5 )); timeout $t ncu --clock-control none $S "$@" > $res/ncu-$n.txt 2>&1; echo "== ncu $n rc=$?"; grep -E "^  [a-zA-Z_]+.*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Grid Size|Block Size|Waves Per SM|Theoretical Occupancy" $res/ncu-$n.txt | head -30; pack; }
P="run --isolate off --repetitions 1 --backend cuda --suite gemm"
prof sgemm-64x8000 90 --kernel-name regex:gemm --launch-skip 2 --launch-count 4 $g $P --precision f32 --variant tuned --problem 64x8000x8000
prof sgemm-8000x48 90 --kernel-name regex:gemm --launch-skip 2 --launch-count 4 $g $P --precision f32 --variant tuned --problem 8000x48x8000
prof dgemm-thin 90 --kernel-name regex:gemm --launch-skip 2 --launch-count 4 $g $P --precision f64 --variant tensor --problem 64x8000x8000,8000x8000x72
date -u
