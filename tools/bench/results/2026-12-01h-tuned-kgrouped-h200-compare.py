#!/usr/bin/env python3
"""Prints the tables of 2026-12-01h-tuned-kgrouped-h200.md sections 3 and 5 from -rows.json."""
import json
import math
import os

rows = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "2026-12-01h-tuned-kgrouped-h200-rows.json")))


def key(r):
    return (r["groups"], r["expected_tokens"], r["m"], r["n"])


def words(c):
    pair = f"mc2{c['multicast_on']}" if c["multicast"] == 2 else "mc1"
    return f"{c['block_m']}x{c['block_n']} st{c['stages']} {pair} epi{c['epi_batch']}x{c['epi_bufs']}"


# The floors: FLOPs over the dense FP8 peak (1979 TFLOPS), and bytes over this H200's copy
# bandwidth (4.1 TB/s, 2026-12-01): A and B once, D written (overwrite) or read and written
# (accumulate). Each row's floor is the larger; "of floor" is floor / measured.
PEAK_TFLOPS, COPY_TBS = 1979.0, 4.1


def floor_us(r, accumulate):
    tokens = r["tokens"]
    flops = 2.0 * r["m"] * r["n"] * tokens
    d_bytes = 4.0 * r["groups"] * r["m"] * r["n"] * (2 if accumulate else 1)
    ab_bytes = (r["m"] + r["n"]) * tokens * (1 + 4 / 128)
    return max(flops / PEAK_TFLOPS / 1e6, (d_bytes + ab_bytes) / COPY_TBS / 1e6)


def table(pairs, title):
    print(title)
    print("| E x tokens | M | N | before | after | overwrite us | gain | of floor | accumulate us | gain | of floor |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    logs = [[], []]
    for before, after in pairs:
        g = before["ours_us"] / after["ours_us"] - 1
        ga = before["ours_acc_us"] / after["ours_acc_us"] - 1
        logs[0].append(math.log1p(g))
        logs[1].append(math.log1p(ga))
        k = key(after)
        print(f"| {k[0]}x{k[1]} | {k[2]} | {k[3]} | {words(before['config'])} | {words(after['config'])} | "
              f"{before['ours_us']:.1f} -> {after['ours_us']:.1f} | {100 * g:+.1f}% | "
              f"{100 * floor_us(after, False) / after['ours_us']:.0f}% | "
              f"{before['ours_acc_us']:.1f} -> {after['ours_acc_us']:.1f} | {100 * ga:+.1f}% | "
              f"{100 * floor_us(after, True) / after['ours_acc_us']:.0f}% |")
    print(f"geomean over {len(pairs)}: overwrite {100 * math.expm1(sum(logs[0]) / len(pairs)):+.1f}%, "
          f"accumulate {100 * math.expm1(sum(logs[1]) / len(pairs)):+.1f}%\n")


# Section 3: the recorded entries on routings the tuner never drew (uniform twice; seeds 1-3 where
# the bench's routing lands in the tuned plan's token bucket).
pairs = []
for rep in (1, 2):
    pick = {key(r): r for r in rows[f"call3_uniform_pick_{rep}"]}
    for r in rows[f"call3_uniform_tuned_{rep}"]:
        pairs.append((pick[key(r)], r))
for seed in (1, 2, 3):
    pick = {key(r): r for r in rows[f"call3_seed{seed}_pick"]}
    for r in rows[f"call3_seed{seed}_tuned"]:
        if r["tuned"]:
            pairs.append((pick[key(r)], r))
table(pairs, "Section 3: tuned entries (JITFP8_TUNED=0 -> table), held-out routings")

# Section 5: the chooser's short-token rules, old build -> new build, uniform tokens.
old = {key(r): r for r in rows["call4_old"]}
new = rows["call4_new"]
kept = [(old[key(r)], r) for r in new if not (r["groups"] > 48 and r["expected_tokens"] == 1024)]
dropped = [(old[key(r)], r) for r in new if r["groups"] > 48 and r["expected_tokens"] == 1024]
table(kept, "Section 5: short-token rules as landed (E <= 48 at 1024 tokens)")
table(dropped, "Section 5: 1024 tokens over 64 experts (not landed: those plans keep the old pick)")
