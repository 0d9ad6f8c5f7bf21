// The quantizers at the longest rows they accept. Their kernels count 128-wide blocks along K in
// 32-bit ints and index up to 127 past a block's start, so K is limited to 2^31 - 128
// (src/ops/quant_checks.hpp); past it, the count wrapped and quantize_1x128 wrote scales past its
// buffer (a review, 2026-12-04). Here one row (M = 1; N = 1 for 128x128) of K = 2^31 - 128, and of
// 2^31 - 144 (a last block of 112), runs through each quantizer that takes a single row.
//
// The row is zero except sampled 128-element tiles of random values: both ends and the tiles
// around each 2^31-byte mark of x (bf16 and f32) and of the MXFP8 scales. Every byte of q and of
// the scales is compared with the CPU reference of its tile (for the row-wise scale: of all the
// sampled values), and q and scales start poisoned, so an unwritten, misplaced or wrapped element
// shows. x is 4 GiB (bf16) or 8 GiB (f32); the MXFP8 scales are 8 GiB (rows padded to 128).
// The second case runs quantize_grouped_colwise at its most tokens, 2^31 - 256 (its comment).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "gpu_support.hpp"
#include "memory_skip.hpp"
#include "sparse_device_range.hpp"
#include "jitfp8/layouts.hpp"
#include "jitfp8/quant.hpp"
#include "support/fp8_reference.hpp"
#include "support/quant_reference.hpp"

using namespace jitfp8;
namespace ref = jitfp8::test;

namespace {

using u8 = std::uint8_t;
using test::DeviceBuffer;

constexpr std::int64_t kTile = 128;
constexpr std::int64_t kLongestK = (std::int64_t{1} << 31) - 128;
constexpr float kEps = 1e-4f;
// Bytes past each output's layout that must stay poisoned.
constexpr std::int64_t kGuard = 4096;
constexpr u8 kPoison = 0xCD;

enum class Kind { q1x128, b128x128, rowwise, mx_row };
const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::q1x128: return "quantize_1x128";
    case Kind::b128x128: return "quantize_128x128";
    case Kind::rowwise: return "quantize_rowwise";
    case Kind::mx_row: return "quantize_mxfp8";
  }
  return "?";
}

// Bytes of scales per 128-element tile: 1x128 scales padded to 4 rows (4 floats), one 128x128
// scale, and one 512-byte tile of the MXFP8 layout (a row's 4 blocks, the 127 padding rows 0).
std::int64_t scale_bytes_per_tile(Kind kind) {
  switch (kind) {
    case Kind::q1x128: return 16;
    case Kind::b128x128: return 4;
    case Kind::mx_row: return 512;
    case Kind::rowwise: return 0;  // one float for the whole row
  }
  return 0;
}

template <class T>
std::vector<u8> as_bytes(const std::vector<T>& v) {
  std::vector<u8> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

struct TileRef {
  std::vector<u8> q, scales;
};
// The reference of one tile as a 1 x len matrix; its scale bytes are the tile's share of the
// whole row's layout (for 1x128 and MXFP8 that holds because M = 1 pads to the same layout).
TileRef tile_reference(Kind kind, const std::vector<float>& v) {
  const auto len = static_cast<std::int64_t>(v.size());
  switch (kind) {
    case Kind::q1x128: {
      auto r = ref::ref_1x128(v, 1, len, DType::e4m3, false, kEps);
      return {r.q, as_bytes(r.scales)};
    }
    case Kind::b128x128: {
      auto r = ref::ref_128x128(v, 1, len, DType::e4m3, false, kEps);
      return {r.q, as_bytes(r.scales)};
    }
    case Kind::mx_row: {
      auto r = ref::ref_mx32(v, 1, len, DType::e4m3, false);
      return {r.q, ref::mx_scales_tiled(r.scales, 1, len)};
    }
    case Kind::rowwise: break;
  }
  FAIL("no tile reference for " << kind_name(kind));
  return {};
}

// `bytes` of device memory, or null where the device cannot give them now: the other test groups
// share the GPU (tools/gpu_test_groups.sh), so a check of free memory may pass and the allocation
// still fail; the case is then skipped, not failed.
std::unique_ptr<DeviceBuffer<u8>> try_device_buffer(std::int64_t bytes) {
  try {
    return std::make_unique<DeviceBuffer<u8>>(static_cast<std::size_t>(bytes));
  } catch (const std::runtime_error&) {
    if (cudaGetLastError() == cudaErrorMemoryAllocation) return nullptr;  // and clears it
    throw;
  }
}

// Runs body(i) for i in [0, count) on all host cores.
template <class Body>
void parallel_for(std::int64_t count, Body body) {
  const unsigned workers = std::max(1u, std::min(std::thread::hardware_concurrency(), 32u));
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (std::int64_t i = w; i < count; i += workers) body(i);
    });
  for (auto& t : threads) t.join();
}

