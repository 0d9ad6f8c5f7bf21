#!/usr/bin/env python3
"""Prints the tables of 2026-12-02b-glm-4.5-air-h200.md from the raw call files beside it."""
import math
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
RAW = "2026-12-02b-glm-4.5-air-h200-call{}.txt"
SWEEP = re.compile(r"  sweep\s+(?P<key>\S+\s+\S+\s+\S+(?:\s+\d+)?)\s+(?P<pick>\*?)(?P<cfg>\d+x\d+ .*?):\s+(?P<us>[\d.]+) us"
                   r"\s+\d+ TF(?: \| acc\s+(?P<acc>[\d.]+) us)?")
ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+) \|\s+([\d.]+)\s+\d+\s+[\d.]+% \|\s+([\d.]+)\s+\S+ \|.*\| (.+)$")


def read(name):
    return (HERE / RAW.format(name)).read_text().splitlines()


def sweeps(lines):
    """key -> (pick (config, us, acc) or None, [(config, us, acc)]); the pick is the first row marked '*'."""
    out = {}
    for line in lines:
        m = SWEEP.match(line)
        if not m:
            continue
        acc = float(m["acc"]) if m["acc"] else None
        row = (re.sub(r"\s+sms\s*\d+$", "", m["cfg"].strip()), float(m["us"]), acc)
        pick, rows = out.setdefault(" ".join(m["key"].split()), [None, []])
        rows.append(row)
        if m["pick"] and pick is None:
            out[" ".join(m["key"].split())][0] = row
    return out


def section_regret():
    print("Call 1: the picks against the fastest swept config (us; regret = pick / fastest - 1)")
    for key, (pick, rows) in sweeps(read("1-sweeps")).items():
        if pick is None:
            continue
        best = min(rows, key=lambda r: r[1])
        print(f"  {key:24s} pick {pick[0]:32s} {pick[1]:7.1f}  fastest {best[0]:32s} {best[1]:7.1f}"
              f"  regret {100 * (pick[1] / best[1] - 1):5.1f}%")


def ab_rows(lines):
    """(label, round) -> {(M, N, K): (us, config)} from '==== build h69X, round R[, D]' blocks."""
    out, label = {}, None
    for line in lines:
        if line.startswith("==== build"):
            label = line[len("==== build "):]
            continue
        m = ROW.match(line)
        if m and label:
            out.setdefault(label, {})[(int(m[1]), int(m[2]), int(m[3]))] = (float(m[4]), m[6].strip())
    return out


def hbm_floor_us(m, n, k, d_bytes):
    """Bytes over the H200's 4.8 TB/s: A and B in e4m3 once, D written once (scales left out)."""
    return (m * k + n * k + m * n * d_bytes) / 4.8e6


def section_ab(call, old, new, title):
    print(title)
    runs = ab_rows(read(call))
    for suffix in sorted({label.split(", ", 2)[2] if label.count(", ") > 1 else "" for label in runs}):
        def mean(build, key):
            labels = [l for l in runs if l.startswith(build) and l.endswith(suffix)]
            return sum(runs[l][key][0] for l in labels) / len(labels), runs[labels[0]][key][1]
        keys = next(runs[l] for l in runs if l.startswith(old) and l.endswith(suffix)).keys()
        logs = []
        for key in keys:
            (a, ca), (b, cb) = mean(old, key), mean(new, key)
            logs.append(math.log(b / a))
            floor = hbm_floor_us(*key, 4 if suffix == "f32 D" else 2)
            print(f"  {suffix or '':6s} {key[0]:5d} x {key[1]:5d} x {key[2]:5d}  {a:7.2f} ({ca:22s}) -> {b:7.2f} ({cb:22s})"
                  f" {100 * (b / a - 1):+6.1f}%  HBM floor {floor:5.1f} us: {100 * floor / a:3.0f}% -> {100 * floor / b:3.0f}%")
        print(f"  geomean {100 * (math.exp(sum(logs) / len(logs)) - 1):+.1f}% over {len(logs)} shapes")


def section_48_vs_96():
    print("Calls 5 and 6: 128 x 48 and 64 x 96 in 2 splits by K (us)")
    for call in ("5-6-48-vs-96",):
        for key, (_, rows) in sweeps(read(call)).items():
            get = {c.split()[0]: u for c, u, _ in rows if c.split()[-1] == "sk2"}
            if "128x48" in get and "64x96" in get:
                print(f"  {key:20s} K blocks {math.ceil(int(key.split()[2]) / 128):4d}  128x48 {get['128x48']:5.1f}"
                      f"  64x96 {get['64x96']:5.1f}  64x96 / 128x48 {get['64x96'] / get['128x48']:.3f}")


if __name__ == "__main__":
    section_regret()
    print()
    section_ab("2-unroll-ab", "h69a", "h69b", "Call 2: split-K producer loop unrolled by 4 (h69a) -> by 2 (h69b), mean of two rounds")
    print()
    section_ab("4-rule-ab", "h69b", "h69c", "Call 4: picks before -> with the one-band rule (h69b -> h69c), mean of two rounds, no workspace")
    print()
    section_48_vs_96()
