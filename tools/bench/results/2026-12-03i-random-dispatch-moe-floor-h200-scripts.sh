### scratch/s81a.sh
#!/bin/bash
# Session 81 call 1: bench moe's %floor (first GPU run), then where contiguous 4 x 8192 loses ~2% to dense:
# one expert of 32768 rows vs 4 / 8 experts vs the dense kernel at the same M, same tile config.
B=scratch/gpubin-s81
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
export JITFP8_CACHE_DIR=/tmp/c81
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > /tmp/o1/gpu.txt
timeout 300 $B/jitfp8-bench moe --flush-mb 2048 --json /tmp/o1/moe.json 2>&1 | tee /tmp/o1/moe.txt | cut -c1-170
S="1x32768,6144,7168;4x8192,6144,7168;8x4096,6144,7168;1x32768,4096,4096;4x8192,4096,4096"
for r in 1 2; do
  echo "== round $r: contiguous, uniform tokens"
  timeout 100 $B/jitfp8-bench moe --only contiguous --uniform-tokens --flush-mb 2048 --iters 20 --shapes "$S" 2>&1 | tee -a /tmp/o1/split.txt | cut -c1-170
  echo "== round $r: contiguous, uniform tokens, group ends"
  timeout 100 $B/jitfp8-bench moe --only contiguous --uniform-tokens --group-ends --flush-mb 2048 --iters 20 --shapes "$S" 2>&1 | tee -a /tmp/o1/split.txt | cut -c1-170
  echo "== round $r: dense"
  timeout 60 $B/jitfp8-bench gemm --forward-only --flush-mb 2048 --iters 20 --shapes "32768,6144,7168;32768,4096,4096" --configs "128x192:1:2a" 2>&1 | tee -a /tmp/o1/split.txt | cut -c1-170
done

### scratch/s81b.sh
#!/bin/bash
# Session 81 call 2: the new random-shape dispatch cases ([random]) with their default seeds, then other seeds.
B=scratch/gpubin-s81b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
export JITFP8_CACHE_DIR=/tmp/c81b
for s in default 1 2 3; do
  if [ $s = default ]; then unset JITFP8_TEST_SEED; else export JITFP8_TEST_SEED=$s; fi
  echo "== seed $s"
  start=$(date +%s.%N)
  timeout 200 $B/jitfp8_gpu_tests "[random]" > /tmp/o2/random-$s.txt 2>&1; echo "rc $? in $(echo "$(date +%s.%N) - $start" | bc) s"
  grep -E "random shapes|FAILED|failed|passed|with expansion|prewarm error" /tmp/o2/random-$s.txt | head -30
  grep -c "worst error" /tmp/o2/random-$s.txt
done

### scratch/s81c.sh
#!/bin/bash
# Session 81 call 3: the [random] cases over more seeds (a bug hunt), then memcheck on the default seeds.
B=scratch/gpubin-s81b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
export JITFP8_CACHE_DIR=/tmp/c81c
end=$((SECONDS + 330))
for s in $(seq 4 40); do
  [ $SECONDS -ge $end ] && break
  export JITFP8_TEST_SEED=$s
  t0=$SECONDS
  timeout $((end - SECONDS + 5)) $B/jitfp8_gpu_tests "[random]" > /tmp/o3/random-$s.txt 2>&1; rc=$?
  echo "seed $s rc $rc $((SECONDS - t0)) s: $(tail -2 /tmp/o3/random-$s.txt | tr '\n' ' ')"
done
unset JITFP8_TEST_SEED
echo "== memcheck, default seeds"
timeout 220 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 20 $B/jitfp8_gpu_tests "[random]" > /tmp/o3/memcheck.txt 2>&1; echo "rc $?"
tail -5 /tmp/o3/memcheck.txt

### scratch/s81d.sh
#!/bin/bash
# Session 81 call 4: the [gemm] and [wgrad] groups on this build (check_problem now names the dispatch's plan).
B=scratch/gpubin-s81b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
export JITFP8_CACHE_DIR=/tmp/c81c
t0=$SECONDS
timeout 560 $B/jitfp8_gpu_tests "[gemm],[wgrad]" --durations yes > /tmp/o4/gemm-wgrad.txt 2>&1; echo "rc $? in $((SECONDS - t0)) s"
grep -E "FAILED|failed|passed|assertions" /tmp/o4/gemm-wgrad.txt | tail -5

### scratch/s81e.sh
#!/bin/bash
# Session 81 call 5: first-use compile times on this GPU host (Qwen3-30B-A3B manifest, one compile at a time, fresh cache).
B=scratch/gpubin-s81b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o5; trap 'tar -C /tmp -czf $OUT/o5.tgz o5' EXIT
nproc > /tmp/o5/host.txt; grep -m1 "model name" /proc/cpuinfo >> /tmp/o5/host.txt
JITFP8_LOG=info timeout 250 $B/jitfp8 prewarm --jobs 1 --cache-dir /tmp/c81e kernels_cache/qwen3-30b-a3b.json > /tmp/o5/prewarm.txt 2>&1; echo "rc $?"
tail -3 /tmp/o5/prewarm.txt

### scratch/s81f.sh
#!/bin/bash
# Session 81 call 6: the [random] cases over seeds 16 on.
B=scratch/gpubin-s81b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o6; trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
export JITFP8_CACHE_DIR=/tmp/c81c
end=$((SECONDS + 270))
for s in $(seq 16 60); do
  [ $SECONDS -ge $end ] && break
  export JITFP8_TEST_SEED=$s
  t0=$SECONDS
  timeout $((end - SECONDS + 5)) $B/jitfp8_gpu_tests "[random]" > /tmp/o6/random-$s.txt 2>&1; rc=$?
  echo "seed $s rc $rc $((SECONDS - t0)) s: $(tail -2 /tmp/o6/random-$s.txt | tr '\n' ' ')"
done
unset JITFP8_TEST_SEED

