# Session 107's device scripts.
# Call 1 ran scratch/s4.sh as is (ROUNDS=2 bash scratch/s4.sh): it is the last part of
# 2026-12-07b-patches-landed-multicast-l2-h100-scripts.sh, not copied here.
# Call 2: T0=$(date +%s); bash scratch/s5.sh; START=$(( $(date +%s) - T0 )) TOTAL=570 bash scratch/s6.sh
# Call 3: bash scratch/s7.sh. Call 4: bash scratch/s8.sh.
# ---- scratch/s5.sh
#!/usr/bin/env bash
# Session 107, call 2. Binaries: scratch/gpubin-p = 9c2fe5d's code (the wgrad 192 x 128 pairs
# sharing A below 32 K blocks). Carry: .deps scratch/gpubin-p scratch/s5.sh. 2112 x 4096 x 7168 is an anchor row.
B=scratch/gpubin-p
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
# 1. The weight-gradient GPU tests on the patched binaries.
JITFP8_CACHE_DIR=/tmp/c-wgrad timeout 240 $B/jitfp8_gpu_tests "[wgrad]" --warn NoAssertions > $OUT/wgrad-tests.log 2>&1
echo "wgrad tests rc $? after $((SECONDS - start)) s: $(grep -E '^(All tests passed|test cases)' $OUT/wgrad-tests.log | tail -1)"
# 2. The picks now: three shapes the patch moves to pairs, the three anchor wgrad rows.
timeout 120 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 \
  --wgrad-shapes "6144,4096,2048;8192,4096,2048;24576,7168,3584;7168,4096,2048;4096,4096,7168;24576,4096,1536" > $OUT/picks.txt 2>&1
echo "picks rc $? after $((SECONDS - start)) s"
grep -E "^ *[0-9]+ +[0-9]+ +[0-9]+ \|" $OUT/picks.txt | cut -c1-60,150-
# 3. Over 32+ K blocks: the 18 shapes of a grid (M 1536-24576, N 1024-7168, K 4096-16384) whose pick
# stays 192 x 128 alone (the 256 x 128 pairs would give an SM more rows) with even N blocks and
# more than two rounds, against the same tiles in pairs sharing A. Two runs.
for r in 1 2; do
  timeout 200 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 --wgrad-configs "192x128:4:2a:1:2:0" \
    --wgrad-shapes "2112,4096,4096;2112,4096,7168;2112,4096,8192;2112,4096,16384;2112,7168,4096;2112,7168,8192;2112,7168,16384;3072,5120,4096;3072,5120,8192;3072,5120,16384;6144,1536,4096;6144,1536,8192;6144,1536,16384;6144,5120,4096;6144,5120,8192;6144,5120,16384;12288,1536,4096;12288,1536,8192;12288,1536,16384" > $OUT/long-$r.txt 2>&1
  echo "long run $r rc $? after $((SECONDS - start)) s"
done
grep -E "sweep" $OUT/long-1.txt | cut -c1-130
# ---- scratch/s6.sh
#!/usr/bin/env bash
# Session 107: the weight-gradient chooser's 256 x 112 picks (3 stages, staged whole, alone: its
# measured per-block costs over 32+ K blocks) where N's 112-blocks pair and there are more than two
# rounds (108 shapes of a grid of M 1024-32768 x N 1024-8192 x K 1024-16384 on 132 SMs), against
# the same tiles in pairs sharing A and against 256 x 128 pairs staged in halves (the chooser's
# long-K pairs elsewhere). 16 of those shapes; runs while the call has time (TOTAL, default 560 s
# from the call's start: pass START as $SECONDS of the caller). Binaries: scratch/gpubin-p.
B=scratch/gpubin-p
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=${START:-0}
for r in 1 2; do
  left=$(( ${TOTAL:-560} - (SECONDS + start) ))
  [ $left -lt 100 ] && { echo "wide run $r skipped: $left s left"; break; }
  timeout $((left - 5)) $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 \
    --wgrad-configs "256x112:3:2a:7:1:0;256x128:3:2a:2:2:0" \
    --wgrad-shapes "1536,7168,8192;3072,7168,4096;4096,8192,16384;5120,5120,8192;6144,2880,8192;6144,7168,4096;7168,1536,8192;8192,7168,8192;12288,5120,6144;12288,7168,16384;16384,2880,4096;16384,8192,8192;24576,2816,8192;24576,7168,4096;32768,5120,16384;32768,8192,6144" > $OUT/wide-$r.txt 2>&1
  echo "wide run $r rc $? after $((SECONDS + start)) s"
