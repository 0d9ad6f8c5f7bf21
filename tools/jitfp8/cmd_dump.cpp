// jitfp8 dump [--out DIR] [--arch ARCH] [--gemm-sm-limit N] [--quick] OP [field=value ...]
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_target.hpp"
#include "ops/op_family.hpp"
#include "runtime/debug_dump.hpp"
#include "runtime/kernel_builder.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "runtime/tuned_table.hpp"

namespace jitfp8::cli {
namespace {

// "m=4096" -> {"m": 4096}; "m=1:4096" -> {"m": [1, 4096]}; "pow2_scales=true"; strings as is
// (only m takes a range: "comment=see:x" is a string).
nlohmann::json field_value(const std::string& name, const std::string& text) {
  if (text == "true" || text == "false") return text == "true";
  if (auto colon = text.find(':'); name == "m" && colon != std::string::npos)
    return {parse_int(text.substr(0, colon), name + "'s range start"),
            parse_int(text.substr(colon + 1), name + "'s range end")};
  // A sign too: "m=-5" became the string "-5", refused as "must be an integer".
  const std::size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() > digits && text.find_first_not_of("0123456789", digits) == std::string::npos)
    return parse_int(text, name + " (a 32-bit integer)");
  return text;
}

// The manifest is JSON text: a value that is not UTF-8 threw nlohmann's type_error, naming nothing.
void require_utf8(const std::string& name, const nlohmann::json& value) {
  try {
    (void)value.dump();
  } catch (const nlohmann::json::type_error&) {
    throw UsageError(name + ": the value is not valid UTF-8");
  }
}

}  // namespace

int run_dump(Args args) {
  std::string out = args.take("--out").value_or("jitfp8-dump");
  // The options are checked before the operation's fields, as in the other commands.
  std::optional<Arch> given_arch;
  if (auto arch_text = args.take("--arch")) given_arch = parse_arch(*arch_text);
  take_gemm_sm_limit(args);
  // Also each kernel's quick variant, what tiered compilation builds and launches first (the
  // dump of JITFP8_DUMP holds full kernels only).
  const bool quick = args.take_flag("--quick");
  std::vector<std::string> rest = args.positional();
  if (rest.empty()) throw UsageError("needs an operation, e.g. quantize_1x128");

  nlohmann::json op = {{"op", rest[0]}};
  require_utf8("the operation", op["op"]);
  for (std::size_t i = 1; i < rest.size(); ++i) {
    auto eq = rest[i].find('=');
    if (eq == std::string::npos) throw UsageError("expected field=value, got '" + rest[i] + "'");
    const std::string name = rest[i].substr(0, eq);
    if (op.contains(name)) throw UsageError(name + " given twice");
    op[name] = field_value(name, rest[i].substr(eq + 1));
    require_utf8(name, op[name]);
  }
  nlohmann::json manifest = {{"model", "dump"}, {"ops", {op}}};
  ManifestOp parsed = parse_manifest(manifest.dump(), "command line").ops.at(0);

  Arch arch;
  detail::TargetDevice target(0);
  if (given_arch) {
    arch = *given_arch;
    target = detail::gemm_target_without_device(detail::usual_sm_count(arch));
  } else {
    if (devices().empty()) throw UsageError("no GPU here: name the target with --arch, e.g. sm_90a");
    const detail::DeviceContext& device = detail::current_device();  // what its dispatch would choose,
    arch = device.arch;                                                // tuned configs included
    target = detail::gemm_target(device);
    target.tuned = detail::tuned_table_of(device);
  }
  const detail::OpFamily* family = detail::find_op_family(parsed.op);
  const auto dump = [&](const detail::KernelSpec& spec) {
    detail::CompileResult compiled = detail::compile_kernel(spec);
    std::string folder = detail::write_dump(spec, detail::cache_key(spec), compiled, detail::compile_ptx(spec), out);
    fmt::print("{} -> {} ({:.2f} s)\n", spec.display_name(), folder, compiled.seconds);
  };
  for (const detail::KernelSpec& spec : family->specs_for(parsed, arch, target)) {
    dump(spec);
    if (quick && spec.has_quick_variant) dump(spec.quick_variant());
  }
  return 0;
}

}  // namespace jitfp8::cli
