#!/usr/bin/env bash
# Call 1: the GPU suite on an empty cache (cubin check on every real cubin), cache verify of what it
# wrote, a second pass of two groups on the filled cache (every kernel from disk), dispatch stress.
B=scratch/gpubin-a
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
export JITFP8_CACHE_DIR=/tmp/ctest
mkdir -p /tmp/o1 /tmp/ctest
trap 'tar -C /tmp -czf $OUT/o1.tgz o1; tar -C /tmp -czf $OUT/testcache.tgz ctest' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
OUT_SAVE=$OUT
OUT=/tmp/o1 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "suite rc=$?"
OUT=$OUT_SAVE
$B/jitfp8 cache verify --cache-dir /tmp/ctest 2>&1 | tail -3; echo "verify rc=${PIPESTATUS[0]}"
$B/jitfp8 cache stats --cache-dir /tmp/ctest 2>&1 | tail -5
JITFP8_LOG=info $B/jitfp8_gpu_tests "[quant]" --order rand > /tmp/o1/quant-again.log 2>&1; echo "quant again rc=$?"
grep -c "cache hit" /tmp/o1/quant-again.log; grep -c "compiled " /tmp/o1/quant-again.log; grep -c "not used" /tmp/o1/quant-again.log; tail -2 /tmp/o1/quant-again.log
$B/jitfp8_gpu_dispatch_stress 16 8 2>&1 | tail -3; echo "stress rc=${PIPESTATUS[0]}"
#!/usr/bin/env bash
# Call 2: the new prewarm-with-load case on the library without its fix (must fail) and with it;
# the whole GPU suite on the final library over the carried cache; cache verify; dispatch stress.
B=scratch/gpubin-b
DEPS=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_REQUIRE_GPU=1
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
mkdir -p /tmp/o2
trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
CASE="tiered compilation: prewarm with load loads the full kernel it built, compiled once"
echo "== without the fix"; LD_LIBRARY_PATH=$PWD/scratch/gpubin-old:$DEPS $B/jitfp8_gpu_tests "$CASE" 2>&1 | grep -E "FAILED|with expansion|^  [0-9]|passed|failed" | head -20
echo "== with it"; LD_LIBRARY_PATH=$PWD/$B:$DEPS $B/jitfp8_gpu_tests "$CASE" 2>&1 | tail -2
export LD_LIBRARY_PATH=$PWD/$B:$DEPS
OUT_SAVE=$OUT
OUT=/tmp/o2 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "suite rc=$?"
OUT=$OUT_SAVE
$B/jitfp8 cache verify --cache-dir /tmp/ctest 2>&1 | tail -2
$B/jitfp8_gpu_dispatch_stress 16 8 2>&1 | tail -2; echo "stress rc=${PIPESTATUS[0]}"
#!/usr/bin/env bash
# Call 3: the prewarm-with-load case alone, with the info log, on the library without its fix and with it.
B=scratch/gpubin-b
DEPS=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_REQUIRE_GPU=1 JITFP8_LOG=info
CASE="tiered compilation: prewarm with load loads the full kernel it built*"
for lib in gpubin-old gpubin-b; do
  echo "== $lib"; LD_LIBRARY_PATH=$PWD/scratch/$lib:$DEPS $B/jitfp8_gpu_tests "$CASE" 2>&1 | grep -v "^$" | tail -40
done
#!/usr/bin/env bash
# Call 4: group 7 again in the same random order (Catch's default seed), with the info log, to see
# where the prewarm-with-load case's second compile comes from.
B=scratch/gpubin-b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest JITFP8_LOG=info
$B/jitfp8_gpu_tests "~[gemm]~[wgrad]~[moe]~[moe_wgrad]~[quant]~[large-tensors]" --order rand -d yes > $OUT/g7.log 2>&1
echo "rc=$?"
grep -n "04bdde\|1216,1664\|prewarm with load loads\|test cases" $OUT/g7.log | cut -c1-300 | head -30
#!/usr/bin/env bash
# Call 5: the prewarm-with-load case on an (N, K) of its own: without the fix (must fail), with it;
# then group 7 (the tiered cases) in a random order on the final library.
B=scratch/gpubin-b
DEPS=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_REQUIRE_GPU=1
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
CASE="tiered compilation: prewarm with load loads the full kernel it built and compiles it once"
for lib in gpubin-old gpubin-b; do
  echo "== $lib"; LD_LIBRARY_PATH=$PWD/scratch/$lib:$DEPS $B/jitfp8_gpu_tests "$CASE" 2>&1 | grep -E "FAILED|expansion|==|passed|failed|No tests" | head -20
done
export LD_LIBRARY_PATH=$PWD/$B:$DEPS
$B/jitfp8_gpu_tests "~[gemm]~[wgrad]~[moe]~[moe_wgrad]~[quant]~[large-tensors]" --order rand --rng-seed 87 > $OUT/g7.log 2>&1
echo "group 7 seed 87 rc=$?"; tail -3 $OUT/g7.log
#!/usr/bin/env bash
# Call 6: the whole GPU suite on the final library over the carried cache, cache verify (every real
# cubin through the one-pass name search), the prewarm-with-load case, the dispatch stress.
B=scratch/gpubin-c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
mkdir -p /tmp/o6
trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
OUT_SAVE=$OUT
OUT=/tmp/o6 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "suite rc=$?"
OUT=$OUT_SAVE
$B/jitfp8 cache verify --cache-dir /tmp/ctest 2>&1 | tail -2
$B/jitfp8 cache stats --cache-dir /tmp/ctest 2>&1 | tail -2
$B/jitfp8_gpu_dispatch_stress 16 8 2>&1 | tail -2; echo "stress rc=${PIPESTATUS[0]}"
