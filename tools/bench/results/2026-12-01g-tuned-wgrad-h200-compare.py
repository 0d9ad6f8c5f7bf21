# Prints the comparisons of 2026-12-01g-tuned-wgrad-h200.md from its -bench-rows.json:
# tuned against JITFP8_TUNED=0 (calls 3 and 5, two alternated rounds each), and the call-3 sweep
# of the chooser's 192 x 128 picks. Usage: python3 2026-12-01g-tuned-wgrad-h200-compare.py
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

table("call3")
table("call5")
sweep()
