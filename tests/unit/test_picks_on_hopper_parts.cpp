// Every GEMM family's pick on Hopper parts and partitions other than the 132-SM H100 SXM: an
// H100 PCIe (114 SMs), an H20 (78), MIG slices (16, 32, 60), green contexts (multiples of 8 from
// 8), set_gemm_sm_limit of any count (1, 2, 7, 9, 66, 131), a die with one SM more (133). Each pick
// must pass the checks a tuned config must pass before a plan takes it (the template's rules and
// the grid the dispatch launches), and its persistent grid must be whole clusters within the SMs.
// The tuned-config tests check the picks of 132, 131, 100, 67 and 66 SMs only (a review,
// 2026-12-06).
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_grouped.hpp"
#include "heuristics/sm90_grouped_wgrad.hpp"
#include "heuristics/sm90_wgrad.hpp"
#include "ops/gemm_fp8_grouped.hpp"

using namespace jitfp8::detail;

namespace {

const int kSmCounts[] = {1, 2, 7, 8, 9, 16, 32, 60, 66, 78, 114, 131, 132, 133};

// How the dispatch sees the SMs: a whole device whose cluster room was not measured, a device
// whose room was measured (an H100's share, 39 / 30 / 15 clusters of 3 / 4 / 8 per 132 SMs), and
// SMs under a limit or a green context (no pairs, no measured room).
enum class Room { unknown, measured, alone };
const Room kRooms[] = {Room::unknown, Room::measured, Room::alone};

ClusterCapacity capacity_of(Room room, int sms) {
  if (room == Room::alone) return ClusterCapacity{0, 0, 0, true};
  if (room == Room::unknown) return ClusterCapacity{};
  return ClusterCapacity{sms * 39 / 132, sms * 30 / 132, sms * 15 / 132, false};
}

const char* room_name(Room room) {
  return room == Room::unknown ? "unknown room" : room == Room::measured ? "measured room" : "alone";
}

// A persistent grid: at least one cluster, whole clusters, no more CTAs than SMs.
void check_persistent_grid(int num_sms, int multicast, int sms) {
  CHECK(num_sms >= multicast);
  CHECK(num_sms <= sms);
  CHECK(num_sms % multicast == 0);
}

}  // namespace

TEST_CASE("gemm_fp8_nt picks on other Hopper parts and partitions pass the plan checks", "[gemm][heuristics][parts]") {
  int checked = 0;
  for (const int sms : kSmCounts)
    for (const Room room : kRooms)
      for (const std::int64_t m : {1, 129, 1000, 4095})
        for (const std::int64_t n : {8, 576, 7168, 24576})
          for (const std::int64_t k : {512, 7168, 32768})
            for (const bool ws : {false, true})
              for (const bool f32 : {false, true}) {
                const ClusterCapacity clusters = capacity_of(room, sms);
                const std::int64_t m_key = sm90_gemm_m_key(m);
                const Sm90GemmConfig c = choose_sm90_gemm_config(m_key, n, k, sms, clusters, ws, f32);
                INFO(fmt::format("{} x {} x {}, {} SMs, {}, workspace {}, f32 {}: {}", m, n, k, sms, room_name(room),
                                 ws, f32, c.to_json().dump()));
                CHECK(sm90_gemm_config_problem(c, m_key, n, k, sms, clusters, ws, f32).value_or("") == "");
                if (c.splits == 1) check_persistent_grid(c.num_sms, c.multicast, sms);
                if (room == Room::alone) CHECK(c.multicast == 1);
                ++checked;
              }
  CHECK(checked == 14 * 3 * 4 * 4 * 3 * 2 * 2);
}

TEST_CASE("gemm_fp8_wgrad picks on other Hopper parts and partitions pass the plan checks",
          "[wgrad][heuristics][parts]") {
  int checked = 0;
  for (const int sms : kSmCounts)
    for (const bool alone : {false, true})
      for (const std::int64_t m : {1, 100, 576, 2112, 7168, 32768})
        for (const std::int64_t n : {512, 4096, 7168})
          for (const std::int64_t k : {512, 2048, 16384}) {
            const Sm90WgradConfig c = choose_sm90_wgrad_config(sm90_wgrad_m_bucket(m), n, k, sms, true, alone);
            INFO(fmt::format("{} x {} x {}, {} SMs, alone {}: {}", m, n, k, sms, alone, c.to_json().dump()));
            CHECK(sm90_wgrad_config_problem(c, sms, alone).value_or("") == "");
            check_persistent_grid(c.num_sms, c.multicast, sms);
            if (alone) CHECK(c.multicast == 1);
            ++checked;
          }
  CHECK(checked == 14 * 2 * 6 * 3 * 3);
}

TEST_CASE("M-grouped picks on other Hopper parts and partitions pass the plan checks", "[moe][heuristics][parts]") {
  int checked = 0;
  for (const int sms : kSmCounts)
    for (const bool alone : {false, true})
      for (const Sm90Grouping g : {Sm90Grouping::contiguous_ids, Sm90Grouping::contiguous_ends, Sm90Grouping::masked})
        for (const std::int64_t groups : {1, 8, 256})
          for (const std::int64_t rows : {1, 192, 4096})
            for (const auto& [n, k] : {std::pair<std::int64_t, std::int64_t>{4096, 7168}, {576, 512}, {24, 128}}) {
              const std::int64_t m = g == Sm90Grouping::masked ? rows : rows * groups;
              const Sm90GemmConfig c = choose_sm90_grouped_config(g, m, groups, n, k, sms, alone);
              INFO(fmt::format("{} E {} rows {} {} x {}, {} SMs, alone {}: {}", sm90_grouping_name(g), groups, m, n,
                               k, sms, alone, c.to_json().dump()));
              CHECK(sm90_grouped_config_problem(g, c, groups, k, sms, alone).value_or("") == "");
              check_persistent_grid(c.num_sms, c.multicast, sms);
              if (alone) CHECK(c.multicast == 1);
              ++checked;
            }
  CHECK(checked == 14 * 2 * 3 * 3 * 3 * 3);
}

TEST_CASE("K-grouped picks on other Hopper parts and partitions pass the plan checks",
          "[kgrouped][heuristics][parts]") {
  int checked = 0;
  for (const int sms : kSmCounts)
    for (const bool alone : {false, true})
      for (const std::int64_t m : {64, 2048, 7168})
        for (const std::int64_t n : {48, 2048, 7168})
          for (const std::int64_t capacity : {512, 65536})
            for (const std::int64_t groups : {1, 12, 64}) {
              const Sm90WgradConfig c =
                  choose_sm90_grouped_wgrad_config(sm90_wgrad_m_bucket(m), n, capacity, groups, sms, alone);
              INFO(fmt::format("{} x {}, {} tokens over {}, {} SMs, alone {}: {}", m, n, capacity, groups, sms, alone,
                               c.to_json().dump()));
              CHECK(sm90_grouped_wgrad_config_problem(c, sms, alone).value_or("") == "");
              check_persistent_grid(c.num_sms, c.multicast, sms);
              if (alone) CHECK(c.multicast == 1);
              ++checked;
            }
  CHECK(checked == 14 * 2 * 3 * 3 * 2 * 3);
}
