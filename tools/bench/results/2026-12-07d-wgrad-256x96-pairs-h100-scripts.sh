#!/usr/bin/env bash
# Session 108's device scripts, in call order (each was scratch/sN.sh, run from the repository root as
# `bash scratch/sN.sh` with $OUT set by the device tool). Calls 2 and 5 were typed in: below, as comments.

# ===== scratch/s9.sh
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

# ===== scratch/s10.sh
# Session 108, call 3: 256 x 96 tiles in pairs sharing A against the chooser's picks at
# gpt-oss's N 2880 and 5760 (96-column blocks whole and even; 128-column blocks odd), M 3072-32768
# (1536 at 5760), K 1536-8192; sweeps timed in turns (scratch/gpubin-turns). Two runs.
T=scratch/gpubin-turns
export LD_LIBRARY_PATH=$PWD/$T:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
for r in 1 2; do
  for n in 2880 5760; do
    shapes=""
    for m in 1536 3072 4096 6144 8192 12288 16384 24576 32768; do
      [ $m = 1536 ] && [ $n = 2880 ] && continue
      for k in 1536 2048 4096 8192; do shapes="$shapes;$m,$n,$k"; done
    done
    timeout 280 $T/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 --wgrad-configs "256x96:4:2a:1:2:0" \
      --wgrad-shapes "${shapes#;}" > $OUT/n$n-$r.txt 2>&1
    echo "n $n run $r rc $? after $((SECONDS - start)) s"
  done
done
for f in $OUT/n*-1.txt; do grep -h sweep $f | cut -c8-130; done

# ===== scratch/s11.sh
# Session 108, call 4: the 256 x 96 pairs rule (uncommitted, scratch/gpubin-108, sweeps in turns).
# Part A: the GPU suite's [wgrad] group (the forced-config case now has 256 x 96 pairs on A).
# Part B: held-out shapes whose picks the rule moves (N 960 / 1920 / 4032 / 5760 / 6720, and
# 3072 x 2880), the new pick against the old one, two runs.
B=scratch/gpubin-108
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
JITFP8_CACHE_DIR=/tmp/ctest timeout 200 $B/jitfp8_gpu_tests "[wgrad]" > $OUT/gpu-wgrad.txt 2>&1; echo "gpu [wgrad] rc $? after $((SECONDS - start)) s"; tail -3 $OUT/gpu-wgrad.txt
bench() { timeout 150 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 "$@"; }
for r in 1 2; do
  bench --wgrad-configs "256x128:3:2a:2:2:0" --wgrad-shapes "3072,4032,8192;6144,4032,4096;12288,4032,8192;5120,4032,6144;6144,1920,8192;12288,960,4096;24576,960,8192;2048,5760,8192" > $OUT/h256x128-$r.txt 2>&1
  bench --wgrad-configs "192x128:4:1:1:2:0" --wgrad-shapes "3072,2880,16384;8192,1920,4096;16384,1920,8192;32768,1920,4096;5120,6720,8192;7168,5760,4096;7168,5760,16384" > $OUT/h192x128-$r.txt 2>&1
  bench --wgrad-configs "256x96:4:1:1:2:0" --wgrad-shapes "16384,960,8192;24576,4032,4096;7168,4032,8192;8192,6720,4096;16384,6720,8192;2816,5760,8192;2816,5760,4096" > $OUT/h256x96-$r.txt 2>&1
  bench --wgrad-configs "128x128:4:1:2:2:0" --wgrad-shapes "4096,6720,4096;4096,6720,16384" > $OUT/h128x128-$r.txt 2>&1
  echo "run $r after $((SECONDS - start)) s"
done
grep -h sweep $OUT/h*-1.txt | cut -c1-130
grep -h rror $OUT/h*.txt | head

# ===== call 5 (typed in; scratch/gpubin-108 = call 4's binaries)
# B=scratch/gpubin-108; export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
# bench() { timeout 200 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 "$@"; }
# for r in 1 2; do
#   bench --wgrad-configs "256x96:4:2a:1:2:0;256x128:3:2a:2:2:0" --wgrad-shapes "3072,4032,8192;6144,4032,4096;12288,4032,8192;5120,4032,6144;6144,1920,8192;12288,960,4096;24576,960,8192;2048,5760,8192" > $OUT/p256x128-$r.txt 2>&1
#   bench --wgrad-configs "256x96:4:2a:1:2:0;192x128:4:1:1:2:0" --wgrad-shapes "3072,2880,16384;8192,1920,4096;16384,1920,8192;32768,1920,4096;5120,6720,8192;7168,5760,4096;7168,5760,16384" > $OUT/p192x128-$r.txt 2>&1
#   bench --wgrad-configs "256x96:4:2a:1:2:0;256x96:4:1:1:2:0" --wgrad-shapes "16384,960,8192;24576,4032,4096;7168,4032,8192;8192,6720,4096;16384,6720,8192;2816,5760,8192;2816,5760,4096" > $OUT/p256x96-$r.txt 2>&1
#   bench --wgrad-configs "256x96:4:2a:1:2:0;128x128:4:1:2:2:0" --wgrad-shapes "4096,6720,4096;4096,6720,16384" > $OUT/p128x128-$r.txt 2>&1
# done

