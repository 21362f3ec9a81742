#!/usr/bin/env bash
# Call 3: Clang's EP reduce at 1056 teams (the tracked set's failure in call 2) against 924, and
# the spec example's offload objects from a cache keyed by the spec file's name (not its folder).
set -u
root=$PWD
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin
export GPUBENCH_COMMITTED_TUNING_DB=$root/tuning-db OMP_TARGET_OFFLOAD=MANDATORY
g=/tmp/g/gpu/bin/gpubench
res=/tmp/res; mkdir -p $res
exec > >(tee $OUT/log-call3.txt) 2>&1
pack() { tar czf $OUT/res3.tar.gz -C $res .; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
echo "== 1. EP A reduce on Clang, the tuned launch (1024 threads, 8 teams a CU: 1056 teams), three runs of 10"
for i in 1 2 3; do timeout 40 $g run --backend omp_target_clang:0 --suite ep --problem A --variant reduce --repetitions 10 2>&1 | grep -E "^omp_target_clang|FAILED" | cut -c1-220; done
date -u
echo "== 2. the same, 7 and 8 teams a CU (924 and 1056 teams) and 4 (528), swept three times"
for i in 1 2 3; do timeout 60 $g sweep --backend omp_target_clang:0 --suite ep --problem A --param work_group_size=1024 --param work_groups_per_cu=4,7,8 --exhaustive --tuning-db /tmp/epdb$i 2>&1 | grep -E "configs|tally  |failed|wrong|WRONG|verif" | cut -c1-220 | tail -6; done
date -u
echo "== 3. the spec example on five backends, offload objects from the carried cache"
mkdir -p /tmp/k && tar xJf .gpu/kcache.tar.xz -C /tmp/k && export GPUBENCH_KERNEL_CACHE=/tmp/k/kcache
timeout 60 $g run --spec $root/examples/reduction/reduction.json --backend cuda,opencl:1,openmp,omp_target:0,omp_target_clang:0 --problem n=1048576 --precision f64 --repetitions 3 --format json --out $res/spec-reduction.json 2>&1 | grep -v '^\s*$' | grep -v "^  [a-z_]*:[0-9] *[0-9.]* GB/s" | tail -12
timeout 60 $g sweep --spec $root/examples/reduction/reduction.json --backend omp_target:0,omp_target_clang:0 --problem n=1048576 --precision f64 --param group=64,256 --param items=1,8 --param final=64,256 --exhaustive --tuning-db /tmp/spec-db 2>&1 | grep -v '^\s*$' | tail -12
pack; date -u