done
grep -E "sweep" $OUT/wide-1.txt | cut -c1-130
# ---- scratch/s7.sh
#!/usr/bin/env bash
# Session 107, call 3. Binaries: scratch/gpubin-q = the chooser pairing 192 x 128 tiles at any K
# (not yet committed when built) and a GPU config case for 256 x 112 pairs.
# Carry: .deps scratch/gpubin-q scratch/s7.sh
B=scratch/gpubin-q
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
# 1. Every kind of weight-gradient configuration, now with 256 x 112 pairs.
JITFP8_CACHE_DIR=/tmp/c-wgrad timeout 200 $B/jitfp8_gpu_tests "gemm_fp8_wgrad is correct with every kind of configuration" --warn NoAssertions > $OUT/config-case.log 2>&1
echo "config case rc $? after $((SECONDS - start)) s: $(grep -E '^(All tests passed|test cases)' $OUT/config-case.log | tail -1)"
# 2. The picks over 32+ K blocks now (192 x 128 pairs), rows checked against the reference.
timeout 100 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 \
  --wgrad-shapes "2112,4096,7168;6144,5120,8192;12288,1536,16384" > $OUT/picks.txt 2>&1
echo "picks rc $? after $((SECONDS - start)) s"
grep -E "^ *[0-9]+ +[0-9]+ +[0-9]+ \|" $OUT/picks.txt | cut -c1-60,150-
# 3. 256 x 112 picks against the same tiles in pairs on A: 16 shapes held out from call 2's.
for r in 1 2; do
  timeout 170 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 --wgrad-configs "256x112:3:2a:7:1:0" \
    --wgrad-shapes "1536,7168,16384;2816,7168,4096;3072,7168,16384;4096,8192,4096;5120,2880,16384;6144,2880,4096;7168,1536,4096;7168,8192,16384;8192,8192,8192;12288,8192,6144;16384,2816,6144;16384,7168,8192;24576,2880,16384;24576,5120,4096;32768,2880,8192;32768,7168,4096" > $OUT/wide-$r.txt 2>&1
  echo "wide run $r rc $? after $((SECONDS - start)) s"
done
grep -E "sweep" $OUT/wide-1.txt | cut -c1-130
# ---- scratch/s8.sh
#!/usr/bin/env bash
# Session 107, call 4. Binaries: scratch/gpubin-r = the chooser as committed after this call's
# (192 x 128 pairs at any K, 256 x 112 pairs over 32+ K blocks). Carry: .deps scratch/gpubin-r scratch/s8.sh
B=scratch/gpubin-r
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
JITFP8_CACHE_DIR=/tmp/c-wgrad timeout 150 $B/jitfp8_gpu_tests "[wgrad]" --warn NoAssertions > $OUT/wgrad-tests.log 2>&1
echo "wgrad tests rc $? after $((SECONDS - start)) s: $(grep -E '^(All tests passed|test cases)' $OUT/wgrad-tests.log | tail -1)"
# Shipped manifests' weight-gradient plans that move to pairs (K 8192, 8192 tokens), the pick
# (checked against the reference) beside the same tile alone.
timeout 150 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 --wgrad-configs "256x112:3:1:7:1:0;192x128:4:1:1:2:0" \
  --wgrad-shapes "2112,7168,8192;12288,1536,8192;36864,7168,8192;4096,10944,8192;5120,2880,8192;10240,5120,8192;8192,28672,8192" > $OUT/manifest.txt 2>&1
