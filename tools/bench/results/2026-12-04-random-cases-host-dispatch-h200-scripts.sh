#!/bin/bash
# Session 82 call 1: the new [random] cases (K-grouped wgrad, random SM limits dense and wgrad,
# quantization family) with their default seeds, then the whole [random] set over other seeds.
B=scratch/gpubin-s82
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
export JITFP8_CACHE_DIR=/tmp/c82a
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > /tmp/o1/gpu.txt
end=$((SECONDS + 520))
for s in default 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  [ $SECONDS -lt $((end - 40)) ] || { echo "out of time before seed $s"; break; }
  if [ $s = default ]; then unset JITFP8_TEST_SEED; else export JITFP8_TEST_SEED=$s; fi
  t0=$SECONDS
  timeout $((end - SECONDS)) $B/jitfp8_gpu_tests "[random]" -d yes > /tmp/o1/random-$s.txt 2>&1; rc=$?
  echo "== seed $s rc $rc in $((SECONDS - t0)) s: $(grep -E '^(All tests passed|test cases)' /tmp/o1/random-$s.txt | tail -1)"
  grep -E "^[0-9.]+ s: " /tmp/o1/random-$s.txt | sed 's/^/   /'
  grep -B3 -A12 "FAILED" /tmp/o1/random-$s.txt | head -60
done
#!/bin/bash
# Session 82 call 2: memcheck on the four new [random] cases (default seeds), then
# tools/gpu_check.sh random (its first run on a GPU: it builds from source there) over one seed.
B=scratch/gpubin-s82
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
export JITFP8_CACHE_DIR=/tmp/c82b
for c in "gemm_fp8_nt's dispatch under random SM limits matches the reference" \
         "gemm_fp8_wgrad's dispatch under random SM limits matches the reference" \
         "gemm_fp8_grouped_wgrad's dispatch on random shapes and token counts matches per-expert references" \
         "quantization family on random shapes is bit-exact"; do
  t0=$SECONDS
  timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 $B/jitfp8_gpu_tests "$c" > /tmp/o2/memcheck-$t0.txt 2>&1
  echo "== memcheck rc $? in $((SECONDS - t0)) s: $c: $(grep -E 'ERROR SUMMARY|^(All tests passed|test cases)' /tmp/o2/memcheck-$t0.txt | tr '\n' ' ')"
done
t0=$SECONDS
OUT=/tmp/o2/gpu-check RANDOM_SEEDS="21" RANDOM_TIMEOUT_S=120 BUILD_DIR=/tmp/build-gpu JITFP8_CACHE_DIR=/tmp/c82c timeout 420 tools/gpu_check.sh random
echo "gpu_check.sh random rc $? in $((SECONDS - t0)) s"
#!/bin/bash
# Session 82 call 3: tools/gpu_check.sh random in a clean environment (no LD_LIBRARY_PATH), and
# which libstdc++ a device-built binary loads with and without call 2's LD_LIBRARY_PATH.
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
t0=$SECONDS
env -u LD_LIBRARY_PATH OUT=/tmp/o3/gpu-check RANDOM_SEEDS="21" RANDOM_TIMEOUT_S=150 BUILD_DIR=/tmp/build-gpu JITFP8_CACHE_DIR=/tmp/c82d timeout 400 tools/gpu_check.sh random
echo "gpu_check.sh random rc $? in $((SECONDS - t0)) s"
echo "== ldd, clean environment"; env -u LD_LIBRARY_PATH ldd /tmp/build-gpu/tests/jitfp8_gpu_tests | grep -E "stdc|jitfp8|fmt"
B=scratch/gpubin-s82
echo "== ldd, call 2's LD_LIBRARY_PATH"; LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 ldd /tmp/build-gpu/tests/jitfp8_gpu_tests | grep -E "stdc|jitfp8|fmt"
ls /usr/local/cuda/lib64 | grep -i -E "stdc|gcc" ; g++ --version | head -1
#!/bin/bash
# Session 82 call 4: racecheck and synccheck on the new K-grouped and quantization [random] cases (default seeds).
B=scratch/gpubin-s82
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
export JITFP8_CACHE_DIR=/tmp/c82e
$B/jitfp8_gpu_tests "gemm_fp8_grouped_wgrad's dispatch on random shapes and token counts matches per-expert references" "quantization family on random shapes is bit-exact" > /tmp/o4/warm.txt 2>&1
echo "warm-up (compiles): $(tail -1 /tmp/o4/warm.txt)"
for tool in racecheck synccheck; do
  for c in "gemm_fp8_grouped_wgrad's dispatch on random shapes and token counts matches per-expert references" \
           "quantization family on random shapes is bit-exact"; do
    t0=$SECONDS
    timeout 140 compute-sanitizer --tool $tool --error-exitcode 3 $B/jitfp8_gpu_tests "$c" > /tmp/o4/$tool-$t0.txt 2>&1
    echo "== $tool rc $? in $((SECONDS - t0)) s: $c: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^(All tests passed|test cases)' /tmp/o4/$tool-$t0.txt | tr '\n' ' ')"
  done
