# ---- scratch/s80a.sh
#!/bin/bash
# Session 80 call 1: (a) b33df52's refactored dispatch-pick cases and the [gemm] group on the GPU;
# (b) the tensor maps' L2 promotion on the H200 (probe build: JITFP8_PROBE_PROMO overrides every
# map's promotion; unset = the library's own: dense 128 B, grouped and wgrad 256 B), two rounds in turns.
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > /tmp/o1/gpu.txt
M=$PWD/scratch/gpubin-main
( export LD_LIBRARY_PATH=$M:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-tests
  timeout 200 $M/jitfp8_gpu_tests "gemm_fp8_nt's one-band picks over a long K*","gemm_fp8_nt's one-round 128 x 128 picks*","gemm_fp8_nt's several-round 128 x 192 picks*","gemm_fp8_nt's short-K picks*" --durations yes > /tmp/o1/tests.txt 2>&1; echo "tests rc=$?" )
tail -4 /tmp/o1/tests.txt
P=$PWD/scratch/gpubin-promo
export LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-promo
F="128,2112,7168;128,576,7168;128,24576,1536;128,32768,512;128,7168,16384;128,4096,7168;128,7168,2048"
F="$F;4096,2112,7168;4096,576,7168;4096,24576,1536;4096,32768,512;4096,7168,16384;4096,4096,7168;4096,7168,2048"
F="$F;512,4096,14336;512,4096,28672;1024,2048,7168;256,7168,2112;128,5120,32768;256,1024,24576"
F="$F;2048,7168,2048;8192,8192,7168;16384,16384,512;128,57344,8192;1536,12288,4096;768,7168,4096"
g() { timeout 200 $P/jitfp8-bench gemm --shapes "$F" --flush-mb 2048 --iters 20 > /tmp/o1/gemm-$1-r$r.txt 2>&1; echo "gemm $1 r$r rc=$?"; }
m() { timeout 150 $P/jitfp8-bench moe --only contiguous,masked --flush-mb 2048 > /tmp/o1/moe-$1-r$r.txt 2>&1; echo "moe $1 r$r rc=$?"; }
r=0; g warm
for r in 1 2; do
  if [ $r = 1 ]; then L="base 256 0 64"; else L="64 0 256 base"; fi
  for p in $L; do if [ $p = base ]; then unset JITFP8_PROBE_PROMO; else export JITFP8_PROBE_PROMO=$p; fi; g $p; done
done
unset JITFP8_PROBE_PROMO

