#### scratch/s85a.sh
#!/bin/bash
# Session 85 call 1: the whole GPU suite on HEAD (the review fixes of session 84) as seven groups
# on the carried kernel cache; then the racecheck rc-9 case alone; memcheck of the encode case
# with --report-api-errors no.
B=scratch/gpubin-s85
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
n0=$(find /tmp/ctest -name '*.cubin' | wc -l)
OUT=/tmp/o1 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "groups rc $?"
echo "cache entries: $n0 before, $(find /tmp/ctest -name '*.cubin' | wc -l) after"
tests=$PWD/$B/jitfp8_gpu_tests
free -g | head -2
s=$SECONDS
/usr/bin/time -v timeout 300 /usr/local/cuda/bin/compute-sanitizer --tool racecheck --error-exitcode 3 $tests 'a MoE dispatch on a cache hit performs no heap allocation' > /tmp/o1/race.log 2>&1
echo "racecheck rc=$? $((SECONDS - s)) s"; tail -40 /tmp/o1/race.log
s=$SECONDS
/usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 $tests 'encode_tensor_map rejects a description the driver rejects' > /tmp/o1/mc.log 2>&1
echo "memcheck rc=$? $((SECONDS - s)) s"; tail -5 /tmp/o1/mc.log

#### scratch/s85b.sh
#!/bin/bash
# Session 85 call 2: the new case (the quantizers at K = 2^31 - 128 and 2^31 - 144, one row);
# memcheck of the deliberate-rejection case with --report-api-errors no.
B=scratch/gpubin-s85
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
tests=$PWD/$B/jitfp8_gpu_tests
s=$SECONDS
/usr/bin/time -f "%e s, max RSS %M KB" $tests 'the quantizers on one row of 2^31*' -d yes 2>&1 | tee /tmp/o2/longest.log | grep -v "^$" | tail -30
echo "longest rows: $((SECONDS - s)) s"
for opt in "" "--report-api-errors no"; do
  s=$SECONDS
  /usr/local/cuda/bin/compute-sanitizer --tool memcheck $opt --error-exitcode 3 $tests 'encode_tensor_map rejects a description the driver rejects*' > /tmp/o2/mc.log 2>&1
  echo "memcheck [$opt] rc=$? $((SECONDS - s)) s: $(grep -E 'ERROR SUMMARY|test cases|All tests' /tmp/o2/mc.log | tr '\n' ' ')"
done

#### scratch/s85c.sh
#!/bin/bash
# Session 85 call 3: the longest-rows case again, with quantize_rowwise's offsets in 64 bits.
B=scratch/gpubin-s85
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
tests=$PWD/$B/jitfp8_gpu_tests
/usr/bin/time -f "%e s, max RSS %M KB" $tests 'the quantizers on one row of 2^31*' -d yes 2>&1 | tee /tmp/o3/longest.log | grep -v "^$" | tail -30

#### scratch/s85d.sh
#!/bin/bash
# Session 85 call 4: the whole GPU suite in its groups on the carried cache, with the review's
# strengthened GEMM, grouped and PDL tests, the longest-rows cases, and the colwise tokens fix.
B=scratch/gpubin-s85
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest JITFP8_REQUIRE_GPU=1
OUT=/tmp/o4 GROUP_TIMEOUT_S=560 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "groups rc $?"
grep -h "^longest\|^large tensors" /tmp/o4/tests-*.log
grep -h -E "^[0-9.]+ s: " /tmp/o4/tests-*.log | sort -rn | head -12

#### scratch/s85e.sh
#!/bin/bash
# Session 85 call 5: HEAD (the session's seven commits) -- the whole GPU suite in its groups on an
# empty kernel cache (every template digest changed), the GPU dispatch stress, then bench quant
# alone; the filled cache comes back for later calls.
B=scratch/gpubin-s85
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o5; trap 'tar -C /tmp -czf $OUT/o5.tgz o5; tar -C /tmp -czf $OUT/testcache85.tgz ctest' EXIT
export JITFP8_CACHE_DIR=/tmp/ctest JITFP8_REQUIRE_GPU=1
OUT=/tmp/o5 GROUP_TIMEOUT_S=400 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "groups rc $?"
grep -h "bit for bit\|^longest" /tmp/o5/tests-*.log | head -20
s=$SECONDS; timeout 120 $B/jitfp8_gpu_dispatch_stress 16 8 > /tmp/o5/stress.log 2>&1; echo "stress rc $? $((SECONDS - s)) s"; tail -2 /tmp/o5/stress.log
s=$SECONDS; timeout 150 $B/jitfp8-bench quant --json /tmp/o5/quant.json > /tmp/o5/quant.txt 2>&1; echo "bench quant rc $? $((SECONDS - s)) s"
cat /tmp/o5/quant.txt

#### scratch/s85f.sh
#!/bin/bash
# Session 85 call 6: the review's fixes (cache clear, the waiter test, the grouped graph test's
# guard, the longest-rows case checking bytes without writing out the expected 10 GiB, skips on
# a failed allocation): the whole GPU suite in its groups on the cache call 5 filled (carried).
B=scratch/gpubin-s85
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o6; trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest JITFP8_REQUIRE_GPU=1
n0=$(find /tmp/ctest -type f -name '*.kernel' | wc -l)
OUT=/tmp/o6 GROUP_TIMEOUT_S=400 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "groups rc $?"
echo "cache entries: $n0 before, $(find /tmp/ctest -type f -name '*.kernel' | wc -l) after"
grep -h -E "^[0-9.]+ s: " /tmp/o6/tests-*.log | sort -rn | head -8
grep -h "skipped" /tmp/o6/tests-*.log | head

#### scratch/s85g.sh
#!/bin/bash
# Session 85 call 7: the cases whose code changed after call 6 (the CPU check of the GPU
# reference, now through tests/gpu/cpu_scaled_dot.hpp; strided operands from the support library).
B=scratch/gpubin-s85
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest JITFP8_REQUIRE_GPU=1
$B/jitfp8_gpu_tests 'the GPU reference GEMM*,*reads A and B rows lda and ldb apart,gemm_fp8_nt*s bf16 D is its f32 D*,gemm_fp8_nt with M = 0 writes nothing' -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED" | head -20
#### scratch/s85h.sh
#!/bin/bash
# Session 85 call 8: HEAD e25e234 (prewarm counts an unwritten kernel as failed; the CLI's option
# rules): the GPU cases that prewarm, and a CLI prewarm for this device, on the carried cache.
B=scratch/gpubin-s85
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest JITFP8_REQUIRE_GPU=1
$B/jitfp8_gpu_tests '[dispatch],prewarm with load makes the first gemm_fp8_nt call capturable' -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED" | head -20
$B/jitfp8 prewarm --quiet kernels_cache/qwen3-30b-a3b.json; echo "prewarm (this device) rc $?"
$B/jitfp8 prewarm --quiet --jobs 2 --jobs 3 kernels_cache/qwen3-30b-a3b.json; echo "repeated option rc $?"
