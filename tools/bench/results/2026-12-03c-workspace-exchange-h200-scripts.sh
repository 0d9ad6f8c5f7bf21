###### scratch/s75c1.sh
#!/bin/bash
# Session 75 call 1: where the workspace split's fixed cost goes (the probe prepared in session 74,
# plus a non-cooperative launch of the as-is tree, plus ncu of the pick and cuBLASLt at K 24576).
B=scratch/gpubin-h75
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > /tmp/o1/smi.txt
S="256,1024,24576;256,1024,8192;256,1024,2048"
C="128x128:8w:1:5;128x128:4w:1:5;128x128:2w:1:5"
for r in 1 2; do for v in base norv noex nocoop; do
  t=$v; env=""; lp=$LD_LIBRARY_PATH
  if [ $v = nocoop ]; then t=base; lp=$PWD/scratch/gpubin-h75nc:$LD_LIBRARY_PATH; env="JITFP8_PROBE_NOCOOP=1"; fi
  env $env LD_LIBRARY_PATH=$lp JITFP8_CACHE_DIR=/tmp/c75-$t JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-$t timeout 90 $B/jitfp8-bench gemm --forward-only --shapes "$S" --configs "$C" --flush-mb 2048 --iters 20 > /tmp/o1/r$r-$v.txt 2>&1
  echo "round $r $v: $(grep sweep /tmp/o1/r$r-$v.txt | awk '{print $2"x"$3"x"$4":"$8, $(NF-3)}' | tr '\n' ' ')"
done; done
# ncu: the pick and cuBLASLt at 256 x 1024 x 24576
JITFP8_CACHE_DIR=/tmp/c75-base timeout 200 /usr/local/cuda/bin/ncu --clock-control none -k regex:'gemm|sm90|cutlass|xmma' --launch-count 12 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed \
  $B/jitfp8-bench gemm --forward-only --shapes "256,1024,24576" --flush-mb 2048 --iters 2 --timer graph > /tmp/o1/ncu.txt 2>&1
echo ncu rc=$?; grep -E "^  [a-zA-Z_].*\(|gpu__time|lts__|dram__|sm__" /tmp/o1/ncu.txt | cut -c1-150 | head -120

###### scratch/s75c2.sh
#!/bin/bash
# Session 75 call 2: the workspace exchange's owner reads staged through shared memory (cp.async):
# GPU tests, memcheck, and old (tpl-base: templates of a24df57) against new, same binaries.
B=scratch/gpubin-h75b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
export JITFP8_CACHE_DIR=/tmp/c75-new
timeout 240 $B/jitfp8_gpu_tests "[splitk]" > /tmp/o2/splitk.txt 2>&1; echo "splitk rc=$? $(tail -2 /tmp/o2/splitk.txt | tr '\n' ' ')"
S1="256,1024,24576;256,1024,8192;256,1024,2048"
C1="128x128:8w:1:5;128x128:4w:1:5;128x128:2w:1:5;128x128:16w:1:5;128x64:8w:1:8;64x128:4w:1:7"
S2="160,1536,24576;160,2048,32768;200,2048,16384;200,2816,16384;200,2816,32768;256,1024,24576;256,2048,24576;256,2816,24576;384,1024,32768;384,1536,24576;512,1024,16384;768,512,24576;128,5120,32768;112,2048,20480;448,512,32768;1000,512,32768"
for r in 1 2; do for v in old new; do
  if [ $v = old ]; then T="JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-base JITFP8_CACHE_DIR=/tmp/c75-old"; else T="JITFP8_CACHE_DIR=/tmp/c75-new"; fi
  env $T timeout 120 $B/jitfp8-bench gemm --forward-only --shapes "$S1" --configs "$C1" --flush-mb 2048 --iters 20 > /tmp/o2/cfg-r$r-$v.txt 2>&1
  echo "cfg round $r $v: $(grep sweep /tmp/o2/cfg-r$r-$v.txt | awk '{print $2"x"$3"x"$4":"$5":"$8, $(NF-3)}' | tr '\n' ' ')"
  env $T timeout 150 $B/jitfp8-bench gemm --forward-only --shapes "$S2" --flush-mb 2048 --iters 20 > /tmp/o2/picks-r$r-$v.txt 2>&1
  echo "picks round $r $v:"; grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \|" /tmp/o2/picks-r$r-$v.txt | awk -F'|' '{print $1 "|" $2 "|" $3 "|" $4 "|" $NF}'
done; done
timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/jitfp8_gpu_tests "gemm_fp8_nt split-K through the workspace matches the reference, reproducibly" > /tmp/o2/memcheck.txt 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|test cases' /tmp/o2/memcheck.txt | tr '\n' ' ')"