# ===== scratch/s12.sh
# Session 108, call 6: the landed rule (256 x 96 pairs, no ping-pong; scratch/gpubin-108b):
# the GPU suite's [wgrad] group, then the chooser's new picks against the old ones on six shapes.
B=scratch/gpubin-108b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
JITFP8_CACHE_DIR=/tmp/ctest timeout 200 $B/jitfp8_gpu_tests "[wgrad]" > $OUT/gpu-wgrad.txt 2>&1; echo "gpu [wgrad] rc $? after $((SECONDS - start)) s"; tail -2 $OUT/gpu-wgrad.txt
bench() { timeout 150 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 "$@"; }
bench --wgrad-configs "192x128:4:1:1:2:0" --wgrad-shapes "7168,5760,16384;16384,1920,8192" > $OUT/c192.txt 2>&1
bench --wgrad-configs "256x96:4:1:1:2:0" --wgrad-shapes "12288,2880,8192;24576,4032,4096" > $OUT/c256x96.txt 2>&1
bench --wgrad-configs "256x128:3:2a:2:2:0" --wgrad-shapes "4096,2880,4096;8192,2880,4096" > $OUT/c256x128.txt 2>&1
echo "after $((SECONDS - start)) s"
grep -hE "sweep|^ *[0-9]+ +[0-9]+ +[0-9]+ \|" $OUT/c*.txt | cut -c1-175

# ===== scratch/s13.sh
# Session 108, call 7 (binaries: scratch/gpubin-108b, the landed rule; sweeps in turns).
# Part A: below 32 K blocks, 128 x 192 picks alone whose rounds 256 x 96 pairs match (N's
# 192-column blocks odd), held out from 12288 / 24576 x 2880 (call 3): the pick against
# 256 x 96 pairs, two runs. Part B: gpt-oss-120b's K-grouped weight gradients (N 2880: the
# chooser takes 128 x 192 alone), the kernel's sweep, two runs.
B=scratch/gpubin-108b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
for r in 1 2; do
  timeout 150 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 --wgrad-configs "256x96:4:2a:1:2:0" \
    --wgrad-shapes "16384,960,2048;32768,960,1536;7168,4032,2048;24576,4032,3072;2816,5760,2048;2816,6720,1536;8192,6720,2048;16384,6720,3072;24576,6720,1536;7168,6720,3072;32768,4032,2048" > $OUT/short-$r.txt 2>&1
  echo "short run $r rc $? after $((SECONDS - start)) s"
done
for r in 1 2; do
  timeout 200 $B/jitfp8-bench moe --only kgrouped --sweep --shapes "16x4096,5760,2880;16x4096,2880,2880;16x2048,5760,2880;16x8192,2880,2880" > $OUT/kg-$r.txt 2>&1
  echo "kgrouped run $r rc $? after $((SECONDS - start)) s"
