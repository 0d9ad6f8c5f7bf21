// The rows of D an accuracy check of jitfp8 bench and jitfp8 tune compares with the reference.
// Header-only arithmetic, tested on the CPU.
#pragma once

#include <algorithm>
#include <vector>

namespace jitfp8::bench {

// Sorted, unique rows of an M-row D, the same for the same M. M up to 256: every row. Else one
// whole 128-row tile in the middle (every position inside a tile: a bug in one warp's or one TMA
// box's rows shows), the last tile (M's tail, partial where M % 128 != 0), and about 64 rows over
// all of M at an odd stride (coprime to 64, so their positions inside the tiles vary): at most
// 320 rows, so the reference (fp64, one block per row) stays cheap for any M.
inline std::vector<int> sample_rows(long long m) {
  std::vector<int> rows;
  const auto add = [&](long long from, long long to) {
    for (long long r = from; r < to; ++r) rows.push_back(static_cast<int>(r));
  };
  if (m <= 256) {
    add(0, m);
    return rows;
  }
  const long long middle = m / 2 / 128 * 128;
  add(middle, middle + 128);
  add((m - 1) / 128 * 128, m);
  const long long stride = (m + 63) / 64 | 1;
  for (long long r = 0; r < m; r += stride) rows.push_back(static_cast<int>(r));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

}  // namespace jitfp8::bench
