#!/usr/bin/env bash
# Call 3, the same warm machine: ncu of DGEMM tensor at 8191 and of LU 16384's panel leaves. As run.
source /tmp/g/gpu/env.sh; export PATH=$PATH:/usr/local/cuda/bin GPUBENCH_COMMITTED_TUNING_DB=$PWD/tuning-db GPUBENCH_TUNING_DB=/tmp/tdb2; g=/tmp/g/gpu/bin/gpubench; r=$OUT
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
timeout 55 ncu --clock-control none --kernel-name regex:gemm_tensor --launch-skip 1 --launch-count 1 $S $g run --isolate off --repetitions 1 --backend cuda --suite gemm --precision f64 --variant tensor --problem 8191 > $r/ncu-dgemm8191.txt 2>&1; echo d $?
timeout 60 ncu --clock-control none --kernel-name regex:'leaf|column_step|pivot' --launch-skip 20 --launch-count 2 $S $g run --isolate off --repetitions 1 --backend cuda --suite lu --precision f64 --variant blocked --problem 16384 > $r/ncu-lu.txt 2>&1; echo l $?
