# Session 107's device scripts.
# Call 1 ran scratch/s4.sh as is (ROUNDS=2 bash scratch/s4.sh): it is the last part of
# 2026-12-07b-patches-landed-multicast-l2-h100-scripts.sh, not copied here.
# ---- scratch/s5.sh (call 2)
#!/usr/bin/env bash
# Session 107, call 2. Binaries: scratch/gpubin-p = dd151a7 + the wgrad 192 x 128 pairs patch
# (pairs sharing A below 32 K blocks). Carry: .deps scratch/gpubin-p scratch/s5.sh. 2112 x 4096 x 7168 is an anchor row.
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
