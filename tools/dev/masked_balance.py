#!/usr/bin/env python3
"""How evenly the masked grouped GEMM's static tile walk spreads work over the clusters.

The masked kernel walks tile units expert after expert, in the grouped order inside an expert
(templates/moe/grouping.cuh, GroupedTileScheduler::next and map_unit), and cluster c takes units
c, c + S, c + 2S, ... (S clusters). This mirrors that walk on the CPU for given group sizes and
config, with a cost per unit: 1 for a tile whose two 64-row waves both hold valid rows, ALPHA when
only the first does (one math warpgroup computes), BETA when none does (the idle half of a B pair
past the count). A cluster's pair runs in lockstep (multicast), so its unit costs the dearer CTA.

It prints each cluster total's min and max over the mean. The kernel's time follows the busiest
cluster, so 1 - mean/max is what perfect balancing would save. Against ncu's sm__cycles_active
min/avg/max on an H200 (2026-11-29c results, section 6), ALPHA 0.75 reproduced the measured
spread of masked 6 x 1024 at N x K 6144 x 7168, 7168 x 3072 and 4096 x 4096 within 0.01.
What balancing costs is not in the model: a K-split tail built on it (2026-11-29d results) was
predicted to save 3-4% and ran slower on every shape (its pieces' epilogues through fp32 global
memory, and its code in the whole tiles' loops).

usage: masked_balance.py --counts 1108,1296,740,1324,776,888 --n-blocks 32 --pairs a
       [--block-m 128] [--group-n 8] [--clusters 66] [--alpha 0.75] [--beta 0.15]
  --n-blocks: ceil(N / BLOCK_N); --pairs: a (pairs share A: two N blocks), b (two M blocks), none.
"""
import argparse


def tile_cost(count, m_block, block_m, alpha, beta):
    valid = min(block_m, count - block_m * m_block)
    if valid <= 0:
        return beta
    return 1.0 if valid > block_m // 2 else alpha


def unit_costs(counts, block_m, n_blocks, pairs, group_n, alpha, beta):
    costs = []
    for count in counts:
        m_blocks = (count + block_m - 1) // block_m
        units_m = (m_blocks + 1) // 2 if pairs == "b" else m_blocks
        units_n = (n_blocks + 1) // 2 if pairs == "a" else n_blocks
        full_groups_n = units_n // group_n * group_n
        last_group_n = units_n % group_n or group_n
        for u in range(units_m * units_n):
            group, in_group = divmod(u, group_n * units_m)
            width = group_n if group * group_n < full_groups_n else last_group_n
            um = in_group // width
            if pairs == "b":
                costs.append(max(tile_cost(count, 2 * um + r, block_m, alpha, beta) for r in (0, 1)))
            else:
                costs.append(tile_cost(count, um, block_m, alpha, beta))
    return costs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--counts", required=True, help="valid rows per expert, comma-separated")
    p.add_argument("--n-blocks", type=int, required=True)
    p.add_argument("--pairs", choices=("a", "b", "none"), default="none")
    p.add_argument("--block-m", type=int, default=128)
    p.add_argument("--group-n", type=int, default=8)
    p.add_argument("--clusters", type=int, default=66)
    p.add_argument("--alpha", type=float, default=0.75)
    p.add_argument("--beta", type=float, default=0.15)
    a = p.parse_args()
    counts = [int(x) for x in a.counts.split(",")]
    costs = unit_costs(counts, a.block_m, a.n_blocks, a.pairs, a.group_n, a.alpha, a.beta)
    totals = [0.0] * a.clusters
    for i, c in enumerate(costs):
        totals[i % a.clusters] += c
    mean = sum(totals) / len(totals)
    print(f"units {len(costs)} ({len(costs) / a.clusters:.2f} per cluster); cluster work min / max over mean "
          f"{min(totals) / mean:.3f} / {max(totals) / mean:.3f}; perfect balance would save {1 - mean / max(totals):.1%}")


if __name__ == "__main__":
    main()
