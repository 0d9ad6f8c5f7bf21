#include "runtime/kernel_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace jitfp8::detail {

std::string KernelSpec::name_expression() const {
  if (template_args.empty()) return kernel;
  return fmt::format("{}<{}>", kernel, fmt::join(template_args, ", "));
}

std::string KernelSpec::display_name() const {
  return fmt::format("{}<{}>@{}", family, fmt::join(template_args, ","), arch.name());
}

std::string KernelSpec::source() const {
  // The kernel is instantiated through NVRTC's name expression; the comment keeps the source
  // self-describing in dumps.
  return fmt::format(
      "// jitfp8 generated: {}\n"
      "#include \"{}\"\n",
      display_name(), header);
}

}  // namespace jitfp8::detail
