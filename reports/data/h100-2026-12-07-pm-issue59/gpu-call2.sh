#!/usr/bin/env bash
# Call 2, on call 1's machine while it was still warm (the 157 s of device time left): LU beside
# cuSOLVER with its per-kernel times, the host's DGEMM and LU beside OpenBLAS and BLIS, ncu of
# SGEMM tuned. As run (one line there).
set -u; mkdir -p /tmp/g; [ -x /tmp/g/gpu/bin/gpubench ] || tar xJf .gpu/bundle.tar.xz -C /tmp/g; source /tmp/g/gpu/env.sh; export PATH=$PATH:/usr/local/cuda/bin GPUBENCH_COMMITTED_TUNING_DB=$PWD/tuning-db GPUBENCH_TUNING_DB=/tmp/tdb2; g=/tmp/g/gpu/bin/gpubench; r=$OUT; date -u
timeout 75 $g run --isolate off --repetitions 3 --backend cuda,opencl:1 --suite lu --precision f64 --variant blocked,vendor --problem 4096,16384 --breakdown --format json --out $r/lu.json > $r/lu.log 2>&1; echo lu $?
export OPENBLAS_CORETYPE=SkylakeX BLIS_ARCH_TYPE=skx
timeout 30 $g run --isolate off --repetitions 3 --backend openmp --suite gemm --precision f64 --variant packed,vendor,blis --problem 4096 --format json --out $r/host-gemm.json > $r/host-gemm.log 2>&1; echo hg $?
timeout 50 $g run --isolate off --repetitions 3 --backend openmp --suite lu --precision f64 --variant blocked,vendor --problem 8192 --breakdown --format json --out $r/host-lu.json > $r/host-lu.log 2>&1; echo hl $?
timeout 60 ncu --clock-control none --kernel-name regex:gemm_tuned --launch-skip 1 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis $g run --isolate off --repetitions 1 --backend cuda --suite gemm --precision f32 --variant tuned --problem 8192 > $r/ncu-sgemm.txt 2>&1; echo ncu $?; date -u
