# Session 92's device scripts (none ran: the device lent no machine that finished a call). Run from the repository root with .deps, scratch/gpubin-k (the binaries of the session's last code commit, dab390b) and scratch/ctest2.tgz carried. s92d.sh first (by card), then s92e.sh on the same machine; s92g.sh / s92h.sh are shorter versions for a small budget.

# ==== scratch/s92d.sh
#!/usr/bin/env bash
# Session 92: one call on whichever card comes. An H100 runs the anchors (s92a.sh: the issues'
# targets are H100 figures, last measured on one 2026-11-28); an H200 runs the pending suite
# (s92b.sh), whose H200 figures we have.
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $name"
case "$name" in
  *H100*) bash scratch/s92a.sh ;;
  *) bash scratch/s92b.sh ;;
esac

# ==== scratch/s92a.sh
#!/usr/bin/env bash
# Session 92, call 1: the anchors on an H100 (the first H100 lent since 2026-11-28): bench gemm
# and bench moe, each alone on the GPU, the anchors' protocol (2 GB flush), on the binaries of
# the last code commit (scratch/gpubin-k), an empty kernel cache (the bench compiles before it times).
# Carry: .deps scratch/gpubin-k scratch/s92a.sh
B=${B:-scratch/gpubin-k}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/cbench
{ nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,power.limit,driver_version --format=csv,noheader; } > $OUT/host.txt 2>&1; cat $OUT/host.txt
start=$SECONDS
timeout ${GEMM_TIMEOUT:-260} $B/jitfp8-bench gemm --flush-mb 2048 --iters 20 --json $OUT/gemm.json > $OUT/gemm.txt 2>&1; echo "bench gemm rc $? after $((SECONDS - start)) s"
cut -c1-220 $OUT/gemm.txt
timeout ${MOE_TIMEOUT:-250} $B/jitfp8-bench moe --flush-mb 2048 --json $OUT/moe.json > $OUT/moe.txt 2>&1; echo "bench moe rc $? after $((SECONDS - start)) s"
cut -c1-200 $OUT/moe.txt | tail -45

# ==== scratch/s92b.sh
#!/usr/bin/env bash
# Session 92, call 2: s91a.sh on the binaries of this session (a failed background build retried at the 1st, 2nd, 4th... request; its new [tiered] case; the stream check before each launch).
# Session 91, call 1 (for the next session with a device; sessions 90 and 91 had none): session
# 89's pending cases (the null-m_indices layout, the green context, prewarm-capture and tiered
# cases) and the green-context case of sessions 90-91 (background builds and prewarm's workers
# serving a caller with a green context current, now checked through the worker's context); then
# the whole suite over the carried cache (session 90's cache changes, session 91's: hidden
# visibility with the tests on the static objects, a fork during a slow open, one foreground
# retry of a failed background build), cache verify, and the multi-process dispatch stress.
# Logs go straight under $OUT, so that a run cut off at the limit still brings them back.
# Carry: .deps scratch/gpubin-k scratch/s92b.sh scratch/ctest2.tgz
B=${B:-scratch/gpubin-k}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
tar -C /tmp -xzf scratch/ctest2.tgz && export JITFP8_CACHE_DIR=/tmp/ctest2
start=$SECONDS
timeout ${FOCUS_TIMEOUT:-150} $B/jitfp8_gpu_tests "moe_contiguous_layout matches a CPU layout bit for bit,[green-ctx],prewarm with load makes the first*,[tiered],[fork]" --warn NoAssertions -d yes > $OUT/focused.log 2>&1; echo "focused rc=$? after $((SECONDS - start)) s"
grep -E "passed|failed|FAILED|No test|warning" $OUT/focused.log | tail -20
grep -B3 -A12 "FAILED" $OUT/focused.log | head -60
GROUP_TIMEOUT_S=${GROUP_TIMEOUT_S:-300} tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "suite rc=$? after $((SECONDS - start)) s"
timeout 30 $B/jitfp8 cache verify --cache-dir /tmp/ctest2 2>&1 | tail -2
timeout ${STRESS_TIMEOUT:-100} $B/jitfp8_gpu_dispatch_stress 16 8 > $OUT/stress.log 2>&1; echo "stress rc=$? after $((SECONDS - start)) s"; tail -2 $OUT/stress.log

