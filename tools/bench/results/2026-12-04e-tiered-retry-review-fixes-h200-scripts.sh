# ---- scratch/s86a.sh
#!/bin/bash
# Session 86 call 1: tiered compilation's retry after a failed background build (new case), the
# exit while a background compile is in flight (three processes), the whole GPU suite on the
# carried cache, the dispatch stress.
B=scratch/gpubin-s86
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_REQUIRE_GPU=1
echo "== [tiered]"
JITFP8_CACHE_DIR=/tmp/ctest $B/jitfp8_gpu_tests '[tiered]' -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED|with expansion" | head -40
echo "== exit with a background compile in flight"
for i in 1 2 3; do
  s=$SECONDS
  JITFP8_TIERED_COMPILE=1 JITFP8_LOG=info JITFP8_CACHE_DIR=/tmp/exit$i $B/jitfp8_gpu_tests 'gemm_fp8_nt matches the reference on odd shapes and tails' > /tmp/o1/exit$i.log 2>&1
  echo "run $i rc $? in $((SECONDS - s)) s: $(grep -c 'compiled .* (the full kernel follows' /tmp/o1/exit$i.log) quick, $(grep -c 'takes over' /tmp/o1/exit$i.log) taken over, $(find /tmp/exit$i -name '*.kernel' | wc -l) entries; $(grep -E 'passed|failed' /tmp/o1/exit$i.log | tail -1)"
done
echo "== suite"
n0=$(find /tmp/ctest -type f -name '*.kernel' | wc -l)
JITFP8_CACHE_DIR=/tmp/ctest OUT=/tmp/o1 GROUP_TIMEOUT_S=400 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "groups rc $?"
echo "cache entries: $n0 before, $(find /tmp/ctest -type f -name '*.kernel' | wc -l) after"
grep -h -E "^[0-9.]+ s: " /tmp/o1/tests-*.log | sort -rn | head -5
echo "== stress"
JITFP8_CACHE_DIR=/tmp/ctest timeout 120 $B/jitfp8_gpu_dispatch_stress 16 8 2>&1 | tail -3; echo "stress rc $?"

# ---- scratch/s86b.sh
#!/bin/bash
# Session 86 call 2: the tiered cases (two new: a failed background build retried by a call with
# no stand-in, settled or in flight) in three random orders; the grouped weight gradient's
# workspace refused before loading; the whole GPU suite on the carried cache.
B=scratch/gpubin-s86
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_REQUIRE_GPU=1 JITFP8_CACHE_DIR=/tmp/ctest
for seed in 1 2 3; do
  echo "== [tiered] order rand seed $seed"
  $B/jitfp8_gpu_tests '[tiered]' --order rand --rng-seed $seed -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED|with expansion|^  " | head -30
done
echo "== workspace"
$B/jitfp8_gpu_tests 'gemm_fp8_grouped_wgrad refuses a workspace too small*' -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED|with expansion" | head
echo "== suite"
OUT=/tmp/o2 GROUP_TIMEOUT_S=400 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "groups rc $?"
grep -h -E "^[0-9.]+ s: " /tmp/o2/tests-*.log | sort -rn | head -3

# ---- scratch/s86c.sh
#!/bin/bash
# Session 86 call 3: the tiered cases in three random orders, after the in-flight case's fix (it
# planned the new M before pausing the background thread, so the build ran before the pause).
B=scratch/gpubin-s86
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_REQUIRE_GPU=1 JITFP8_CACHE_DIR=/tmp/ctest3
for seed in 1 2 3; do
  echo "== [tiered] order rand seed $seed"
  $B/jitfp8_gpu_tests '[tiered]' --order rand --rng-seed $seed -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED|with expansion|^  " | head -30
done

# ---- call 4 (the run tool's command line; scratch/gpubin-mut: libjitfp8 built with the foreground retry disabled, 'if (false && ...')
export LD_LIBRARY_PATH=$PWD/scratch/gpubin-mut:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64; export JITFP8_REQUIRE_GPU=1 JITFP8_CACHE_DIR=/tmp/ctest4; scratch/gpubin-s86/jitfp8_gpu_tests 'tiered compilation: a kernel whose background build failed*,tiered compilation: a call with no stand-in waits*' 2>&1 | grep -E "passed|failed|FAILED|due to|jitfp8:" | head -20

