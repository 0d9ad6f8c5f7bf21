# The bench's table with the tuned table against without it (JITFP8_TUNED=0), from
# 2026-12-01e-tuned-configs-h200-bench-rows.json. Usage, from the repository root:
#   R=tools/bench/results/2026-12-01e-tuned-configs-h200
#   python3 $R-compare.py "$R-bench-rows.json:call3-tuned-ws" "$R-bench-rows.json:call3-off-ws" ws \
#       "$R-bench-rows.json:call3-tuned-nows" "$R-bench-rows.json:call3-off-nows" nows \
#       "$R-bench-rows.json:call2-tuned-ws" "$R-bench-rows.json:call2-off-ws" deepseek-v3
import json,math,sys
def load(p):
    name = p.split(":")[1]
    return json.load(open(p.split(":")[0]))[name]
def cmp(tp, op, label):
    t=load(tp); o=load(op)
    lt=[];lo=[];lu=[];nt=0
    for a,b in zip(t,o):
        assert (a['m'],a['n'],a['k'])==(b['m'],b['n'],b['k'])
        if a['tuned']:
            nt+=1; lu.append(math.log(b['ours_us']/a['ours_us']))
        if a['ratio'] and b['ratio']:
            lt.append(math.log(a['ratio']));lo.append(math.log(b['ratio']))
    g=lambda l: math.exp(sum(l)/len(l)) if l else float('nan')
    print('%s: %d rows, %d tuned; tuned rows ours off/tuned geomean %.3f (min %.3f max %.3f); vs cuBLASLt geomean off %.3f tuned %.3f; below 1.0: off %d tuned %d; all rows ours off/tuned %.3f' % (
        label, len(t), nt, g(lu), math.exp(min(lu)) if lu else 0, math.exp(max(lu)) if lu else 0, g(lo), g(lt),
        sum(1 for r in o if r['ratio'] and r['ratio']<1), sum(1 for r in t if r['ratio'] and r['ratio']<1),
        g([math.log(b['ours_us']/a['ours_us']) for a,b in zip(t,o)])))
    return t,o
if __name__=='__main__':
    for a,b,l in zip(sys.argv[1::3],sys.argv[2::3],sys.argv[3::3]): cmp(a,b,l)
