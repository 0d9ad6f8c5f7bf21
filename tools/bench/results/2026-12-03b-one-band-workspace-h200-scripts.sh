######## scratch/s74c1.sh
#!/bin/bash
# Session 74 call 1: (a) the library's first-use compiles on a GPU host with --no-cache: two prewarm
# rounds of Qwen3-30B-A3B into fresh cache dirs (the second would hit NVRTC's own cache if it were on);
# (b) one band of rows over long K: the dispatch with the split-K workspace against without, 2 rounds.
B=scratch/gpubin-h74
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
$B/jitfp8 info > /tmp/o1/info.txt 2>&1; head -5 /tmp/o1/info.txt
du -sh ~/.nv/ComputeCache 2>/dev/null > /tmp/o1/nvcache-before.txt
for r in 1 2; do
  /usr/bin/time -f "%e s wall" $B/jitfp8 prewarm --jobs 1 --cache-dir /tmp/pw$r kernels_cache/qwen3-30b-a3b.json > /tmp/o1/prewarm$r.txt 2>&1
  echo "prewarm round $r: $(tail -2 /tmp/o1/prewarm$r.txt | tr '\n' ' ')"
done
du -sh ~/.nv/ComputeCache 2>/dev/null; ls ~/.nv 2>&1 | head -3
export JITFP8_CACHE_DIR=/tmp/c74w
S="128,1536,16384;128,1536,24576;128,1536,32768;128,2048,24576;128,2048,32768;128,2816,16384;128,2816,24576;128,2816,32768;128,3072,24576;128,3072,32768;128,3584,24576;128,3584,32768;128,4096,24576;128,4096,32768;128,4608,24576;128,4608,32768;128,5120,24576;128,5120,32768;100,4096,24576;65,4608,32768;100,2816,24576;65,2048,32768"
$B/jitfp8-bench gemm --forward-only --shapes "$S" --iters 2 > /tmp/o1/warm-ws.txt 2>&1
$B/jitfp8-bench gemm --forward-only --no-workspace --shapes "$S" --iters 2 > /tmp/o1/warm-nows.txt 2>&1
for r in 1 2; do
  timeout 80 $B/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 15 > /tmp/o1/r$r-ws.txt 2>&1
  timeout 80 $B/jitfp8-bench gemm --forward-only --no-workspace --shapes "$S" --flush-mb 2048 --iters 15 > /tmp/o1/r$r-nows.txt 2>&1
done
python3 - <<'PY'
import re
def parse(f):
    d={}
    for l in open(f):
        m=re.match(r'\s*(\d+)\s+(\d+)\s+(\d+)\s*\|\s*([\d.]+).*\|\s*([^|]+)$',l)
        if m: d[(int(m[1]),int(m[2]),int(m[3]))]=(float(m[4]),m[5].strip())
    return d
R={(r,v):parse(f'/tmp/o1/r{r}-{v}.txt') for r in (1,2) for v in ('ws','nows')}
for k in R[(1,'ws')]:
    w=[R[(r,'ws')][k][0] for r in (1,2)]; n=[R[(r,'nows')].get(k,(0,''))[0] for r in (1,2)]
    print(k, 'ws', w, R[(1,'ws')][k][1], '| nows', n, R[(1,'nows')].get(k,(0,''))[1], '| ws/nows', round(sum(w)/sum(n),3) if sum(n) else '')
PY

######## scratch/s74c2.sh
#!/bin/bash
# Session 74 call 2: the one-band workspace rules (h74b) against the picks before (h74), with the
# split-K workspace, on 14 shapes they were not fitted on, two rounds alternating; GPU split-K tests.
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
export JITFP8_CACHE_DIR=/tmp/c74
LD_LIBRARY_PATH=$PWD/scratch/gpubin-h74b:$LD_LIBRARY_PATH timeout 240 scratch/gpubin-h74b/jitfp8_gpu_tests "[splitk]" > /tmp/o2/splitk.txt 2>&1; echo "splitk rc=$?"; tail -3 /tmp/o2/splitk.txt
S="128,1024,20480;128,1792,20480;128,2560,20480;128,3072,20480;128,4096,20480;80,2304,16384;128,3328,28672;112,3840,40960;128,4352,49152;80,5376,32768;128,4864,65536;100,5632,28672;128,3840,24576;65,1792,16384"
for v in h74 h74b; do LD_LIBRARY_PATH=$PWD/scratch/gpubin-$v:$LD_LIBRARY_PATH scratch/gpubin-$v/jitfp8-bench gemm --forward-only --shapes "$S" --iters 2 > /tmp/o2/warm-$v.txt 2>&1; done
for r in 1 2; do for v in h74 h74b; do
  LD_LIBRARY_PATH=$PWD/scratch/gpubin-$v:$LD_LIBRARY_PATH timeout 90 scratch/gpubin-$v/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 15 > /tmp/o2/r$r-$v.txt 2>&1