// How many of the n bytes at `got` differ from want(i), and the first that does (-1 if none).
struct Difference {
  std::int64_t count = 0, first = -1;
};
template <class Want>
Difference compare(const u8* got, std::int64_t n, Want want) {
  constexpr std::int64_t kChunk = 1 << 20;
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<std::int64_t> per_chunk(static_cast<std::size_t>(chunks)), first(static_cast<std::size_t>(chunks), -1);
  parallel_for(chunks, [&](std::int64_t c) {
    for (std::int64_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i)
      if (got[i] != want(i) && per_chunk[c]++ == 0) first[c] = i;
  });
  Difference d;
  for (std::int64_t c = 0; c < chunks; ++c) {
    d.count += per_chunk[c];
    if (d.first < 0 && first[c] >= 0) d.first = first[c];
  }
  return d;
}
Difference compare(const std::vector<u8>& got, const std::vector<u8>& want) {
  if (got.size() != want.size()) return {1, static_cast<std::int64_t>(std::min(got.size(), want.size()))};
  return compare(got.data(), static_cast<std::int64_t>(got.size()), [&](std::int64_t i) { return want[i]; });
}

// One long row: its length, input type, and the sampled tiles with their values.
struct LongRow {
  std::int64_t k = 0;
  DType dtype = DType::bf16;
  std::vector<std::int64_t> tiles;           // ascending, the last tile always among them
  std::vector<std::vector<float>> values;    // per sampled tile, exactly representable in dtype
  std::int64_t tile_count() const { return (k + kTile - 1) / kTile; }
  std::int64_t tile_length(std::int64_t t) const { return std::min(kTile, k - t * kTile); }
};

LongRow make_row(std::int64_t k, DType dtype, std::uint64_t seed) {
  LongRow row;
  row.k = k, row.dtype = dtype;
  const std::int64_t tiles = row.tile_count();
  std::set<std::int64_t> picked{0, 1, tiles - 2, tiles - 1};
  // Tiles around element 2^29 and 2^30: x's 2^31- and 2^32-byte marks (f32) or 2^31 (bf16), and
  // the MXFP8 scales' 2^31-byte mark (block 2^24 starts element 2^29).
  for (std::int64_t element : {std::int64_t{1} << 29, std::int64_t{1} << 30})
    for (std::int64_t d : {-1, 0}) picked.insert(element / kTile + d);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> any(2, tiles - 3);
  for (int i = 0; i < 6; ++i) picked.insert(any(rng));
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (std::int64_t t : picked) {
    std::vector<float> v(static_cast<std::size_t>(row.tile_length(t)));
    for (float& e : v) e = dtype == DType::bf16 ? ref::bf16_to_float(ref::bf16_from_float(normal(rng))) : normal(rng);
    row.tiles.push_back(t);
    row.values.push_back(std::move(v));
  }
  return row;
}

// x on the device: zero, then the sampled tiles.
void upload(const LongRow& row, const DeviceBuffer<u8>& x) {
  const std::int64_t elem = row.dtype == DType::bf16 ? 2 : 4;
  JITFP8_CUDA_CHECK(cudaMemset(x.get(), 0, static_cast<std::size_t>(row.k * elem)));
  for (std::size_t i = 0; i < row.tiles.size(); ++i) {
    const std::vector<float>& v = row.values[i];
    std::vector<u8> bytes(v.size() * static_cast<std::size_t>(elem));
    for (std::size_t j = 0; j < v.size(); ++j) {
      if (row.dtype == DType::bf16) {
        const std::uint16_t bits = ref::bf16_from_float(v[j]);
        std::memcpy(&bytes[j * 2], &bits, 2);
      } else {
        std::memcpy(&bytes[j * 4], &v[j], 4);
      }
    }
    JITFP8_CUDA_CHECK(cudaMemcpy(x.get() + row.tiles[i] * kTile * elem, bytes.data(), bytes.size(),
                                 cudaMemcpyHostToDevice));
  }
}