# ---- scratch/s80b.sh
#!/bin/bash
# Session 80 call 2: --sweep (the model's top 40 configs) on the survey's M 256 long-K rows below
# 1.0x cuBLASLt (128 x 128 B pairs) and two M 512 rows; main's binaries.
M=$PWD/scratch/gpubin-main
export LD_LIBRARY_PATH=$M:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
export JITFP8_CACHE_DIR=/tmp/c-sweep
S="256,8192,28672;256,7168,36864;256,8192,57344;256,7168,18432;256,8192,10240;512,4096,21888;256,7168,2112"
timeout 500 $M/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 10 --sweep > /tmp/o2/sweep.txt 2>&1; echo "rc=$?"
for s in 256,8192,28672 256,7168,36864 256,8192,57344 256,7168,18432 256,8192,10240 512,4096,21888 256,7168,2112; do
  a=${s//,/ }; set -- $a
  grep -E "^ +$1 +$2 +$3 \|" /tmp/o2/sweep.txt | head -1
  grep -E "sweep +$1 +$2 +$3 " /tmp/o2/sweep.txt | sort -t: -k3 -n | head -5
done

# ---- scratch/s80c.sh
#!/bin/bash
# Session 80 call 3: B pairs with each CTA multicasting half of the shared B tile (nvjet's way;
# template copy scratch/tpl-splitb + a probe build whose B map box is BLOCK_N / 2 under
# JITFP8_PROBE_SPLITB) against main, through the dispatch, two rounds in turns.
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
S="256,7168,4096;256,7168,16384;256,7168,18432;256,7168,36864;256,8192,4096;256,8192,7168;256,8192,10240;256,8192,28672;256,8192,57344"
S="$S;128,8192,57344;128,7168,16384;128,7168,2048;100,7168,16384;200,8192,7168"
S="$S;4096,32768,512;4096,7168,2048;4200,32768,512;2944,7168,2048;4000,32768,512"
S="$S;4096,4096,7168;512,4096,14336"
main() { LD_LIBRARY_PATH=$PWD/scratch/gpubin-main:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-main timeout 140 scratch/gpubin-main/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 20 > /tmp/o3/main-r$r.txt 2>&1; echo "main r$r rc=$?"; }
split() { LD_LIBRARY_PATH=$PWD/scratch/gpubin-splitb:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-splitb JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-splitb JITFP8_PROBE_SPLITB=1 timeout 140 scratch/gpubin-splitb/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 20 > /tmp/o3/split-r$r.txt 2>&1; echo "split r$r rc=$?"; }
r=1; main; split
r=2; split; main

# ---- scratch/s80d.sh
#!/bin/bash
# Session 80 call 4: held-out short-K B pairs (128 x 192 and 128 x 160); B pairs with each CTA multicasting half of the shared B tile (nvjet's way;
# template copy scratch/tpl-splitb + a probe build whose B map box is BLOCK_N / 2 under
# JITFP8_PROBE_SPLITB) against main, through the dispatch, two rounds in turns.
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
S="2048,8192,768;3072,32768,640;6144,8192,512;8192,32768,1024;12288,8192,640;16384,32768,512;24576,8192,768"
S="$S;6144,32768,1536;3072,8192,1024;16384,8192,1024;2048,32768,512;12288,32768,1536;8192,8192,1536;4096,8192,768"
S="$S;24576,32768,640;4096,7168,512;4096,7168,1024;4096,7168,1536;4096,32768,512;4096,24576,1536"
main() { LD_LIBRARY_PATH=$PWD/scratch/gpubin-main:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-main timeout 140 scratch/gpubin-main/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 20 > /tmp/o4/main-r$r.txt 2>&1; echo "main r$r rc=$?"; }
split() { LD_LIBRARY_PATH=$PWD/scratch/gpubin-splitb:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-splitb JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-splitb JITFP8_PROBE_SPLITB=1 timeout 140 scratch/gpubin-splitb/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 20 > /tmp/o4/split-r$r.txt 2>&1; echo "split r$r rc=$?"; }
r=1; main; split
r=2; split; main

# ---- scratch/s80e.sh
#!/bin/bash
# Session 80 call 5: the whole [gemm] GPU group on main (b33df52).
M=$PWD/scratch/gpubin-main
export LD_LIBRARY_PATH=$M:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o5; trap 'tar -C /tmp -czf $OUT/o5.tgz o5' EXIT
export JITFP8_CACHE_DIR=/tmp/c-gemm-tests
timeout 480 $M/jitfp8_gpu_tests "[gemm]" --durations yes > /tmp/o5/tests.txt 2>&1; echo "rc=$?"
grep -E "^[0-9.]+ s:" /tmp/o5/tests.txt | sort -rn | head -8; tail -3 /tmp/o5/tests.txt

# ---- scratch/s80f.sh
#!/bin/bash
# Session 80 call 6: `jitfp8 bench gemm` with the new %floor columns, the anchors (forward and weight gradient).
B=$PWD/scratch/gpubin-floor
export LD_LIBRARY_PATH=$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o6; trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
export JITFP8_CACHE_DIR=/tmp/c-floor
timeout 170 $B/jitfp8-bench gemm --flush-mb 2048 --iters 20 --json /tmp/o6/anchors.json 2>&1 | tee /tmp/o6/anchors.txt | cut -c1-150

