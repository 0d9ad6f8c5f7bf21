#!/bin/bash
# Session 73 call 7: (a) compile times on the H200 host with NVRTC's own cache off: full / old quick /
# new quick (one warm process, random order, 100 s); (b) one band of rows over long K: the dispatch
# with the split-K workspace against without (the one-band rule's picks), two rounds.
B=scratch/gpubin-h73
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o7; trap 'tar -C /tmp -czf $OUT/o7.tgz o7' EXIT
CUDA_CACHE_DISABLE=1 SECS=50 $B/nvrtc73b $PWD/templates $PWD/scratch/tpl-old $(ls -d scratch/cdump/* | shuf --random-source=<(yes)) > /tmp/o7/ctimes.txt 2>&1
echo "ctimes lines $(wc -l < /tmp/o7/ctimes.txt)"
export JITFP8_CACHE_DIR=/tmp/c73w
S="128,2816,16384;128,2816,32768;128,3072,24576;128,3584,24576;128,4096,24576;128,4096,32768;128,4608,24576;128,5120,24576;128,5120,32768;100,4096,24576;128,2048,32768;128,1536,24576;65,4608,32768"
$B/jitfp8-bench gemm --forward-only --shapes "$S" --iters 2 > /tmp/o7/warm-ws.txt 2>&1
$B/jitfp8-bench gemm --forward-only --no-workspace --shapes "$S" --iters 2 > /tmp/o7/warm-nows.txt 2>&1
for r in 1 2; do
  timeout 60 $B/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 15 > /tmp/o7/r$r-ws.txt 2>&1
  timeout 60 $B/jitfp8-bench gemm --forward-only --no-workspace --shapes "$S" --flush-mb 2048 --iters 15 > /tmp/o7/r$r-nows.txt 2>&1
done
python3 - <<'PY'
import re
def parse(f):
    d={}
    for l in open(f):
        m=re.match(r'\s*(\d+)\s+(\d+)\s+(\d+)\s*\|\s*([\d.]+).*\|\s*([^|]+)$',l)
        if m: d[(int(m[1]),int(m[2]),int(m[3]))]=(float(m[4]),m[5].strip())
    return d
R={(r,v):parse(f'/tmp/o7/r{r}-{v}.txt') for r in (1,2) for v in ('ws','nows')}
for k in R[(1,'ws')]:
    w=[R[(r,'ws')][k][0] for r in (1,2)]; n=[R[(r,'nows')].get(k,(0,''))[0] for r in (1,2)]
    print(k, 'ws', w, R[(1,'ws')][k][1], '| nows', n, R[(1,'nows')].get(k,(0,''))[1], '| ws/nows', round(sum(w)/sum(n),3) if sum(n) else '')
PY
# Does a hit in NVRTC's own cache still give ptxas' report in the log? (LOG prints the last compile's)
k=scratch/cdump/gemm_fp8_nt-620ea65ce867707694686677e0ab36d7
echo "log of a repeat compile (cache on): $(TPL=$PWD/templates LOG=1 REPS=2 $B/nvrtc73 $k | tee /tmp/o7/hitlog.txt | grep -c 'ptxas info') ptxas lines; times: $(grep ' ms ptx' /tmp/o7/hitlog.txt | awk '{print $1}' | tr '\n' ' ')"
