#!/usr/bin/env python3
# Section 3's offline refits: an approximate Python replica of the dense chooser's model
# (src/heuristics/sm90_gemm.cpp at d945331: tile_cycles, the gates, the H100 caps) ranking the
# configs the call-5 sweeps timed; a least-squares refit of its constants (with an aggregate L2
# term and factors for 64-row straddling tiles and split tiles with run-time B-scale bounds),
# and gate relaxations, scored by the regret of what each would pick.
# Usage: model-replica.py CALL5_NO_WORKSPACE.txt CALL5_WORKSPACE.txt
import re,collections,math,sys
from math import gcd,ceil
def parse(f):
    d=collections.defaultdict(dict)
    for line in open(f):
        m=re.match(r'\s+sweep\s+(\d+)\s+(\d+)\s+(\d+)\s+(\*?)(\d+)x(\d+) st(\d+)(p?) mc(\S+) sk(\d+)(w?)\s+sms(\d+)\s*:\s+([\d.]+) us',line)
        if m:
            key=(int(m[1]),int(m[2]),int(m[3]))
            cfg=(int(m[5]),int(m[6]),int(m[7]),m[8],m[9],int(m[10]),m[11]=='w',int(m[12]))
            t=float(m[13])
            if m[4]: d[key]['PICK']=(cfg,t)
            else: d[key].setdefault(cfg,t)
    return d