# ---- scratch/s86d.sh (scratch/gpubin-mut: libjitfp8 built with the background rebuild disabled)
#!/bin/bash
# Session 86 call 5: tiered compilation rebuilds a failed background build at a later plan of the
# kernel (background) or at a call with nothing to launch (foreground): the tiered cases in three
# random orders; the same two cases on a library without the background rebuild (must fail);
# the tiered exit check; the whole GPU suite on the carried cache; the dispatch stress.
B=scratch/gpubin-s86
LIBS=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export LD_LIBRARY_PATH=$PWD/$B:$LIBS
mkdir -p /tmp/o5; trap 'tar -C /tmp -czf $OUT/o5.tgz o5' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_REQUIRE_GPU=1
for seed in 1 2 3; do
  echo "== [tiered] order rand seed $seed"
  JITFP8_CACHE_DIR=/tmp/ct$seed $B/jitfp8_gpu_tests '[tiered]' --order rand --rng-seed $seed -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED|with expansion|^  " | head -30
done
echo "== without the background rebuild (must fail)"
LD_LIBRARY_PATH=$PWD/scratch/gpubin-mut:$LIBS JITFP8_CACHE_DIR=/tmp/ctm $B/jitfp8_gpu_tests 'tiered compilation: a kernel whose background build failed*,tiered compilation: a call with no stand-in waits*' 2>&1 | grep -E "passed|failed|FAILED|with expansion|^  " | head -20
echo "== exit with a background compile in flight"
for i in 1 2 3; do
  s=$SECONDS
  JITFP8_TIERED_COMPILE=1 JITFP8_LOG=info JITFP8_CACHE_DIR=/tmp/exit$i $B/jitfp8_gpu_tests 'gemm_fp8_nt matches the reference on odd shapes and tails' > /tmp/o5/exit$i.log 2>&1
  echo "run $i rc $? in $((SECONDS - s)) s: $(grep -c 'the full kernel follows' /tmp/o5/exit$i.log) quick, $(grep -c 'takes over' /tmp/o5/exit$i.log) taken over; $(grep -E 'passed|failed' /tmp/o5/exit$i.log | tail -1)"
done
echo "== suite"
JITFP8_CACHE_DIR=/tmp/ctest OUT=/tmp/o5 GROUP_TIMEOUT_S=400 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "groups rc $?"
grep -h -E "^[0-9.]+ s: " /tmp/o5/tests-*.log | sort -rn | head -3
echo "== stress"
JITFP8_CACHE_DIR=/tmp/ctest timeout 120 $B/jitfp8_gpu_dispatch_stress 16 8 2>&1 | tail -2; echo "stress rc $?"

# ---- scratch/s86e.sh (scratch/gpubin-mut: libjitfp8 built with the background rebuild disabled)
#!/bin/bash
# Session 86 call 6: the tiered cases in three random orders after the test fix (the later M is
# searched for among those the heuristics give the same config; 3100 took multicast 1); the two
# retry cases on a library without the background rebuild (must fail).
B=scratch/gpubin-s86
LIBS=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export LD_LIBRARY_PATH=$PWD/$B:$LIBS JITFP8_REQUIRE_GPU=1
for seed in 1 2 3; do
  echo "== [tiered] order rand seed $seed"
  JITFP8_CACHE_DIR=/tmp/ct$seed $B/jitfp8_gpu_tests '[tiered]' --order rand --rng-seed $seed -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED|with expansion|^  " | head -30
done
echo "== without the background rebuild (must fail)"
LD_LIBRARY_PATH=$PWD/scratch/gpubin-mut:$LIBS JITFP8_CACHE_DIR=/tmp/ctm $B/jitfp8_gpu_tests 'tiered compilation: a kernel whose background build failed*,tiered compilation: a call with no stand-in waits*' 2>&1 | grep -E "passed|failed|FAILED|with expansion|^  " | head -20


# ---- scratch/s86f.sh
#!/bin/bash
# Session 86 call 7: tiered compilation under concurrency (new case: 8 threads dispatching new M
# of one problem, each D against the reference, then every M again), alone five times, and the
# [tiered] cases in two random orders.
B=scratch/gpubin-s86
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
for i in 1 2 3 4 5; do
  echo "== threads, run $i"
  JITFP8_CACHE_DIR=/tmp/cth$i $B/jitfp8_gpu_tests 'tiered compilation: threads dispatching new M*' -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED|with expansion|quick compiles|^  thread|^  M" | head -30
done
for seed in 4 5; do
  echo "== [tiered] order rand seed $seed"
  JITFP8_CACHE_DIR=/tmp/ct$seed $B/jitfp8_gpu_tests '[tiered]' --order rand --rng-seed $seed -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED|with expansion" | head -20
done