done
#!/bin/bash
# Session 82 call 5: what a dispatch costs the calling thread (tools/bench/probes/host_dispatch.cpp), twice.
B=scratch/gpubin-s82
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o5; trap 'tar -C /tmp -czf $OUT/o5.tgz o5' EXIT
export JITFP8_CACHE_DIR=/tmp/c82f
lscpu | grep -E "Model name|^CPU\(s\)|MHz" > /tmp/o5/cpu.txt; cat /tmp/o5/cpu.txt
for r in 1 2; do timeout 120 $B/host_dispatch 2>&1 | tee /tmp/o5/host-$r.txt; done
#!/bin/bash
# Session 82 call 6: the dispatch's host cost with the per-thread tensor-map memo (s82m) against
# without (s82), alternating, three rounds; then the [random] and [threads] GPU cases on the memo build.
mkdir -p /tmp/o6; trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
export JITFP8_CACHE_DIR=/tmp/c82g
for r in 1 2 3; do
  for v in s82 s82m; do
    B=scratch/gpubin-$v
    echo "== round $r $v"
    LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 timeout 60 $B/host_dispatch > /tmp/o6/host-$v-$r.txt 2>&1
    grep -E "PDL|dispatch|alone|encode" /tmp/o6/host-$v-$r.txt
  done
done
B=scratch/gpubin-s82m
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
t0=$SECONDS
timeout 200 scratch/gpubin-s82/jitfp8_gpu_tests "[random],[threads]" > /tmp/o6/tests.txt 2>&1
echo "tests rc $? in $((SECONDS - t0)) s: $(grep -E '^(All tests passed|test cases)' /tmp/o6/tests.txt)"
grep -B3 -A12 FAILED /tmp/o6/tests.txt | head -40
#!/bin/bash
# Session 82 call 7: the tensor-map memo's GPU test, and the launch-path groups, on the memo build.
# (As it ran, the test filter was "[tensor_map],[hit-path],[pdl],[dispatch]" with timeout 190; the
# lines below are the rerun of "[tensor_map]" alone after its fix, which the device did not finish.)
B=scratch/gpubin-s82m
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o7; trap 'tar -C /tmp -czf $OUT/o7.tgz o7' EXIT
export JITFP8_CACHE_DIR=/tmp/c82h
t0=$SECONDS
timeout 100 $B/jitfp8_gpu_tests "[tensor_map]" -d yes > /tmp/o7/tests.txt 2>&1
echo "tests rc $? in $((SECONDS - t0)) s: $(grep -E '^(All tests passed|test cases)' /tmp/o7/tests.txt)"
grep -E "^[0-9.]+ s: " /tmp/o7/tests.txt
grep -B3 -A12 FAILED /tmp/o7/tests.txt | head -40