// The expected q and scale bytes of the whole row, without writing them all out (the MXFP8
// scales alone are 8 GiB): each sampled tile's reference, a zero tile's for the others, and the
// poison of the guard past each output.
struct ExpectedRow {
  std::int64_t q_bytes = 0, scale_bytes = 0, per_tile = 0;  // per_tile: scale bytes per tile
  TileRef zero;                                              // of a tile of zeros
  std::vector<TileRef> sampled;                              // of each sampled tile
  std::vector<std::int32_t> slot;                            // tile -> index in sampled, or -1
  u8 q(std::int64_t i) const {
    if (i >= q_bytes) return kPoison;
    const std::int32_t s = slot[static_cast<std::size_t>(i / kTile)];
    return (s < 0 ? zero : sampled[static_cast<std::size_t>(s)]).q[static_cast<std::size_t>(i % kTile)];
  }
  u8 scale(std::int64_t i) const {
    if (i >= scale_bytes) return kPoison;
    if (per_tile == 0) return zero.scales[static_cast<std::size_t>(i)];  // row-wise: one scale
    const std::int32_t s = slot[static_cast<std::size_t>(i / per_tile)];
    return (s < 0 ? zero : sampled[static_cast<std::size_t>(s)]).scales[static_cast<std::size_t>(i % per_tile)];
  }
};

ExpectedRow expected(Kind kind, const LongRow& row) {
  ExpectedRow want;
  want.q_bytes = row.k;
  want.per_tile = scale_bytes_per_tile(kind);
  want.slot.assign(static_cast<std::size_t>(row.tile_count()), -1);
  for (std::size_t i = 0; i < row.tiles.size(); ++i) want.slot[static_cast<std::size_t>(row.tiles[i])] = static_cast<std::int32_t>(i);
  if (kind == Kind::rowwise) {
    // One scale from every sampled value; each element's code follows from it alone, so the
    // sampled values quantized as one short row give their codes, and a zero stays code 0.
    std::vector<float> all;
    for (const auto& v : row.values) all.insert(all.end(), v.begin(), v.end());
    const auto r = ref::ref_rowwise(all, 1, static_cast<std::int64_t>(all.size()), DType::e4m3, false, kEps);
    want.zero.q.assign(static_cast<std::size_t>(kTile), ref::fp8_encode(0.0f, DType::e4m3));
    want.zero.scales = as_bytes(r.scales);
    std::size_t at = 0;
    for (const auto& v : row.values) {
      want.sampled.push_back({std::vector<u8>(r.q.begin() + static_cast<std::ptrdiff_t>(at),
                                              r.q.begin() + static_cast<std::ptrdiff_t>(at + v.size())), {}});
      at += v.size();
    }
    want.scale_bytes = 4;
    return want;
  }
  want.zero = tile_reference(kind, std::vector<float>(kTile, 0.0f));
  REQUIRE(static_cast<std::int64_t>(want.zero.scales.size()) == want.per_tile);
  for (const auto& v : row.values) {
    want.sampled.push_back(tile_reference(kind, v));
    REQUIRE(static_cast<std::int64_t>(want.sampled.back().scales.size()) == want.per_tile);
  }
  want.scale_bytes = row.tile_count() * want.per_tile;
  return want;
}

// The first `bytes` of a device buffer (at most all of it), in host memory left uninitialized
// until the copy (zeroing 8 GiB first took seconds).
struct HostCopy {
  std::unique_ptr<u8[]> data;
  std::int64_t bytes = 0;
};
HostCopy download(const DeviceBuffer<u8>& buffer, std::int64_t bytes) {
  HostCopy host;
  host.bytes = std::min<std::int64_t>(bytes, static_cast<std::int64_t>(buffer.bytes()));
  host.data.reset(new u8[static_cast<std::size_t>(host.bytes)]);
  JITFP8_CUDA_CHECK(cudaMemcpy(host.data.get(), buffer.get(), static_cast<std::size_t>(host.bytes),
                               cudaMemcpyDeviceToHost));
  return host;
}

