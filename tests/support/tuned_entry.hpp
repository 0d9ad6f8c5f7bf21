// Tuned-config table entries for tests, as `jitfp8 tune` records them. Header-only: it reaches
// the runtime's internals (src/), which the test executables see and the support library does not.
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "runtime/template_source.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::test {

// `op`'s entry for plan `key`: `config` timed faster (9 us) than `replaces`, the heuristics' pick
// it beat (10 us), with the templates of this build.
inline detail::TunedEntry tuned_entry(std::string op, nlohmann::json key, nlohmann::json config,
                                      nlohmann::json replaces) {
  detail::TunedEntry e;
  e.op = std::move(op);
  e.key = std::move(key);
  e.config = std::move(config);
  e.replaces = std::move(replaces);
  e.us = 9, e.replaced_us = 10;
  e.templates = detail::templates_digest();
  return e;
}

}  // namespace jitfp8::test
