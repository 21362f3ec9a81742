#!/usr/bin/env bash
# Call 2: call 1's LU leaf on Clang stopped with an illegal memory access. A standalone program
# (the leaf's library source and a main that runs the probe, one leaf of the panel's first w
# columns and checks it against a host getf2) in four builds: as committed, without the warp
# shuffles, with bar.sync for `omp barrier`, with both; and the first under compute-sanitizer.
# (Its first try stopped at "Unable to find target for this triple": main now registers LLVM's
# NVPTX target as the omp_target_clang module does.)
set -u
mkdir -p /tmp/g && tar xJf .gpu/bundle.tar.xz -C /tmp/g && tar xJf .gpu/llvm.tar.xz -C /tmp/g/gpu
source /tmp/g/gpu/env.sh
export PATH=$PATH:/usr/local/cuda/bin OMP_TARGET_OFFLOAD=MANDATORY
exec > >(tee $OUT/log-call2b.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
for t in plain noshfl barsync both; do
  for nw in "150 0" "150 32" "8192 64"; do echo "== $t $nw"; timeout 40 .leaftest/t_$t $nw 2>&1 | grep -v "loop not vectorized" | tail -8; done
done

echo "== compute-sanitizer plain 150 32"
timeout 120 compute-sanitizer --tool memcheck --show-backtrace device .leaftest/t_plain 150 32 2>&1 | grep -v "loop not vectorized" | head -60
date -u
