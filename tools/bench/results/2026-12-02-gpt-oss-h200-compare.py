#!/usr/bin/env python3
"""Prints the tables of 2026-12-02-gpt-oss-h200.md from the raw call files beside it."""
import math
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
RAW = "2026-12-02-gpt-oss-h200-call{}.txt"


def read(name):
    return (HERE / name).read_text().splitlines()


def gemm_rows(lines):
    """Forward rows: (M, N, K) -> (ours us, cuBLASLt us, config)."""
    rows = {}
    for line in lines:
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+(\d+) \|\s+([\d.]+)\s+\d+\s+[\d.]+% \|\s+([\d.]+|0\.0)\s+\S+ \|.*\| (.+)$", line)
        if m and "acc" not in line:
            rows[(int(m[1]), int(m[2]), int(m[3]))] = (float(m[4]), float(m[5]), m[6].strip())
    return rows


def sweep_rows(lines, pattern):
    """Sweep lines: key -> [(config, us, acc us or None)], the pick first where marked '*'."""
    out = {}
    for line in lines:
        m = re.match(pattern, line)
        if m:
            acc = float(m["acc"]) if m.groupdict().get("acc") else None
            out.setdefault(m["key"], []).append((m["cfg"].strip(), float(m["us"]), acc))
    return out


def section_forward():
    print("Forward / input gradient (call 2): ours, cuBLASLt, ratio, regret of the pick to the fastest swept config")
    lines = read(RAW.format("2-sweeps"))
    lines = lines[: next(i for i, line in enumerate(lines) if line.startswith("Weight gradient"))]
    rows = gemm_rows(lines)
    sweeps = sweep_rows(lines, r"^\s+sweep\s+(?P<key>\d+\s+\d+\s+\d+)\s+(?P<cfg>\*?\S+ st\d+ mc\S+ sk\d+)\s+sms\d+\s*:\s+(?P<us>[\d.]+) us")
    print("| M | N | K | ours us | TFLOPS | cuBLASLt us | ratio | pick | fastest swept | pick over fastest |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (m, n, k), (ours, cub, cfg) in rows.items():
        key = next((s for s in sweeps if s.split() == [str(m), str(n), str(k)]), None)
        best = min(sweeps[key], key=lambda r: r[1]) if key else None
        pick = next((r for r in sweeps[key] if r[0].startswith("*")), None) if key else None
        regret = f"{pick[1] / best[1] - 1:+.1%}" if best and pick else "-"
        print(f"| {m} | {n} | {k} | {ours:.1f} | {2 * m * n * k / ours / 1e6:.0f} | {cub:.1f} | {cub / ours:.2f}x | "
              f"{cfg} | {best[0].lstrip('*') if best else '-'} | {regret} |")


def section_wgrad():
    print("\nDense weight gradient (call 3, the new build's process): the old pick against 256 x 112, overwrite / accumulate us")
    lines = read(RAW.format("3-old-new"))
    sweeps = sweep_rows(lines, r"^\s+sweep\s+(?P<key>\d+\s+\d+\s+\d+)\s+(?P<cfg>\*?\S+\s+st\d+ mc\S+\s+epi\S+ g\d+ pp\d)\s*:\s+(?P<us>[\d.]+) us\s+\d+ TF \| acc\s+(?P<acc>[\d.]+) us")
    print("| M x N x K | 128 x 128 (old pick) | 256 x 112 or the measured costs' tile | overwrite | accumulate |")
    print("|---|---|---|---|---|")
    for key, rows in sweeps.items():
        new = next(r for r in rows if r[0].startswith("*"))
        old = next(r for r in rows if r[0].startswith("128x128"))
        print(f"| {' x '.join(key.split())} | {old[1]:.1f} / {old[2]:.1f} | {new[0].lstrip('*')}: {new[1]:.1f} / {new[2]:.1f} | "
              f"{old[1] / new[1] - 1:+.1%} | {old[2] / new[2] - 1:+.1%} |")


def kgrouped_rows(lines):
    rows = {}
    for line in lines:
        m = re.match(r"^\s+(\d+x\d+)\s+(\d+)\s+(\d+) \|\s+([\d.]+)\s+\d+\s+[\d.]+% \|\s+([\d.]+)\s+\d+ \|\s+([\d.]+)\s+\d+ \|.*\| (.+)$", line)
        if m:
            rows[(m[1], m[2], m[3])] = (float(m[4]), float(m[5]), float(m[6]), m[7].strip())
    return rows


def section_kgrouped():
    print("\nK-grouped, bucket 512, uniform tokens (call 3): old build h68b, new h68c, each in its own process")
    text = read(RAW.format("3-old-new"))
    cut = text.index("---- h68c")
    old, new = kgrouped_rows(text[:cut]), kgrouped_rows(text[cut:])
    print("| E x tokens | M | N | before | after | overwrite us | gain | accumulate us | gain | cuBLASLt us | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    go, ga = [], []
    for key, o in old.items():
        n = new[key]
        go.append(o[0] / n[0])
        ga.append(o[1] / n[1])
        print(f"| {key[0]} | {key[1]} | {key[2]} | {o[3]} | {n[3]} | {o[0]:.1f} -> {n[0]:.1f} | {o[0] / n[0] - 1:+.1%} | "
              f"{o[1]:.1f} -> {n[1]:.1f} | {o[1] / n[1] - 1:+.1%} | {n[2]:.1f} | {n[2] / n[0]:.2f}x |")
    geo = lambda v: math.exp(sum(map(math.log, v)) / len(v)) - 1
    print(f"geomean over {len(go)}: overwrite {geo(go):+.1%}, accumulate {geo(ga):+.1%}")


if __name__ == "__main__":
    section_forward()
    section_wgrad()
    section_kgrouped()