done
grep -h sweep $OUT/short-1.txt | cut -c1-130
grep -hE "sweep|^ *16x" $OUT/kg-1.txt | cut -c1-150
grep -h rror $OUT/*.txt | head -5

# ===== scratch/s14.sh
# Session 108, call 8: the final code (scratch/gpubin-108c): the whole GPU suite in groups, then
# the chooser's 128 x 192 -> 256 x 96 pairs swap over 16-31 K blocks end to end (the pick
# against the old pick), one run.
B=scratch/gpubin-108c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
start=$SECONDS
JITFP8_CACHE_DIR=/tmp/c timeout 400 tools/gpu_test_groups.sh $B/jitfp8_gpu_tests > $OUT/gpu-suite.txt 2>&1; echo "gpu suite rc $? after $((SECONDS - start)) s"
tail -15 $OUT/gpu-suite.txt
JITFP8_CACHE_DIR=/tmp/cbench timeout 120 $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 --wgrad-configs "128x192:4:1:1:2:0" \
  --wgrad-shapes "12288,2880,2048;7168,4032,2048;24576,2880,3072" > $OUT/confirm.txt 2>&1; echo "bench rc $? after $((SECONDS - start)) s"
grep -hE "sweep|^ *[0-9]+ +[0-9]+ +[0-9]+ \|" $OUT/confirm.txt | cut -c1-175


# ===== scratch/s15.sh
# Session 108, call 9 (exploratory, for the next session): gpt-oss-120b's MoE forward shapes
# (16 experts of 2048 rows: N 5760 / 2880, K 2880 / 5760: K 22.5 blocks) and its dense o_proj
# forward (N 2880), each kernel's sweep in turns: is the pick the fastest candidate?
B=scratch/gpubin-108c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
timeout 200 $B/jitfp8-bench moe --only contiguous --sweep --shapes "16x2048,5760,2880;16x2048,2880,2880;16x2048,2880,5760" > $OUT/contig.txt 2>&1; echo "contiguous rc $? after $((SECONDS - start)) s"
timeout 120 $B/jitfp8-bench gemm --forward-only --sweep --iters 10 --flush-mb 2048 --shapes "4096,2880,4096;16384,5120,2880" > $OUT/forward.txt 2>&1; echo "forward rc $? after $((SECONDS - start)) s"
grep -hE "sweep|^ *16x| \| " $OUT/contig.txt | sort -t: -k2 -n | head -0
for f in contig forward; do echo "== $f"; grep -E "^ +[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/$f.txt | cut -c1-160; grep sweep $OUT/$f.txt | head -4 | cut -c1-120; done

# ===== scratch/s16.sh (not run: no device time left; for the next session)
# Next session: forward 128 x 192 picks alone over odd N blocks, large M, K 18-64 blocks
# (large_m_pair_b takes B pairs only up to 16), the shipped manifests' plans among them
# (gpt-oss's qkv 16384 x 5120 x 2880 ran 0.97x cuBLASLt, its sweep's 128 x 160 pairs on A 7.9%
# faster, 2026-12-07d call 9): each kernel's sweep in turns. A design half is printed; the
# held-out half goes to its file only, to be read after the rule is written.
# Binaries: scratch/gpubin-108c (2015c74's code). Carry .deps scratch/gpubin-108c scratch/s16.sh.
B=scratch/gpubin-108c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
# First the GPU case 2015c74 extended and could not run (3072 x 2880 x 4096: 256 x 96 pairs).
JITFP8_CACHE_DIR=/tmp/ctest timeout 120 $B/jitfp8_gpu_tests "gemm_fp8_wgrad on gpt-oss-120b*" 2>&1 | tail -2
timeout 150 $B/jitfp8-bench gemm --forward-only --sweep --iters 10 --flush-mb 2048 \
  --shapes "16384,5120,2880;8192,2880,4096;8192,2816,4096;8192,8192,4096;8192,8192,5120;16384,5120,2304;16384,2112,5760;32768,2880,4096" > $OUT/design.txt 2>&1
echo "design rc $? after $((SECONDS - start)) s"
timeout 150 $B/jitfp8-bench gemm --forward-only --sweep --iters 10 --flush-mb 2048 \
  --shapes "8192,5120,2880;16384,2880,5120;16384,10944,4096;16384,2048,4096;4096,51200,5120;16384,2880,2880;8192,2112,4096;32768,5120,2880" > $OUT/heldout.txt 2>&1
echo "held-out rc $? after $((SECONDS - start)) s"
grep -E "sweep .*(\*|128x192 st4 mc)" $OUT/design.txt | cut -c1-110
echo "fastest three of each design sweep:"
for s in $(grep -oE "^ +sweep +[0-9]+ +[0-9]+ +[0-9]+" $OUT/design.txt | awk '{print $2"_"$3"_"$4}' | sort -u); do
  IFS=_ read -r m n k <<< "$s"
  grep -E "sweep +$m +$n +$k " $OUT/design.txt | sort -t: -k2 -n | head -3 | cut -c1-110
done

# ===== scratch/s17.sh (not run: no device time left; for the next session)
# Next session: M-grouped contiguous picks alone over odd N blocks (gpt-oss's down projection
# 16 x 2048 x 2880 x 2880 ran 6.8% faster in pairs sharing A, half-empty last pair and all,
# 2026-12-07d call 9): each kernel's sweep in turns over expert sizes and odd-N-block shapes; a
# design half printed, a held-out half to its file only (read after the rule is written).
# Binaries: scratch/gpubin-108c (2015c74's code). Carry .deps scratch/gpubin-108c scratch/s17.sh.
B=scratch/gpubin-108c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
timeout 200 $B/jitfp8-bench moe --only contiguous --sweep \
  --shapes "16x1024,2880,2880;16x4096,2880,2880;16x2048,2112,7168;8x4096,2880,4096;32x1024,5120,2880;16x2048,2880,5760" > $OUT/contig-design.txt 2>&1
echo "design rc $? after $((SECONDS - start)) s"
timeout 200 $B/jitfp8-bench moe --only contiguous --sweep \
  --shapes "16x512,2880,2880;8x2048,2880,2880;16x4096,2112,7168;16x2048,5120,2880;32x2048,2880,2880;16x1024,2880,5760" > $OUT/contig-heldout.txt 2>&1
echo "held-out rc $? after $((SECONDS - start)) s"
grep -E "sweep .*(\*|128x192 st4 +mc)" $OUT/contig-design.txt | cut -c1-110
