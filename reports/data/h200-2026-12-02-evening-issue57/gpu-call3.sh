#!/usr/bin/env bash
# Call 3: the spec example's offload objects from the carried cache (both compilers, --tuning off:
# the cache was filled on a host with the spec's defaults), and the four models side by side at
# GEMM 4096 and LU 8192 with Clang's new GEMM tuned and LU panel.
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
mkdir -p /tmp/m && tar xJf .gpu/mods.tar.xz -C /tmp/m && cp /tmp/m/libgpubench_omp_target*.so /tmp/g/gpu/lib/gpubench/
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res
exec > >(tee $OUT/log-call3.txt) 2>&1
pack() { tar czf $OUT/res3.tar.gz -C $res .; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. the spec example, offload objects from the carried cache"
mkdir -p /tmp/k && tar xJf .gpu/kcache.tar.xz -C /tmp/k && export GPUBENCH_KERNEL_CACHE=/tmp/k/kcache
timeout 60 $g run --spec $root/examples/reduction/reduction.json --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --problem n=1048576 --precision f64 --repetitions 3 --tuning off --format json --out $res/spec-reduction.json 2>&1 | grep -E "^(cuda|opencl|omp)|FAIL|spec/" | tail -10
unset GPUBENCH_KERNEL_CACHE
pack; date -u
echo "== 2. the four models: GEMM 4096 f64, LU 8192 f64"
timeout 120 $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --suite gemm --problem 4096 --precision f64 --variant tiled,tuned,tensor,vendor --repetitions 3 --format json --out $res/gemm-4096.json 2>&1 | grep -E "^(cuda|opencl|omp)|FAIL" | tail -16
pack; date -u
timeout 150 $g run --backend cuda,opencl:1,omp_target:0,omp_target_clang:0 --suite lu --problem 8192 --precision f64 --variant blocked,vendor --repetitions 3 --breakdown --format json --out $res/lu-8192.json 2>&1 | grep -E "^(cuda|opencl|omp)|FAIL|  (panel|laswp|trsm|gemm|getrf) " | tail -30
pack; date -u