# ---- call 8 (the run tool's command line)
export LD_LIBRARY_PATH=$PWD/scratch/gpubin-s86:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1; for i in 1 2; do JITFP8_LOG=info JITFP8_CACHE_DIR=/tmp/cti$i scratch/gpubin-s86/jitfp8_gpu_tests 'tiered compilation: threads dispatching new M*' > /tmp/l$i.txt 2>&1; echo "run $i rc $?: $(grep -c 'the full kernel follows' /tmp/l$i.txt) quick compiles, $(grep -c 'stands in for' /tmp/l$i.txt) stand-in plans, $(grep -c 'takes over' /tmp/l$i.txt) taken over, $(grep -c 'built in the background; a stand-in' /tmp/l$i.txt) left to the background; $(tail -1 /tmp/l$i.txt)"; done

# ---- scratch/s86g.sh (call 9's scratch/gpubin-mut: a build_now call with a quick variant left the rebuild to the background)
#!/bin/bash
# Session 86 call 9: after the retry review: a build_now call rebuilds a failed kernel at once
# even where its quick variant runs (new case), background rebuilds skip a kernel taken over and
# count one upgrade; the 8-thread case also with failing background builds (new). [tiered] in
# three random orders; the threads cases three times more; the new case on a library that leaves
# that rebuild to the background (must fail); group 7 of the suite (the tiered cases' group).
B=scratch/gpubin-s86
LIBS=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export LD_LIBRARY_PATH=$PWD/$B:$LIBS JITFP8_REQUIRE_GPU=1
mkdir -p /tmp/o9; trap 'tar -C /tmp -czf $OUT/o9.tgz o9' EXIT
for seed in 6 7 8; do
  echo "== [tiered] order rand seed $seed"
  JITFP8_CACHE_DIR=/tmp/ct$seed $B/jitfp8_gpu_tests '[tiered]' --order rand --rng-seed $seed -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED|with expansion|^  " | grep -v "jitfp8 warn" | head -30
done
for i in 1 2 3; do
  echo "== threads, run $i"
  JITFP8_CACHE_DIR=/tmp/cth$i $B/jitfp8_gpu_tests 'tiered compilation: threads dispatching new M*' -d yes 2>&1 | grep -E "^[0-9.]+ s:|passed|failed|FAILED|with expansion|^  " | head -20
done
echo "== the quick-variant case without the rebuild at once (must fail)"
LD_LIBRARY_PATH=$PWD/scratch/gpubin-mut:$LIBS JITFP8_CACHE_DIR=/tmp/ctm $B/jitfp8_gpu_tests 'tiered compilation: a quick variant whose full kernel failed*' 2>&1 | grep -E "passed|failed|FAILED|with expansion|^  " | head -20
echo "== group 7"
tar -C /tmp -xzf scratch/testcache.tgz
JITFP8_CACHE_DIR=/tmp/ctest timeout 400 $B/jitfp8_gpu_tests '~[gemm]~[wgrad]~[moe]~[moe_wgrad]~[quant]~[large-tensors]' --order rand -d yes > /tmp/o9/group7.log 2>&1; echo "group 7 rc $?: $(grep -E '^(All tests passed|test cases)' /tmp/o9/group7.log | tail -1)"
grep -B2 -A8 FAILED /tmp/o9/group7.log | head -30

# ---- scratch/s86h.sh (call 9's scratch/gpubin-mut: a build_now call with a quick variant left the rebuild to the background)
#!/bin/bash
# Session 86 call 10: the quick-variant case counts compiles after its first reference check
# (seed 6 of call 9 ran it first in the process: the reference kernel's compile counted); [tiered]
# in the orders of seeds 6, 9 and 10.
B=scratch/gpubin-s86
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
for seed in 6 9 10; do
  echo "== [tiered] order rand seed $seed"
  JITFP8_CACHE_DIR=/tmp/cu$seed $B/jitfp8_gpu_tests '[tiered]' --order rand --rng-seed $seed 2>&1 | grep -E "passed|failed|FAILED|with expansion|^  " | grep -v "jitfp8 warn" | head -20
done


# ---- scratch/s86i.sh
#!/bin/bash
# Session 86 call 11 (final review): the GPU tests share test::reference_rows (tests/gpu/
# reference_rows.hpp) instead of nine copies of the reference call, and the registry one
# full_library: every group whose tests call the reference (not [quant], [large-tensors]), in
# parallel on the carried cache.
B=scratch/gpubin-s86
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
groups=("[gemm]" "[wgrad]" "[moe],[moe_wgrad]" "~[gemm]~[wgrad]~[moe]~[moe_wgrad]~[quant]~[large-tensors]")
for i in "${!groups[@]}"; do
  ( timeout 300 $B/jitfp8_gpu_tests "${groups[$i]}" --order rand > /tmp/g$i.log 2>&1
    echo "group ${groups[$i]}: rc=$? $(grep -E '^(All tests passed|test cases)' /tmp/g$i.log | tail -1)" ) &
done
wait
grep -h -B2 -A8 FAILED /tmp/g*.log | head -30
