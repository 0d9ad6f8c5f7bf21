# Prints the comparisons of 2026-12-01g-tuned-wgrad-h200.md from its -bench-rows.json:
# tuned against JITFP8_TUNED=0 (calls 3 and 5, two alternated rounds each), the call-3 sweep of
# the chooser's 192 x 128 picks, and the chooser change of call 7 (new against old, two rounds
# each). Usage: python3 2026-12-01g-tuned-wgrad-h200-compare.py
import json, math, os
from collections import defaultdict

rows = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "2026-12-01g-tuned-wgrad-h200-bench-rows.json")))

def table(call):
    by = {f: {(r["m"], r["n"], r["k"]): r for r in rows[f"{call}-{f}"] if r.get("kind") == "wgrad"}
          for f in ("tuned-r1", "off-r1", "tuned-r2", "off-r2")}
    logs = defaultdict(float)
    print(f"{call}: shape | tuned us (r1/r2) | off us | gain | accumulating gain | x cuBLASLt tuned / off | config")
    shapes = list(by["tuned-r1"])
    for s in shapes:
        t = [by[f][s]["ours_us"] for f in ("tuned-r1", "tuned-r2")]
        o = [by[f][s]["ours_us"] for f in ("off-r1", "off-r2")]
        ta = [by[f][s]["ours_acc_us"] for f in ("tuned-r1", "tuned-r2")]
        oa = [by[f][s]["ours_acc_us"] for f in ("off-r1", "off-r2")]
        cb = sum(by[f][s]["cublaslt_us"] for f in by) / 4
        g, ga = sum(o) / sum(t) - 1, sum(oa) / sum(ta) - 1
        logs["g"] += math.log(1 + g)
        logs["ga"] += math.log(1 + ga)
        c = by["tuned-r1"][s]["config"]
        words = f"{c['block_m']}x{c['block_n']} st{c['stages']} mc{c['multicast']}{'a' if c['multicast'] > 1 else ''}"
        print(f"  {s[0]} x {s[1]} x {s[2]} | {t[0]:.1f} / {t[1]:.1f} | {o[0]:.1f} / {o[1]:.1f} | {100 * g:+.1f}% | "
              f"{100 * ga:+.1f}% | {cb / (sum(t) / 2):.2f} / {cb / (sum(o) / 2):.2f} | "
              f"{words}{' (tuned)' if by['tuned-r1'][s]['tuned'] else ''}")
    n = len(shapes)
    print(f"  geomean: {100 * (math.exp(logs['g'] / n) - 1):+.2f}%, accumulating {100 * (math.exp(logs['ga'] / n) - 1):+.2f}%")

def sweep():
    by = defaultdict(list)
    for r in rows["call3-sweep"]:
        if r.get("kind") == "wgrad_sweep":
            c = r["config"]
            name = f"{c['block_m']}x{c['block_n']} st{c['stages']} mc{c['multicast']}{c['multicast_on'] if c['multicast'] > 1 else ''} epi{c['epi_batch']}x{c['epi_bufs']}"
            by[(r["m"], r["n"], r["k"])].append((name, r["us"] + r["acc_us"]))
    print("call 3 sweep: gain of each candidate over the pick (overwrite + accumulating time)")
    logs, names = defaultdict(float), None
    for s, cands in by.items():
        pick = cands[0]
        names = [n for n, _ in cands[1:]]
        gains = [pick[1] / t - 1 for _, t in cands[1:]]
        for n, g in zip(names, gains):
            logs[n] += math.log(1 + g)
        print(f"  {s[0]} x {s[1]} x {s[2]} pick {pick[0]}: " + " ".join(f"{100 * g:+5.1f}" for g in gains))
    for n in names:
        print(f"  {n}: geomean {100 * (math.exp(logs[n] / len(by)) - 1):+.2f}%")

def chooser():
    def load(f):
        return {(r["m"], r["n"], r["k"]): r for r in rows[f"call7-{f}"] if r.get("kind") == "wgrad"}
    old, new = [load("1-h65b"), load("4-h65b")], [load("2-h65c"), load("3-h65c")]
    print("call 7: 256 x 128 A pairs for 192 x 128 picks, new against old (sum of two rounds each)")
    out = []
    for s in old[0]:
        g = sum(x[s]["ours_us"] for x in old) / sum(x[s]["ours_us"] for x in new) - 1
        ga = sum(x[s]["ours_acc_us"] for x in old) / sum(x[s]["ours_acc_us"] for x in new) - 1
        cb = sum(x[s]["cublaslt_us"] for x in old + new) / 4
        out.append((g, ga, s, cb / (sum(x[s]["ours_us"] for x in old) / 2), cb / (sum(x[s]["ours_us"] for x in new) / 2)))
    out.sort()
    for g, ga, s, ro, rn in out:
        print(f"  {s[0]} x {s[1]} x {s[2]}: {100 * g:+.1f}%, accumulating {100 * ga:+.1f}%, x cuBLASLt {ro:.2f} -> {rn:.2f}")
    n = len(out)
    print(f"  geomean {100 * (math.exp(sum(math.log(1 + o[0]) for o in out) / n) - 1):+.2f}%, accumulating "
          f"{100 * (math.exp(sum(math.log(1 + o[1]) for o in out) / n) - 1):+.2f}%, {n} shapes")

table("call3")
table("call5")
sweep()
chooser()