done; done
python3 - <<'PY'
import re, math
def parse(f):
    d={}
    for l in open(f):
        m=re.match(r'\s*(\d+)\s+(\d+)\s+(\d+)\s*\|\s*([\d.]+).*\|\s*([^|]+)$',l)
        if m: d[(int(m[1]),int(m[2]),int(m[3]))]=(float(m[4]),m[5].strip())
    return d
R={(r,v):parse(f'/tmp/o2/r{r}-{v}.txt') for r in (1,2) for v in ('h74','h74b')}
g=[]
for k in R[(1,'h74')]:
    a=[R[(r,'h74')][k][0] for r in (1,2)]; b=[R[(r,'h74b')].get(k,(0,''))[0] for r in (1,2)]
    q=sum(b)/sum(a) if sum(a) else 0; g.append(q)
    print(k, 'before', a, R[(1,'h74')][k][1], '| after', b, R[(1,'h74b')].get(k,(0,''))[1], '| after/before', round(q,3))
print('geomean after/before', round(math.exp(sum(map(math.log,g))/len(g)),4))
PY

######## scratch/s74c3.sh
#!/bin/bash
# Session 74 call 3: the one-band workspace rules as landed (h74c) against the picks before (h74), with
# the split-K workspace, on 10 more shapes up to K 24576, two rounds alternating; the one-band GPU
# test; the default anchor bench.
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
export JITFP8_CACHE_DIR=/tmp/c74c
LD_LIBRARY_PATH=$PWD/scratch/gpubin-h74c:$LD_LIBRARY_PATH timeout 240 scratch/gpubin-h74c/jitfp8_gpu_tests "gemm_fp8_nt's one-band picks over a long K (128-row tiles in 2 splits) match the reference" > /tmp/o3/splitk.txt 2>&1; echo "splitk rc=$?"; tail -3 /tmp/o3/splitk.txt
S="65,3584,20480;80,1536,20480;80,4864,24576;100,2304,20480;112,2048,20480;112,3328,20480;128,4352,24576;128,5632,24576;128,3328,16384;65,2816,20480"
for v in h74 h74c; do LD_LIBRARY_PATH=$PWD/scratch/gpubin-$v:$LD_LIBRARY_PATH scratch/gpubin-$v/jitfp8-bench gemm --forward-only --shapes "$S" --iters 2 > /tmp/o3/warm-$v.txt 2>&1; done
for r in 1 2; do for v in h74 h74c; do
  LD_LIBRARY_PATH=$PWD/scratch/gpubin-$v:$LD_LIBRARY_PATH timeout 90 scratch/gpubin-$v/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 15 > /tmp/o3/r$r-$v.txt 2>&1
done; done
python3 - <<'PY'
import re, math
def parse(f):
    d={}
    for l in open(f):
        m=re.match(r'\s*(\d+)\s+(\d+)\s+(\d+)\s*\|\s*([\d.]+).*\|\s*([^|]+)$',l)
        if m: d[(int(m[1]),int(m[2]),int(m[3]))]=(float(m[4]),m[5].strip())
    return d
R={(r,v):parse(f'/tmp/o3/r{r}-{v}.txt') for r in (1,2) for v in ('h74','h74c')}
g=[]
for k in R[(1,'h74')]:
    a=[R[(r,'h74')][k][0] for r in (1,2)]; b=[R[(r,'h74c')].get(k,(0,''))[0] for r in (1,2)]
    q=sum(b)/sum(a) if sum(a) else 0; g.append(q)
    print(k, 'before', a, R[(1,'h74')][k][1], '| after', b, R[(1,'h74c')].get(k,(0,''))[1], '| after/before', round(q,3))
