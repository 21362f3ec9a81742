#!/usr/bin/env bash
# The spec commands of call 2, run as written on the H100 there and here (without a GPU, on the
# offload backends' initial device) to fill the kernel cache that call 2 carries: the lent machine
# has no offload compiler, so its offload objects come from this machine's GCC 12 and Clang 19
# (the key then takes the version the backend was built with). $g is gpubench, $res the results.
d=$(cd "$(dirname "$0")" && pwd)
ex=$d/../../../examples/reduction/reduction.json
step() { echo "-- $*"; timeout 120 "$@" 2>&1 | grep -v -E '^\s*$|loop not vectorized|^  [a-z_]+:[0-9] +[0-9.]+ GB/s|^  device +bandwidth' | cut -c1-260 | tail -24; }
step $g run --spec $ex --backend ${SPEC_BACKENDS:-cuda,opencl:1,openmp,omp_target:0,omp_target_clang:0} --problem n=16777216 --precision f64 --repetitions 3 --format json --out $res/spec-reduction.json
for b in openmp omp_target:0 omp_target_clang:0; do
  step $g sweep --spec $ex --backend $b --problem n=16777216 --precision f64 --exhaustive --param group=64,256,1024 --param items=4,8,16 --param final=256 --tuning-db $res/spec-tdb --format json --out $res/spec-sweep-${b%:0}.json
done
for fault in right wrong overrun; do
  step $g run --spec $d/spec-faults/scale-$fault.json --backend openmp,omp_target:0,omp_target_clang:0 --precision f32 --repetitions 2 --format json --out $res/spec-$fault.json
done