void run(Kind kind, const LongRow& row, const DeviceBuffer<u8>& x, DeviceBuffer<u8>& q,
         DeviceBuffer<u8>& scales) {
  INFO(kind_name(kind) << " K=" << row.k << " x " << (row.dtype == DType::bf16 ? "bf16" : "f32"));
  q.poison(kPoison), scales.poison(kPoison);
  const std::int64_t k = row.k;
  std::int64_t scale_bytes = 0;
  switch (kind) {
    case Kind::q1x128: {
      const Scales1x128Layout l{1, k};
      scale_bytes = l.numel() * 4;
      Quantize1x128Args a;
      a.x = x.get(), a.x_dtype = row.dtype, a.m = 1, a.k = k, a.q = q.get();
      a.scales = reinterpret_cast<float*>(scales.get()), a.scales_capacity = l.numel(), a.eps = kEps;
      quantize_1x128(a, nullptr);
      break;
    }
    case Kind::b128x128: {
      const Scales128x128Layout l{1, k};
      scale_bytes = l.numel() * 4;
      Quantize128x128Args a;
      a.w = x.get(), a.w_dtype = row.dtype, a.n = 1, a.k = k, a.q = q.get();
      a.scales = reinterpret_cast<float*>(scales.get()), a.scales_capacity = l.numel(), a.eps = kEps;
      quantize_128x128(a, nullptr);
      break;
    }
    case Kind::rowwise: {
      scale_bytes = 4;
      QuantizeRowwiseArgs a;
      a.x = x.get(), a.x_dtype = row.dtype, a.m = 1, a.k = k, a.q = q.get();
      a.scales = reinterpret_cast<float*>(scales.get()), a.scales_capacity = 1, a.eps = kEps;
      quantize_rowwise(a, nullptr);
      break;
    }
    case Kind::mx_row: {
      const ScalesMx32Layout l{1, k};
      scale_bytes = l.numel();
      QuantizeMxfp8Args a;
      a.x = x.get(), a.x_dtype = row.dtype, a.m = 1, a.k = k, a.q = q.get();
      a.scales = scales.get(), a.scales_capacity = l.numel();
      quantize_mxfp8(a, nullptr);
      break;
    }
  }
  JITFP8_CUDA_CHECK(cudaGetLastError());
  JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

  const ExpectedRow want = expected(kind, row);
  REQUIRE(want.scale_bytes == scale_bytes);
  const HostCopy got_q = download(q, k + kGuard), got_s = download(scales, scale_bytes + kGuard);
  const Difference dq = compare(got_q.data.get(), got_q.bytes, [&](std::int64_t i) { return want.q(i); });
  const Difference ds = compare(got_s.data.get(), got_s.bytes, [&](std::int64_t i) { return want.scale(i); });
  std::printf("longest rows, %s K %lld %s: %lld q bytes and %lld scale bytes differ (first %lld, %lld)\n",
              kind_name(kind), static_cast<long long>(k), row.dtype == DType::bf16 ? "bf16" : "f32",
              static_cast<long long>(dq.count), static_cast<long long>(ds.count),
              static_cast<long long>(dq.first), static_cast<long long>(ds.first));
  INFO("first differing q byte " << dq.first << ", scale byte " << ds.first);
  CHECK(dq.count == 0);
  CHECK(ds.count == 0);
}

}  // namespace

TEST_CASE("the quantizers on one row of 2^31 - 128 elements (x past 4 GiB), the longest they accept", "[gpu][large-tensors][longest]") {
  std::size_t free_bytes = 0, total_bytes = 0;
  JITFP8_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::int64_t mx_scale_bytes = ScalesMx32Layout{1, kLongestK}.numel();
  const std::int64_t needed = kLongestK * 4 + kLongestK + mx_scale_bytes + 2 * kGuard;
  if (static_cast<std::int64_t>(free_bytes) < needed + (std::int64_t{1} << 30)) {
    test::skip_for_memory("needs " + std::to_string(needed / 1e9) + " GB of device memory, " +
                          std::to_string(free_bytes / 1e9) + " GB free");
    return;
  }
  const auto x = try_device_buffer(kLongestK * 4);                  // f32 at most
  const auto q = try_device_buffer(kLongestK + kGuard);
  const auto scales = try_device_buffer(mx_scale_bytes + kGuard);  // the largest layout
  if (!x || !q || !scales) {
    test::skip_for_memory(std::to_string(needed / 1e9) + " GB of device memory could not be allocated");
    return;
  }

  struct Row {
    std::int64_t k;
    DType dtype;
  };
  // K = 2^31 - 144 ends in a block of 112: 3.5 MXFP8 blocks, its last one of 16.
  const Row rows[] = {{kLongestK, DType::bf16}, {kLongestK - 16, DType::bf16}, {kLongestK, DType::f32}};
  std::uint64_t seed = 31;
  for (const Row& r : rows) {
    const LongRow row = make_row(r.k, r.dtype, seed++);
    upload(row, *x);
    for (Kind kind : {Kind::q1x128, Kind::b128x128, Kind::rowwise, Kind::mx_row}) run(kind, row, *x, *q, *scales);
  }
}

