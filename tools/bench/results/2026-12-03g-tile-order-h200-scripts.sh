# ---- scratch/s79a.sh
#!/bin/bash
# Session 79 call 1: the tile order's group (8, 4, 2 N-units) for multi-round 128 x 192 picks at
# M 1024-16384 (the manifests' N, K): A pairs, and a few unclustered; each shape with its pick's
# tile, cluster and ring; two rounds.
B=scratch/gpubin-h79a
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
export JITFP8_CACHE_DIR=/tmp/c-h79a
run() { timeout 250 $B/jitfp8-bench gemm --forward-only --shapes "$1" --flush-mb 2048 --iters 12 --configs "$2:g8;$2:g4;$2:g2" >> /tmp/o1/r$r.txt 2>&1; echo "rc=$?"; }
A="1024,12288,1536;1024,16384,512;1024,9216,4096;1024,21888,4096;1024,36864,7168"
A="$A;1536,4096,7168;1536,7168,2048;1536,7168,16384;1536,4096,1536;1536,12288,4096;1536,24576,1536"
A="$A;3072,4096,2048;3072,7168,4096;3072,12288,1536;3072,16384,7168;3072,5760,2880;3072,28672,8192"
A="$A;6144,1536,4096;6144,4096,7168;6144,7168,2048;6144,12288,4096;6144,24576,1536"
A="$A;8192,1408,8192;8192,1536,24576;8192,4096,2048;8192,7168,4096;8192,16384,512"
A="$A;16384,1536,4096;16384,4096,1536;16384,7168,2112;16384,12288,1536"
U="2048,10944,4096;4096,2880,4096;8192,8192,7168;3072,14336,4096;6144,2112,7168;1024,2880,8192"
for r in 1 2; do
  run "$A" 128x192:1:2a:4
  run "$U" 128x192:1:1:4
  echo "r$r done"
done
for f in /tmp/o1/r*.txt; do echo "== $f"; grep -E "sweep" $f | sed 's/  */ /g;s/ sms132://;s/ sweep//;s/ sk1//;s/ TF//' | awk '{printf "%s,%s,%s %s %s %s %s;", $1,$2,$3,$4,$5,$6,$7}'; echo; done

# ---- scratch/s79b.sh
#!/bin/bash
# Session 79 call 2: the rule (128 x 192 over several rounds in groups of 2 N-units) through the
# dispatch: main's binaries (h79a) against the rule's (h79b) on held-out shapes (21 changed picks,
# 3 unchanged as controls), two rounds in turns; the new GPU case and neighbours; memcheck on it.
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
S="1152,18432,7168;1280,24576,1536;1536,4096,2816;1800,9216,4096;2560,12288,4096;2816,21888,4096;3200,5760,2880"
S="$S;3840,1536,4096;4000,9216,4096;4096,3072,4096;4096,1536,2048;1920,12288,1536;3456,16384,512;1408,9216,4096"
S="$S;2944,7168,4096;1024,14336,4096;2048,2880,5120;3072,8192,4096;2500,10944,4096;4096,5120,2880;1536,57344,8192"
S="$S;6144,7168,2048;4096,7168,16384;2560,4096,512"
for r in 1 2; do
  order="h79a h79b"; [ $r = 2 ] && order="h79b h79a"
  for b in $order; do
    LD_LIBRARY_PATH=$PWD/scratch/gpubin-$b:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-$b timeout 200 scratch/gpubin-$b/jitfp8-bench gemm --forward-only \
      --shapes "$S" --flush-mb 2048 --iters 20 > /tmp/o2/$b-r$r.txt 2>&1
    echo "$b r$r rc=$?"
  done
done
B=scratch/gpubin-h79b
export LD_LIBRARY_PATH=$PWD/$B:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-h79b
timeout 200 $B/jitfp8_gpu_tests "gemm_fp8_nt's several-round 128 x 192 picks*","gemm_fp8_nt's one-round 128 x 128 picks*","gemm_fp8_nt matches the reference on odd shapes and tails","gemm_fp8_nt on the anchor shapes*" --durations yes > /tmp/o2/tests.txt 2>&1
echo "tests rc=$?"; grep -E "^[0-9.]+ s:|passed|failed|FAILED" /tmp/o2/tests.txt | tail -8
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/jitfp8_gpu_tests "gemm_fp8_nt's several-round 128 x 192 picks*" > /tmp/o2/memcheck.txt 2>&1
echo "memcheck rc=$?"; tail -4 /tmp/o2/memcheck.txt

