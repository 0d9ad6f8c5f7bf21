// The kernel templates the runtime compiles: embedded at build time, or read from
// $JITFP8_TEMPLATE_DIR (once per process) for kernel development.
#pragma once

#include <string>
#include <vector>

namespace jitfp8::detail {

struct TemplateFile {
  std::string path;  // relative to templates/, e.g. "quant/quantize_1x128.cuh"
  std::string text;
};

const std::vector<TemplateFile>& embedded_templates();  // generated file

// The set in use: $JITFP8_TEMPLATE_DIR when set, else the embedded one.
const std::vector<TemplateFile>& active_templates();
// The folder active_templates() read ($JITFP8_TEMPLATE_DIR as it was then), empty when embedded.
const std::string& active_templates_folder();
// Hex XXH3-128 of every (path, text) of active_templates(): part of every cache key, so any
// template edit gives new keys.
const std::string& templates_digest();

}  // namespace jitfp8::detail
