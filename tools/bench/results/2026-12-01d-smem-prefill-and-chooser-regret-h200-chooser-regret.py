#!/usr/bin/env python3
# The regret tables of section 3: per shape, the pick against the fastest H100-safe config timed
# by `jitfp8-bench gemm --sweep` (cluster grids within an H100's caps: 88 CTAs in clusters of 4 or
# 8, 108 in clusters of 3; workspace splits always). Usage: chooser-regret.py SWEEP_OUTPUT.txt
import re,collections,sys
def parse(f):
    d=collections.defaultdict(dict); rows={}
    for line in open(f):
        m=re.match(r'\s+sweep\s+(\d+)\s+(\d+)\s+(\d+)\s+(\*?)(\d+)x(\d+) st(\d+)(p?) mc(\S+) sk(\d+)(w?)\s+sms(\d+)\s*:\s+([\d.]+) us',line)
        if m:
            key=(int(m[1]),int(m[2]),int(m[3]))
            cfg=(int(m[5]),int(m[6]),int(m[7]),m[8],m[9],int(m[10]),m[11],int(m[12]))
            t=float(m[13])
            if m[4]: d[key]['PICK']=(cfg,t)
            else: d[key][cfg]=t
        m=re.match(r'\s+(\d+)\s+(\d+)\s+(\d+) \|\s+([\d.]+)\s+\d+\s+[\d.]+% \|\s+([\d.]+)',line)
        if m: rows[(int(m[1]),int(m[2]),int(m[3]))]=(float(m[4]),float(m[5]))
    return d,rows
def h100_safe(cfg):
    bm,bn,st,p,mc,sk,w,sms=cfg
    if w: return True
    if sk>=4: return sms<=88
    if sk==3: return sms<=108
    return True
f=sys.argv[1]
d,rows=parse(f)
import math
gl=[];gs=[]
for key in d:
    pick,tp=d[key]['PICK']
    cands=[(t,c) for c,t in d[key].items() if c!='PICK']
    best_any=min(cands)
    safe=[(t,c) for t,c in cands if h100_safe(c)]
    best_safe=min(safe) if safe else (tp,pick)
    bs=min(best_safe[0],tp)
    gl.append(tp/bs); 
    r=rows.get(key,(0,0))
    fmt=lambda c: f"{c[0]}x{c[1]} st{c[2]}{c[3]} mc{c[4]} sk{c[5]}{c[6]} n{c[7]}"
    flag = '  <<<' if tp/bs>1.03 else ''
    print(f"{key[0]:5d}x{key[1]:5d}x{key[2]:5d} pick {fmt(pick):32s} {tp:6.1f} | best safe {fmt(best_safe[1]):32s} {best_safe[0]:6.1f} ({(best_safe[0]/tp-1)*100:+5.1f}%) | best any {best_any[0]:6.1f} {fmt(best_any[1])} | cuBL {r[1]:.1f}{flag}")
print('geomean pick/best-safe', math.exp(sum(map(math.log,gl))/len(gl)))