print('geomean after/before', round(math.exp(sum(map(math.log,g))/len(g)),4))
PY
LD_LIBRARY_PATH=$PWD/scratch/gpubin-h74c:$LD_LIBRARY_PATH timeout 200 scratch/gpubin-h74c/jitfp8-bench gemm --flush-mb 2048 --json /tmp/o3/anchors.json > /tmp/o3/anchors.txt 2>&1; echo "anchors rc=$?"; cat /tmp/o3/anchors.txt | cut -c1-150


######## scratch/s74c4.sh
#!/bin/bash
# Session 74 call 4: the whole GPU suite on the landed binaries (h74c = 3c4cba7's library and tests),
# 5 groups in parallel; memcheck on the one-band case (now also with a workspace).
B=scratch/gpubin-h74c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/c74s
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
i=0
for g in "[gemm]" "[wgrad]" "[moe],[moe_wgrad]" "[quant]" "~[gemm]~[wgrad]~[moe]~[moe_wgrad]~[quant]"; do
  i=$((i+1)); (timeout 420 $B/jitfp8_gpu_tests "$g" > /tmp/o4/suite$i.txt 2>&1; echo "suite$i ($g) rc=$?" >> /tmp/o4/rc.txt) &
done
wait
cat /tmp/o4/rc.txt; for i in 1 2 3 4 5; do echo "suite$i: $(tail -n 2 /tmp/o4/suite$i.txt | head -1)"; done
for i in 1 2 3 4 5; do grep -B3 -A12 FAILED /tmp/o4/suite$i.txt | head -40; done
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 3 $B/jitfp8_gpu_tests "gemm_fp8_nt's one-band picks over a long K (128-row tiles in 2 splits) match the reference" > /tmp/o4/memcheck.txt 2>&1; echo "memcheck rc=$?"; tail -n 4 /tmp/o4/memcheck.txt

######## scratch/s74c5.sh
#!/bin/bash
# Session 74 call 5: a lead for mid M (M 160-768, two to six M bands) over long K: the landed
# binaries (h74c) with the split-K workspace against without, 12 shapes whose picks differ, 2 rounds.
B=scratch/gpubin-h74c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/c74m
mkdir -p /tmp/o5; trap 'tar -C /tmp -czf $OUT/o5.tgz o5' EXIT
S="160,1536,24576;160,2048,32768;200,2048,16384;200,2816,16384;200,2816,32768;256,1024,24576;256,2048,24576;256,2816,24576;384,1024,32768;384,1536,24576;512,1024,16384;768,512,24576"
$B/jitfp8-bench gemm --forward-only --shapes "$S" --iters 2 > /tmp/o5/warm-ws.txt 2>&1
$B/jitfp8-bench gemm --forward-only --no-workspace --shapes "$S" --iters 2 > /tmp/o5/warm-nows.txt 2>&1
for r in 1 2; do
  timeout 80 $B/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 15 > /tmp/o5/r$r-ws.txt 2>&1
  timeout 80 $B/jitfp8-bench gemm --forward-only --no-workspace --shapes "$S" --flush-mb 2048 --iters 15 > /tmp/o5/r$r-nows.txt 2>&1
done
cat /tmp/o5/r1-ws.txt | cut -c1-130

######## scratch/s74c6.sh
#!/bin/bash
# Session 74 call 6: the lead of call 5: --sweep (the model's 40 best candidates, with the workspace)
# on 256 x 1024 x 24576 and 160 x 1536 x 24576, where the pick ran at 0.92x and 0.99x cuBLASLt.
B=scratch/gpubin-h74c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/c74m
mkdir -p /tmp/o6; trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
timeout 300 $B/jitfp8-bench gemm --forward-only --shapes "256,1024,24576;160,1536,24576" --sweep --flush-mb 2048 --iters 10 > /tmp/o6/sweep.txt 2>&1; echo "rc=$?"
grep -v "^\s*$" /tmp/o6/sweep.txt | cut -c1-140 | head -110