# ---- scratch/s79c.sh
#!/bin/bash
# Session 79 call 3: the tile order's group (8, 4, 2 N-units) for the other multi-round picks at
# M 1024-4096 with A at most 16 MiB: 256 x 128 A pairs, 128 x 192 B pairs, 128 x 160 A and B
# pairs; each shape with its pick's tile, cluster and ring; two rounds.
B=scratch/gpubin-h79b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
export JITFP8_CACHE_DIR=/tmp/c-h79b
run() { timeout 250 $B/jitfp8-bench gemm --forward-only --shapes "$1" --flush-mb 2048 --iters 12 --configs "$2:g8;$2:g4;$2:g2" >> /tmp/o3/r$r.txt 2>&1; echo "rc=$?"; }
for r in 1 2; do
  run "1024,7168,8192;1024,8192,4096;1024,16384,7168;1024,28672,8192;1536,8192,8192;1536,10944,4096;2048,4096,2048;2048,4096,7168;2048,8192,4096;2048,14336,4096;3072,2816,4096;4096,2048,4096;4096,4096,2048" 256x128:1:2a:4
  run "2048,4096,1408;4096,7168,2112" 256x128:1:2a:3
  run "1024,32768,512;3072,5120,2048;4096,2048,768;3072,32768,512" 128x192:1:2b:4
  run "1024,5120,2048;1536,2880,4096;3072,1536,4096;1024,10240,8192" 128x160:1:2a:4
  run "2048,5120,2880;1536,5120,2880" 128x160:1:2a:5
  run "1024,7168,2048" 128x160:1:2b:4
  run "1024,7168,576" 128x160:1:2b:5
  echo "r$r done"
done

# ---- scratch/s79d.sh
#!/bin/bash
# Session 79 call 4: wider groups (8, 16, 32 N-units) for multi-round picks at M 6144-16384:
# 128 x 192 A pairs and alone, 256 x 128 A pairs; each shape with its pick's tile, cluster and
# ring; two rounds.
B=scratch/gpubin-h79b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
export JITFP8_CACHE_DIR=/tmp/c-h79b
run() { timeout 250 $B/jitfp8-bench gemm --forward-only --shapes "$1" --flush-mb 2048 --iters 12 --configs "$2:g8;$2:g16;$2:g32" >> /tmp/o4/r$r.txt 2>&1; echo "rc=$?"; }
for r in 1 2; do
  run "6144,4096,7168;6144,7168,2048;6144,12288,4096;6144,24576,1536;6144,7168,16384;8192,4096,2048;8192,7168,4096;8192,16384,512;16384,4096,1536;16384,7168,2112;16384,12288,1536" 128x192:1:2a:4
  run "8192,8192,7168;8192,10944,4096;6144,14336,4096" 128x192:1:1:4
  run "8192,4096,7168;16384,4096,8192;8192,7168,16384;16384,10240,8192;6144,4096,12288" 256x128:1:2a:4
  echo "r$r done"
done
# ---- scratch/s79e.sh
#!/bin/bash
# Session 79 call 5: the M-grouped contiguous anchors (6144 x 7168 at 0.99x DeepGEMM) beside the
# dense GEMM at the same total M (32768) on the same tile: how much the grouping costs.
B=scratch/gpubin-h79b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o5; trap 'tar -C /tmp -czf $OUT/o5.tgz o5' EXIT
export JITFP8_CACHE_DIR=/tmp/c-h79b
for r in 1 2; do
  timeout 200 $B/jitfp8-bench moe --only contiguous --flush-mb 2048 > /tmp/o5/moe-r$r.txt 2>&1; echo "moe rc=$?"
  timeout 200 $B/jitfp8-bench gemm --forward-only --shapes "32768,6144,7168;32768,7168,3072;32768,4096,4096;32768,4096,2048;16384,6144,7168" --flush-mb 2048 --iters 12 --configs "128x192:1:2a:4;128x192:1:1:4" > /tmp/o5/dense-r$r.txt 2>&1; echo "dense rc=$?"
done
cat /tmp/o5/moe-r1.txt; grep sweep /tmp/o5/dense-r*.txt
# ---- scratch/s79f.sh
#!/bin/bash
# Session 79 call 6: the dense rule for the M-grouped contiguous walk: h79b (contiguous in groups
# of 8) against h79c (the rule: groups of 2 for 128 x 192 over several rounds at 8-32 M blocks,
# A at most 16 MiB), bench moe --only contiguous on shapes where it applies, two anchors as
# controls; two rounds in turns.
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o6; trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
S="4x512,7168,2048;4x512,6144,7168;4x512,3072,4096;8x256,7168,2048;8x256,6144,7168;8x256,3072,4096"
S="$S;16x128,7168,2048;16x128,6144,7168;16x128,3072,4096;4x768,7168,2048;16x192,7168,2048;8x384,3072,4096"
S="$S;4x256,6144,7168;8x128,6144,7168;32x96,7168,2048;4x896,4096,3072;4x8192,4096,2048;8x4096,4096,2048"
for r in 1 2; do
  order="h79b h79c"; [ $r = 2 ] && order="h79c h79b"
  for b in $order; do
    LD_LIBRARY_PATH=$PWD/scratch/gpubin-$b:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-$b timeout 250 scratch/gpubin-$b/jitfp8-bench moe --only contiguous \
      --shapes "$S" --flush-mb 2048 > /tmp/o6/$b-r$r.txt 2>&1
    echo "$b r$r rc=$?"
  done
