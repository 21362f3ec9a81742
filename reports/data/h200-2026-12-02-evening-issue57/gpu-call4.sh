#!/usr/bin/env bash
# Call 4: the whole offload test program on the GPU with this stop's modules, then GEMM 4096 and
# LU 8192 on Clang with the swept GEMM tuned entry beside CUDA.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
mkdir -p /tmp/m && tar xJf .gpu/mods.tar.xz -C /tmp/m && cp /tmp/m/libgpubench_omp_target*.so /tmp/g/gpu/lib/gpubench/
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res
exec > >(tee $OUT/log-call4.txt) 2>&1
pack() { tar czf $OUT/res4.tar.gz -C $res .; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. GEMM 4096 and LU 8192 f64, Clang beside CUDA"
timeout 60 $g run --backend cuda,omp_target_clang:0 --suite gemm --problem 4096 --precision f64 --variant tuned,tensor --repetitions 3 --format json --out $res/gemm-4096.json 2>&1 | grep -E "^(cuda|omp)|FAIL|gemm/tuned" | tail -6
timeout 60 $g run --backend cuda,omp_target_clang:0 --suite lu --problem 8192 --precision f64 --variant blocked --repetitions 3 --breakdown --format json --out $res/lu-8192.json 2>&1 | grep -E "^(cuda|omp)|FAIL|  (panel|laswp|trsm|gemm) " | tail -12
pack; date -u
echo "== 2. the offload tests on the GPU"
src=/work/main
if [ "$root" != "$src" ]; then mkdir -p $src && cp -a $root/. $src/; fi
mkdir -p $src/build/release/bin $src/build/release/lib
cp $g $src/build/release/bin/ && cp -r /tmp/g/gpu/lib/gpubench $src/build/release/lib/
(cd $src && env -u OMP_TARGET_OFFLOAD timeout $((560 - SECONDS)) /tmp/g/gpu/bin/gpubench_omp_target_tests 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |^\[       OK|tests ran|Failure|Expected|Which is|actual" | tail -40)
date -u