###### scratch/s75c3.sh
#!/bin/bash
# Session 75 call 3: sanitizers on the staged exchange; is the exchange's cost the L2's dirty lines
# (the 2 GB flush leaves them; the workspace writes must evict them)? base vs noex at flush 1 MB.
B=scratch/gpubin-h75c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
export JITFP8_CACHE_DIR=/tmp/c75-new
timeout 300 $B/jitfp8_gpu_tests "[splitk]" > /tmp/o3/splitk.txt 2>&1; echo "splitk rc=$? $(tail -2 /tmp/o3/splitk.txt | tr '\n' ' ')"
# multicast pairs of one slice through the workspace
S2="160,1536,24576;160,2048,32768;200,2048,16384;200,2816,16384;200,2816,32768;256,1024,24576;256,2048,24576;256,2816,24576;384,1024,32768;384,1536,24576;512,1024,16384;768,512,24576;128,5120,32768;448,512,32768;1000,512,32768;128,4096,24576"
C2="128x128:3w:1:6;128x128:3w:2a:6;128x128:3w:2b:6;128x128:4w:1:6;128x128:4w:2a:6;128x128:4w:2b:6;128x128:5w:1:6;128x128:5w:2a:6;128x128:5w:2b:6;128x128:8w:1:6;128x128:8w:2a:6;128x128:8w:2b:6"
for r in 1 2; do
  timeout 280 $B/jitfp8-bench gemm --forward-only --shapes "$S2" --configs "$C2" --flush-mb 2048 --iters 20 > /tmp/o3/pairs-r$r.txt 2>&1; echo "pairs r$r rc=$?"
done
S="256,1024,2048;256,1024,8192"
C="128x128:8w:1:5;128x128:4w:1:5;128x128:2w:1:5"
for r in 1; do for f in 1 2048; do for v in base noex new; do
  if [ $v = new ]; then T="JITFP8_CACHE_DIR=/tmp/c75-new"; else T="JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-$v JITFP8_CACHE_DIR=/tmp/c75-$v"; fi
  env $T timeout 120 $B/jitfp8-bench gemm --forward-only --shapes "$S" --configs "$C" --flush-mb $f --iters 20 > /tmp/o3/r$r-f$f-$v.txt 2>&1
  echo "round $r flush $f $v: $(grep sweep /tmp/o3/r$r-f$f-$v.txt | awk '{print $2"x"$3"x"$4":"$5":"$8, $(NF-3)}' | tr '\n' ' ')"
done; done; done
# timestamps inside the staged exchange (scratch/tpl-ts: printf of one launch per process)
for sh in 256,1024,2048 256,1024,24576; do for c in 128x128:8w:1:5 128x128:2w:1:5; do
  JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-ts JITFP8_CACHE_DIR=/tmp/c75-ts timeout 60 $B/jitfp8-bench gemm --forward-only --shapes "$sh" --configs "$c" --flush-mb 2048 --iters 10 > /tmp/o3/ts-$sh-$c.txt 2>&1
  echo "ts $sh $c: $(grep -c '^TS' /tmp/o3/ts-$sh-$c.txt) lines; $(grep sweep /tmp/o3/ts-$sh-$c.txt | awk '{print $(NF-3)}' | tr '\n' ' ')"
done; done
export JITFP8_CACHE_DIR=/tmp/c75-new
N="gemm_fp8_nt split-K through the workspace matches the reference*"
timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/jitfp8_gpu_tests "$N" > /tmp/o3/memcheck.txt 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|test cases|passed' /tmp/o3/memcheck.txt | tr '\n' ' ')"
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool racecheck $B/jitfp8_gpu_tests "$N" > /tmp/o3/racecheck.txt 2>&1; echo "racecheck rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases|passed' /tmp/o3/racecheck.txt | tr '\n' ' ')"

###### scratch/s75c4.sh
#!/bin/bash
# Session 75 call 4: the landing tree (staged exchange, pairs through the workspace, the B-pair rule):
# [splitk] GPU tests; held-out shapes of the rule, pick (B pairs) against the same splits alone.
B=scratch/gpubin-h75d
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
export JITFP8_CACHE_DIR=/tmp/c75-d
timeout 200 $B/jitfp8_gpu_tests "[splitk]" > /tmp/o4/splitk.txt 2>&1; echo "splitk rc=$? $(tail -2 /tmp/o4/splitk.txt | tr '\n' ' ')"
S="144,1792,28672;176,1792,28672;192,1792,28672;240,1792,16384;256,1792,20480;240,2304,16384;240,2304,20480;256,2304,28672"
C="128x128:4w:1:6;128x128:4w:2b:6;128x128:3w:1:6;128x128:3w:2b:6"
for r in 1 2; do
  timeout 150 $B/jitfp8-bench gemm --forward-only --shapes "$S" --configs "$C" --flush-mb 2048 --iters 20 > /tmp/o4/held-r$r.txt 2>&1; echo "held r$r rc=$?"
done
grep -hE "^ +[0-9]+ +[0-9]+ +[0-9]+ \|" /tmp/o4/held-r*.txt | awk -F'|' '{print $1 "|" $2 "|" $3 "|" $4 "|" $NF}'

