#include "config_words.hpp"

#include <fmt/format.h>

namespace jitfp8::bench {

std::string config_words(const detail::Sm90GemmConfig& c) {
  return fmt::format("{}x{} st{}{} mc{}{} sk{}{}{}", c.block_m, c.block_n, c.stages, c.pad_turns ? "p" : "",
                     c.multicast, c.multicast > 1 ? (c.multicast_on_a ? "a" : "b") : "", c.splits,
                     c.splits_via_workspace ? "w" : "", c.group_n != 8 ? fmt::format(" g{}", c.group_n) : "");
}

std::string config_words(const detail::Sm90WgradConfig& c) {
  return fmt::format("{}x{} st{} mc{}{} epi{}x{}{}", c.block_m, c.block_n, c.stages, c.multicast,
                     c.multicast > 1 ? (c.multicast_on_a ? "a" : "b") : "", c.epi_batch, c.epi_bufs,
                     c.overlap ? " ov" : "");
}

}  // namespace jitfp8::bench