def nsfb(bn): return (128-gcd(bn,128)+bn+127)//128
P=dict(l2bw=1e9,straddle64=1.0,rt_split=1.0,promo=1.25,loadrate=48.0,lat=250.0,ws_const=10000.0,ws_rate=32.0,ds_const=1500.0,ds_rate=8.0,small_tile=1.0)
def tile_cycles(bm,bn,k,s,b_shared,ws,p):
    kb=ceil(ceil(k/128)/s)
    four=(1.10 if (bm==128 and kb>16) else 1.06)
    rs=(1.05 if gcd(bn,128)<32 else 1.0)*(1.12 if bm==256 and nsfb(bn)>1 else 1.0)*(four if nsfb(bn)>1 and 128//gcd(bn,128)==4 else 1.0)
    mma=bm*bn/32*p['promo']*rs
    ps=1.10 if gcd(bn,128)<32 else 1.0
    load=(bm+(bn/2 if b_shared else bn))*128/p['loadrate']
    lat=p['lat']
    per=max(mma,load*ps,lat*ps)
    if bm==64: per*=p['small_tile']
    if bm==64 and nsfb(bn)>1: per*=p['straddle64']
    if s>1 and nsfb(bn)>1 and 128//gcd(bn,128)>4: per*=p['rt_split']
    epi=400+bm*bn*2/64/s+(1800 if bm==256 else 0)
    red=0 if s<=1 else (p['ws_const']+(s-1)/s*bm*bn*8/p['ws_rate'] if ws else p['ds_const']+(s-1)/s*bm*bn*4/p['ds_rate'])
    return kb*per+epi+red
def h100_ok(cfg):
    bm,bn,st,pad,mc,sk,w,sms=cfg
    if w: return True
    if sk>=4: return sms<=88
    if sk==3: return sms<=108
    return True
def mbucket(m):
    b=64
    while b<m: b*=2
    return b
def pow2f(x):
    return x if x<2 else 2*pow2f(x//2)
def recv_bytes(bm,bn,s):
    frags=(1 if bm==64 else 2)*(2 if bm==256 else 1)
    cp=pow2f(s)//frags if pow2f(s)>frags else 1
    chunks=frags*cp; owned=(chunks+s-1)//s
    return (s-1)*owned*(bm*bn*4//chunks)
def allowed(cfg,shape,gates):
    bm,bn,st,pad,mc,sk,w,sms=cfg
    m,n,k=shape; kb=ceil(k/128); mb=mbucket(m)
    if not h100_ok(cfg): return False
    if (not w) and sk>1 and bm==256: return False
    if mc!='1' and not (mc=='2b' and mb<=128 and sk==1): return False
    if (not w) and sk>1 and bm==128 and gcd(bn,128)>=32 and 3*(bm*128+bn*128+bm*4)+bm*bn*2+recv_bytes(bm,bn,sk)>232448-2048: return False
    if w and not gates['ws'](bm,bn,k,mb): return False
    if (not w) and sk==3 and not gates['three'](mb,bm,bn,kb): return False
    return True
def model(cfg,shape,p):
    bm,bn,st,pad,mc,sk,w,sms=cfg
    m,n,k=shape
    kb=ceil(k/128); mb=mbucket(m)
    mr=(max(m,1)+63)//64*64
    tiles=ceil(mr/bm)*ceil(n/bn)
    waves=ceil(tiles/ (132 if sk==1 else 10**9))
    b_shared = (mc=='2b') and mb<=128 and kb>=12
    f=1.0
    if bm==128 and sk==1 and nsfb(bn)>1 and 128//gcd(bn,128)>4: f=1.19
    elif bm==128 and sk==1 and 128%bn==0 and mb>128: f=1.08
    per_cta=waves*tile_cycles(bm,bn,k,sk,b_shared,w,p)*f
    ctas=min(tiles*sk, 132) if sk>1 else min(tiles,132)
    kbc=ceil(kb/sk)
    traffic=tiles*sk*kbc*(bm+(bn/2 if b_shared else bn))*128
    return max(per_cta, traffic/p['l2bw'])
CUR=dict(ws=lambda bm,bn,k,mb: bm==128 and bn==128 and k>=16384,
         three=lambda mb,bm,bn,kb: mb<=128 and bm==64 and 128%bn==0 and bn>=32 and kb<=64)
ALL=dict(ws=lambda bm,bn,k,mb: True, three=lambda mb,bm,bn,kb: True)
def evaluate(datasets,gates,p,verbose=False):
    regs=[]
    for d in datasets:
        for shape,cf in d.items():
            cands=[(c,t) for c,t in cf.items() if c!='PICK' and allowed(c,shape,gates)]
            if not cands: continue
            best=min(t for c,t in cf.items() if c!='PICK' and allowed(c,shape,ALL))
            pickc,pickt=min(cands,key=lambda ct: model(ct[0],shape,p))
            regs.append(pickt/best)
            if verbose and pickt/best>1.03: print(shape, pickc, pickt, best)
    return math.exp(sum(map(math.log,regs))/len(regs)), sum(r>1.03 for r in regs), len(regs), max(regs)
def _main():
    import random, sys as _s
    nows, ws = parse(_s.argv[1]), parse(_s.argv[2])
    print('current model and gates: no workspace', evaluate([nows], CUR, P), 'workspace', evaluate([ws], CUR, P))
    pts = [(c, s, t) for d in (nows, ws) for s, cf in d.items() for c, t in cf.items()
           if c != 'PICK' and allowed(c, s, ALL)]
    def loss(p):
        e = [math.log(t / (model(c, s, p) / 1.9e3)) for c, s, t in pts]
        mu = sum(e) / len(e)
        return sum((x - mu) ** 2 for x in e) / len(e)
    best = dict(P); best['l2bw'] = 4000.0; bl = loss(best)
    random.seed(1)
    for _ in range(3000):
        q = dict(best); k = random.choice(list(q)); q[k] *= math.exp(random.gauss(0, 0.15))
        l = loss(q)
        if l < bl: best, bl = q, l
    print('refit', {k: round(v, 3) for k, v in best.items()}, 'log-variance', round(bl, 4), 'from', round(loss(P), 4))
    BOTH = dict(ws=lambda bm, bn, k, mb: k >= 16384, three=lambda mb, bm, bn, kb: True)
    print('refit, current gates', evaluate([nows], CUR, best), evaluate([ws], CUR, best))
    print('refit, gates open', evaluate([nows], BOTH, best), evaluate([ws], BOTH, best))
if __name__ == '__main__':
    _main()
