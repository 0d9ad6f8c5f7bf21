#include "runtime/kernel_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace jitfp8::detail {

std::string KernelSpec::name_expression() const {
  if (template_args.empty()) return kernel;
  return fmt::format("{}<{}>", kernel, fmt::join(template_args, ", "));
}

std::string KernelSpec::display_name() const {
  std::string name = fmt::format("{}<{}>@{}", family, fmt::join(template_args, ","), arch.name());
  for (const std::string& define : defines) name += "+" + define;
  return name;
}

std::string KernelSpec::source() const {
  // The kernel is instantiated through NVRTC's name expression; the comment keeps the source
  // self-describing in dumps.
  std::string text = fmt::format("// jitfp8 generated: {}\n", display_name());
  for (const std::string& define : defines) text += fmt::format("#define {} 1\n", define);
  text += fmt::format("#include \"{}\"\n", header);
  return text;
}

KernelSpec KernelSpec::quick_variant() const {
  KernelSpec quick = *this;
  quick.defines.push_back("JITFP8_QUICK_VARIANT");
  quick.has_quick_variant = false;
  return quick;
}

}  // namespace jitfp8::detail