// quantize_grouped_colwise with one group of 2^31 - 256 rows, the most tokens it accepts: its
// kernel walks a group's rows in 32-bit ints, and at 2^31 - 7 rows the split over a cluster
// wrapped and nothing was written (a review, 2026-12-04). D = 16 bf16: x 64 GiB, q 32 GiB. Once
// as the only group (a cluster of 8 blocks shares the rows) and once beside 1023 empty ones (one
// block walks them all). x is zero except random rows in windows of 4096 rows at both ends and
// around every 2^31-byte mark of x and q; q in those windows and every scale must match the CPU
// reference of the nonzero rows taken as one group (the zero rows change no amax, and encode as
// code 0). x and q are sparse ranges (sparse_device_range.hpp): only the windows' chunks have
// memory of their own, and every other chunk of x reads zeros (as of q, written zeros), so the
// 96 GiB of addresses take under 0.5 GB and the case runs on an 80 GB H100 (it was skipped there).
TEST_CASE("quantize_grouped_colwise on one group of 2^31 - 256 rows (x past 4 GiB), the most it accepts",
          "[gpu][large-tensors][longest]") {
  constexpr std::int64_t kTokens = (std::int64_t{1} << 31) - 256, kD = 16, kWindow = 4096;
  const std::int64_t x_bytes = kTokens * kD * 2, q_bytes = kTokens * kD;
  // Windows: both ends, and around each multiple of 2^26 rows (x's 2^31-byte marks; q's are
  // every other one).
  std::vector<std::int64_t> windows{0, kTokens - kWindow};
  for (std::int64_t mark = std::int64_t{1} << 26; mark < kTokens; mark += std::int64_t{1} << 26)
    windows.push_back(mark - kWindow / 2);
  std::mt19937_64 rng(41);
  std::set<std::int64_t> nonzero;
  for (std::int64_t w : windows) {
    std::uniform_int_distribution<std::int64_t> in_window(w, w + kWindow - 1);
    for (int i = 0; i < 6; ++i) nonzero.insert(in_window(rng));
    nonzero.insert(w), nonzero.insert(w + kWindow - 1);
    if (w > 0 && w + kWindow < kTokens) nonzero.insert(w + kWindow / 2 - 1), nonzero.insert(w + kWindow / 2);
  }
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> values;  // the nonzero rows in order, kD each
  std::vector<std::pair<std::int64_t, std::int64_t>> x_windows, q_windows{{q_bytes, q_bytes + kGuard}};
  for (std::int64_t w : windows) {
    x_windows.emplace_back(w * kD * 2, (w + kWindow) * kD * 2);
    q_windows.emplace_back(w * kD, (w + kWindow) * kD);
  }
  const test::SparseDeviceRange x(x_bytes, x_windows), q(q_bytes + kGuard, q_windows);
  if (!x.ok() || !q.ok()) {
    const test::SparseDeviceRange& failed = x.ok() ? q : x;
    if (!failed.out_of_memory()) FAIL("a sparse device range could not be made: " << failed.failed_step());
    test::skip_for_memory("no device memory for a sparse range's windows");
    return;
  }
  std::printf("longest groups: %.2f GB of device memory behind x's and q's %.1f GB of addresses\n",
              static_cast<double>(x.backed_bytes() + q.backed_bytes()) / 1e9,
              static_cast<double>(x.bytes() + q.bytes()) / 1e9);
  JITFP8_CUDA_CHECK(cudaMemset(x.get(), 0, static_cast<std::size_t>(x.bytes())));
  for (std::int64_t r : nonzero) {
    std::uint16_t bits[kD];
    for (std::int64_t c = 0; c < kD; ++c) {
      bits[c] = ref::bf16_from_float(normal(rng));
      values.push_back(ref::bf16_to_float(bits[c]));
    }
    JITFP8_CUDA_CHECK(cudaMemcpy(x.get() + r * kD * 2, bits, sizeof bits, cudaMemcpyHostToDevice));
  }
  const auto n_nonzero = static_cast<std::int64_t>(nonzero.size());

  for (const std::int64_t groups : {std::int64_t{1}, std::int64_t{1024}}) {
    INFO(groups << " groups");
    const std::vector<std::int32_t> ends(static_cast<std::size_t>(groups), static_cast<std::int32_t>(kTokens));
    const DeviceBuffer<std::int32_t> ends_dev(ends);
    DeviceBuffer<float> scales(static_cast<std::size_t>(groups * kD + kGuard));
    JITFP8_CUDA_CHECK(cudaMemset(q.get(), kPoison, static_cast<std::size_t>(q.bytes())));
    scales.poison(kPoison);
    QuantizeGroupedColwiseArgs a;
    a.x = x.get(), a.tokens = kTokens, a.d = kD, a.num_groups = groups, a.group_ends = ends_dev.get();
    a.q = q.get(), a.scales = scales.get(), a.scales_capacity = groups * kD, a.eps = kEps;
    quantize_grouped_colwise(a, nullptr);
    JITFP8_CUDA_CHECK(cudaGetLastError());
    JITFP8_CUDA_CHECK(cudaDeviceSynchronize());

    const auto want = ref::ref_grouped_colwise(
        values, n_nonzero, kD, std::vector<std::int32_t>(ends.size(), static_cast<std::int32_t>(n_nonzero)),
        DType::e4m3, false, kEps, kPoison);
    // Scales, then the guard after them.
    std::vector<u8> want_scales = as_bytes(want.scales);
    want_scales.resize(want_scales.size() + static_cast<std::size_t>(kGuard) * 4, kPoison);
    std::vector<u8> got_scales(want_scales.size());
    JITFP8_CUDA_CHECK(cudaMemcpy(got_scales.data(), scales.get(), got_scales.size(), cudaMemcpyDeviceToHost));
    const Difference ds = compare(got_scales, want_scales);
    // q in every window, and the guard after q.
    const u8 zero = ref::fp8_encode(0.0f, DType::e4m3);
    std::int64_t q_differ = 0, first = -1;
    std::vector<u8> got(static_cast<std::size_t>(kWindow * kD)), expect(got.size());
    for (std::int64_t w : windows) {
      JITFP8_CUDA_CHECK(cudaMemcpy(got.data(), q.get() + w * kD, got.size(), cudaMemcpyDeviceToHost));
      std::fill(expect.begin(), expect.end(), zero);
      for (auto it = nonzero.lower_bound(w); it != nonzero.end() && *it < w + kWindow; ++it) {
        const auto index = std::distance(nonzero.begin(), it);  // its rank among the nonzero rows
        std::copy_n(want.q.begin() + index * kD, kD, expect.begin() + (*it - w) * kD);
      }
      for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != expect[i] && q_differ++ == 0) first = w * kD + static_cast<std::int64_t>(i);
    }
    std::vector<u8> guard(static_cast<std::size_t>(kGuard));
    JITFP8_CUDA_CHECK(cudaMemcpy(guard.data(), q.get() + q_bytes, guard.size(), cudaMemcpyDeviceToHost));
    const auto guard_written = std::count_if(guard.begin(), guard.end(), [](u8 b) { return b != kPoison; });
    std::printf("longest groups, quantize_grouped_colwise %lld rows, %lld groups: %lld q bytes in %zu "
                "windows and %lld scale bytes differ (first q byte %lld), %lld guard bytes written\n",
                static_cast<long long>(kTokens), static_cast<long long>(groups), static_cast<long long>(q_differ),
                windows.size(), static_cast<long long>(ds.count), static_cast<long long>(first),
                static_cast<long long>(guard_written));
    CHECK(q_differ == 0);
    CHECK(ds.count == 0);
    CHECK(guard_written == 0);
  }
}