# ==== scratch/s92e.sh
#!/usr/bin/env bash
# Session 92, second call on the same machine. After the H100's anchors (s92d.sh): the pending
# suite (s92b.sh). After the H200's suite: the bench's new accuracy gate and poisoned cuBLASLt
# D on a few shapes (a wrong D fails the run, exit 3), the MoE scale pitch with expert rows not
# a multiple of 4, cuBLASLt's fastest of its first 8 algorithms (--cublaslt-algos), and
# first-use compile times (s92c.sh).
B=${B:-scratch/gpubin-k}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $name"
case "$name" in
  *H100*) bash scratch/s92b.sh ;;
  *)
    export JITFP8_CACHE_DIR=/tmp/cbench
    start=$SECONDS
    timeout 150 $B/jitfp8-bench gemm --shapes "128,576,7168;4096,7168,2048;100,2112,7168" --wgrad-shapes "4096,7168,2048" --iters 5 > $OUT/gate-gemm.txt 2>&1; echo "bench gemm rc $? after $((SECONDS - start)) s"
    cut -c1-200 $OUT/gate-gemm.txt | grep -v "^ *kernel\|^    " | tail -12
    timeout 150 $B/jitfp8-bench moe --only masked,kgrouped --shapes "32x192,4096,2048;4x8192,7168,2048" --iters 5 > $OUT/gate-moe.txt 2>&1; echo "bench moe rc $? after $((SECONDS - start)) s"
    cut -c1-200 $OUT/gate-moe.txt | tail -8
    timeout 100 $B/jitfp8-bench moe --only contiguous --uniform-tokens --shapes "4x1001,4096,2048" --iters 5 > $OUT/gate-pitch.txt 2>&1; echo "bench moe uniform 1001 rc $? after $((SECONDS - start)) s"
    cut -c1-200 $OUT/gate-pitch.txt | tail -4
    timeout 150 $B/jitfp8-bench gemm --shapes "128,576,7168;4096,7168,2048" --wgrad-shapes "4096,7168,2048" --cublaslt-algos 8 --iters 5 > $OUT/algos.txt 2>&1; echo "bench gemm --cublaslt-algos 8 rc $? after $((SECONDS - start)) s"
    cut -c1-260 $OUT/algos.txt | tail -8
    JITFP8_LOG=info timeout 150 $B/jitfp8 prewarm --jobs 1 --cache-dir /tmp/cpw kernels_cache/qwen3-30b-a3b.json > $OUT/prewarm.txt 2>&1; echo "prewarm rc $? after $((SECONDS - start)) s"
    tail -1 $OUT/prewarm.txt ;;
esac

# ==== scratch/s92g.sh
#!/usr/bin/env bash
# Session 92: the smallest useful call (~350 s), after three starts lost. An H100: bench gemm on the
# anchors (the dense targets are H100 figures). An H200: the focused cases and the suite.
B=${B:-scratch/gpubin-k}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $name"
case "$name" in
  *H100*)
    export JITFP8_CACHE_DIR=/tmp/cbench
    { nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader; } > $OUT/host.txt 2>&1; cat $OUT/host.txt
    start=$SECONDS
    timeout 290 $B/jitfp8-bench gemm --flush-mb 2048 --iters 20 --json $OUT/gemm.json > $OUT/gemm.txt 2>&1; echo "bench gemm rc $? after $((SECONDS - start)) s"
    cut -c1-220 $OUT/gemm.txt ;;
  *) FOCUS_TIMEOUT=90 GROUP_TIMEOUT_S=180 STRESS_TIMEOUT=25 bash scratch/s92b.sh ;;
esac

# ==== scratch/s92h.sh
#!/usr/bin/env bash
# Session 92: a last short call (~250 s of budget left). An H100: the 14 forward anchors (bench
# gemm --forward-only, 2 GB flush). An H200: the never-run GPU cases of sessions 89-92 only.
B=${B:-scratch/gpubin-k}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $name"
start=$SECONDS
case "$name" in
  *H100*)
    export JITFP8_CACHE_DIR=/tmp/cbench
    timeout 200 $B/jitfp8-bench gemm --forward-only --flush-mb 2048 --iters 20 --json $OUT/gemm.json > $OUT/gemm.txt 2>&1; echo "bench gemm rc $? after $((SECONDS - start)) s"
    cut -c1-220 $OUT/gemm.txt ;;
  *)
    tar -C /tmp -xzf scratch/ctest2.tgz && export JITFP8_CACHE_DIR=/tmp/ctest2
    timeout 190 $B/jitfp8_gpu_tests "moe_contiguous_layout matches a CPU layout bit for bit,[green-ctx],prewarm with load makes the first*,[tiered],[fork]" --warn NoAssertions -d yes > $OUT/focused.log 2>&1; echo "focused rc=$? after $((SECONDS - start)) s"
    grep -E "passed|failed|FAILED|No test|warning" $OUT/focused.log | tail -20
    grep -B3 -A12 "FAILED" $OUT/focused.log | head -60 ;;
esac