done
head -5 /tmp/o6/h79b-r1.txt
# ---- scratch/s79g.sh
#!/bin/bash
# Session 79 call 7: the tile order's group (2, 4, 8, 16, 32 N-units) over 4-6 K blocks (K 512-768)
# at M 2048-32768: 128 x 192 A pairs and B pairs, each shape with its pick's config; two rounds.
B=scratch/gpubin-h79b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o7; trap 'tar -C /tmp -czf $OUT/o7.tgz o7' EXIT
export JITFP8_CACHE_DIR=/tmp/c-h79b
run() { timeout 250 $B/jitfp8-bench gemm --forward-only --shapes "$1" --flush-mb 2048 --iters 12 --configs "$2:g2;$2:g4;$2:g8;$2:g16;$2:g32" >> /tmp/o7/r$r.txt 2>&1; echo "rc=$?"; }
for r in 1 2; do
  run "2048,16384,512;4096,16384,512;8192,16384,512;16384,16384,512;32768,16384,512;8192,4096,512;16384,4096,512;8192,7168,576;16384,7168,576" 128x192:1:2a:4
  run "4096,32768,512;8192,32768,512;16384,32768,512;8192,2048,768;16384,2048,768" 128x192:1:2b:4
  echo "r$r done"
done
# ---- scratch/s79h.sh
#!/bin/bash
# Session 79 call 8: the short-K rule (128 x 192 pairs over 6 K blocks or fewer at 128+ M blocks
# in groups of 16) through the dispatch: h79b against h79d on 12 held-out shapes and 2 controls,
# two rounds in turns; the new GPU case and memcheck on it.
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o8; trap 'tar -C /tmp -czf $OUT/o8.tgz o8' EXIT
S="20480,16384,512;24576,7168,576;65536,16384,512;16384,8192,512;16384,12288,768;32768,4096,512;32768,2048,768"
S="$S;24576,32768,512;16384,24576,640;20000,5120,768;16500,7000,576;16384,1536,512;16384,16384,1024;8192,16384,512"
for r in 1 2; do
  order="h79b h79d"; [ $r = 2 ] && order="h79d h79b"
  for b in $order; do
    LD_LIBRARY_PATH=$PWD/scratch/gpubin-$b:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-$b timeout 200 scratch/gpubin-$b/jitfp8-bench gemm --forward-only \
      --shapes "$S" --flush-mb 2048 --iters 20 > /tmp/o8/$b-r$r.txt 2>&1
    echo "$b r$r rc=$?"
  done
done
B=scratch/gpubin-h79d
export LD_LIBRARY_PATH=$PWD/$B:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-h79d
timeout 150 $B/jitfp8_gpu_tests "gemm_fp8_nt's short-K picks*","gemm_fp8_nt's several-round 128 x 192 picks*" --durations yes > /tmp/o8/tests.txt 2>&1
echo "tests rc=$?"; grep -E "^[0-9.]+ s:|passed|failed|FAILED" /tmp/o8/tests.txt | tail -6
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/jitfp8_gpu_tests "gemm_fp8_nt's short-K picks*" > /tmp/o8/memcheck.txt 2>&1
echo "memcheck rc=$?"; tail -4 /tmp/o8/memcheck.txt
# ---- scratch/s79i.sh
#!/bin/bash
# Session 79 call 9: the short-K GPU case (N 4504 in place of 4500, which D's 16-byte rows refuse),
# memcheck on it, and the neighbouring group-order cases.
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o9; trap 'tar -C /tmp -czf $OUT/o9.tgz o9' EXIT
B=scratch/gpubin-h79e
export LD_LIBRARY_PATH=$PWD/$B:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-h79e
timeout 120 $B/jitfp8_gpu_tests "gemm_fp8_nt's short-K picks*","gemm_fp8_nt's several-round 128 x 192 picks*","gemm_fp8_nt's one-round 128 x 128 picks*" --durations yes > /tmp/o9/tests.txt 2>&1
echo "tests rc=$?"; grep -E "^[0-9.]+ s:|passed|failed|FAILED" /tmp/o9/tests.txt | tail -6
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/jitfp8_gpu_tests "gemm_fp8_nt's short-K picks*" > /tmp/o9/memcheck.txt 2>&1
echo "memcheck rc=$?"; tail -4 /tmp/o9/memcheck.txt
# ---- scratch/s79j.sh
#!/bin/bash
# Session 79 call 10: M 8193-16383 share the 16384 bucket's kernel (groups of 16 over short K):
# groups of 8 against 16 there, the pick's tile and cluster; two rounds, ours only.
B=scratch/gpubin-h79e
export LD_LIBRARY_PATH=$PWD/scratch/gpubin-h79d:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/c-h79d
for r in 1 2; do
  timeout 60 scratch/gpubin-h79d/jitfp8-bench gemm --forward-only --shapes "8200,16384,512;10000,16384,512;12000,16384,512;12288,7168,576" --flush-mb 2048 --iters 10 --configs "128x192:1:2a:4:g8;128x192:1:2a:4:g16" 2>&1 | grep sweep | grep -v '\*'
  timeout 60 scratch/gpubin-h79d/jitfp8-bench gemm --forward-only --shapes "14000,32768,512;9000,2048,768" --flush-mb 2048 --iters 10 --configs "128x192:1:2b:4:g8;128x192:1:2b:4:g16" 2>&1 | grep sweep | grep -v '\*'
done