echo "manifest rc $? after $((SECONDS - start)) s"
grep -E "sweep|^ *[0-9]+ +[0-9]+ +[0-9]+ \|" $OUT/manifest.txt | cut -c1-60,100-
# ---- scratch/s9.sh (not run: for the next session)
#!/usr/bin/env bash
# Next session (108): the weight-gradient picks still alone where N's blocks pair over more than
# two rounds, after bb6cb0f (18 of 1200 shapes of the grid M 1024-32768 x N 1024-8192 x
# K 1024-16384 on 132 SMs), against the same tiles in pairs sharing A; then the anchors' seven
# weight-gradient rows on the landed chooser. Binaries: bb6cb0f's code in scratch/gpubin.
# Carry: .deps scratch/gpubin scratch/gpubin-turns scratch/s9.sh. About 250-350 s.
B=scratch/gpubin
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
bench() { timeout 120 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 "$@"; }
for r in 1 2; do
  bench --wgrad-configs "128x112:5:2a:7:1:0" --wgrad-shapes "1024,7168,2048;1024,7168,3072;5120,5120,2048;5120,5120,3072;7168,1536,2048;7168,1536,3072" > $OUT/t128x112-$r.txt 2>&1
  bench --wgrad-configs "192x112:3:2a:7:1:0" --wgrad-shapes "1536,7168,2048;1536,7168,3072;2112,5120,2048;2112,5120,3072;2112,5120,4096;2112,5120,6144;2112,5120,8192;2112,5120,16384" > $OUT/t192x112-$r.txt 2>&1
  bench --wgrad-configs "256x96:4:2a:1:2:0" --wgrad-shapes "12288,2880,4096;12288,2880,6144;12288,2880,8192;12288,2880,16384" > $OUT/t256x96-$r.txt 2>&1
  echo "run $r after $((SECONDS - start)) s"
done
grep -h sweep $OUT/t*-1.txt | cut -c1-130
bench > $OUT/anchors.txt 2>&1
echo "anchors rc $? after $((SECONDS - start)) s"
grep -E "^ *[0-9]+ +[0-9]+ +[0-9]+ \|" $OUT/anchors.txt | cut -c1-175
# Part B: the sweeps timed in turns (-sweep-in-turns-unrun.patch; its bench in scratch/gpubin-turns,
# carry it too). An A/A check: the pick twice more beside the tile alone, with the bench as it
# is (candidates one after the other, the pick first) and with the patch (in turns). In turns,
# the pick and its copies should agree within noise; one after the other, the first may not.
# Then each other sweep once on the patched bench (forward, M-grouped masked, K-grouped).
T=scratch/gpubin-turns
for bin in $B $T; do
  echo "=== $bin"
  LD_LIBRARY_PATH=$PWD/$bin:$LD_LIBRARY_PATH timeout 100 $bin/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 \
    --wgrad-configs "192x128:4:2a:1:2:0;192x128:4:2a:1:2:0;192x128:4:1:1:2:0" --wgrad-shapes "6144,4096,2048;24576,7168,3584" 2>&1 | grep -E "sweep|rror"
done
export LD_LIBRARY_PATH=$PWD/$T:$LD_LIBRARY_PATH
timeout 100 $T/jitfp8-bench gemm --forward-only --sweep --iters 10 --flush-mb 2048 --shapes "4096,7168,2048" > $OUT/turns-forward.txt 2>&1; echo "forward rc $?"
timeout 100 $T/jitfp8-bench moe --only masked --sweep --shapes "32x192,6144,7168" > $OUT/turns-masked.txt 2>&1; echo "masked rc $?"
timeout 100 $T/jitfp8-bench moe --only kgrouped --sweep --shapes "4x8192,4096,7168" > $OUT/turns-kgrouped.txt 2>&1; echo "kgrouped rc $?"
grep -hE "sweep|rror" $OUT/turns-*.txt | head -40
echo "after $((SECONDS - start)) s"
