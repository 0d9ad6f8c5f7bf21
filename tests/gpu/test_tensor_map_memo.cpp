// encode_tensor_map remembers the last maps each thread encoded (runtime/tensor_map.cpp): every
// description it is given, remembered or not, must come back as the driver's own encoding, and a
// description the driver rejects must be rejected again.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "jitfp8/error.hpp"
#include "runtime/driver_api.hpp"
#include "runtime/launch.hpp"
#include "runtime/tensor_map.hpp"

using namespace jitfp8;
using detail::TensorMap2d;

namespace {

// Valid descriptions of every kind the kernels use (fp8 operands under the 128-byte swizzle,
// bf16 and fp32 outputs under 64- and 32-byte swizzles), over random addresses, sizes, strides,
// boxes and L2 promotions. Nothing is read through them: the driver only packs them.
std::vector<TensorMap2d> random_descriptions(int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  const CUtensorMapL2promotion promotions[] = {CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
                                               CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B};
  std::vector<TensorMap2d> maps;
  for (int i = 0; i < count; ++i) {
    TensorMap2d m{};
    const int kind = static_cast<int>(pick(0, 2));
    const std::uint64_t bytes = kind == 0 ? 1 : kind == 1 ? 2 : 4;
    m.dtype = kind == 0 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                        : kind == 1 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    m.swizzle = kind == 0 ? CU_TENSOR_MAP_SWIZZLE_128B : kind == 1 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_32B;
    m.box_inner = static_cast<std::uint32_t>((kind == 0 ? 128 : kind == 1 ? 64 : 32) / bytes);
    m.box_outer = static_cast<std::uint32_t>(pick(1, 256));
    m.base = reinterpret_cast<const void*>(std::uintptr_t{0x7f0000000000} + 16 * pick(0, 1u << 24));
    m.inner = pick(1, 1u << 16) * (16 / bytes);
    m.outer = pick(1, 1u << 20);
    m.row_bytes = m.inner * bytes + 16 * pick(0, 4);
    m.l2_promotion = promotions[pick(0, 3)];
    maps.push_back(m);
  }
  // Descriptions that differ from another in one field only.
  for (int i = 0; i < 8; ++i) {
    TensorMap2d m = maps[static_cast<std::size_t>(i)];
    switch (i % 4) {
      case 0: m.base = static_cast<const char*>(m.base) + 16; break;
      case 1: m.outer += 1; break;
      case 2: m.box_outer = m.box_outer == 1 ? 2 : m.box_outer - 1; break;
      case 3: m.l2_promotion = m.l2_promotion == CU_TENSOR_MAP_L2_PROMOTION_NONE ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                                                               : CU_TENSOR_MAP_L2_PROMOTION_NONE;
              break;
    }
    maps.push_back(m);
  }
  return maps;
}

CUtensorMap driver_encoding(const TensorMap2d& m) {
  CUtensorMap out{};
  const cuuint64_t dims[2] = {m.inner, m.outer};
  const cuuint64_t strides[1] = {m.row_bytes};
  const cuuint32_t box[2] = {m.box_inner, m.box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  REQUIRE(detail::driver().cuTensorMapEncodeTiled(&out, m.dtype, 2, const_cast<void*>(m.base), dims, strides, box,
                                                  element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, m.swizzle,
                                                  m.l2_promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
  return out;
}

// Encodes every description `rounds` times, in a new random order each round (so that remembered
// slots are found, missed and overwritten), and counts encodings that differ from the driver's.
int mismatches(const std::vector<TensorMap2d>& maps, const std::vector<CUtensorMap>& want, int rounds,
               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> order(maps.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  int bad = 0;
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i : order) {
      const CUtensorMap got = detail::encode_tensor_map(maps[i], "test");
      if (std::memcmp(&got, &want[i], sizeof(CUtensorMap)) != 0) ++bad;
      // Straight after itself: the remembered slot answers.
      const CUtensorMap again = detail::encode_tensor_map(maps[i], "test");
      if (std::memcmp(&again, &want[i], sizeof(CUtensorMap)) != 0) ++bad;
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("encode_tensor_map gives the driver's encoding of every description, remembered or not",
          "[gpu][tensor_map]") {
  // The driver encodes only with a context current: make the device's primary context this
  // thread's, as a dispatch does.
  detail::current_device();
  // 72 descriptions against 16 remembered slots per thread: slots are shared, found and overwritten.
  const std::vector<TensorMap2d> maps = random_descriptions(64, 2033);
  std::vector<CUtensorMap> want;
  for (const TensorMap2d& m : maps) want.push_back(driver_encoding(m));
  CHECK(mismatches(maps, want, 4, 1) == 0);
  // Other threads remember their own maps (each first makes the device's primary context its
  // current one, as a dispatch does; a throw counts as a failure).
  int bad[4] = {};
  std::string thrown[4];
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      try {
        detail::current_device();
        bad[t] = mismatches(maps, want, 4, 10 + t);
      } catch (const std::exception& e) {
        bad[t] = -1;
        thrown[t] = e.what();
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    INFO("thread " << t << (thrown[t].empty() ? "" : " threw: " + thrown[t]));
    CHECK(bad[t] == 0);
  }
}

TEST_CASE("encode_tensor_map rejects a description the driver rejects, every time", "[gpu][tensor_map]") {
  detail::current_device();
  TensorMap2d m = random_descriptions(1, 7)[0];
  m.base = static_cast<const char*>(m.base) + 8;  // not 16-byte aligned
  for (int i = 0; i < 3; ++i) CHECK_THROWS_AS(detail::encode_tensor_map(m, "misaligned"), Error);
  m.base = static_cast<const char*>(m.base) - 8;  // the valid one still encodes as the driver does
  const CUtensorMap want = driver_encoding(m);
  const CUtensorMap got = detail::encode_tensor_map(m, "aligned");
  CHECK(std::memcmp(&got, &want, sizeof(CUtensorMap)) == 0);
}
