// libFuzzer target: parse_manifest on arbitrary bytes either returns a manifest that obeys the
// documented rules or throws jitfp8::Error(manifest_error). Anything else aborts (a finding).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    jitfp8::Manifest manifest = jitfp8::parse_manifest(text, "fuzz");
    for (const jitfp8::ManifestOp& op : manifest.ops)
      if (op.m_min < 1 || op.m_min > op.m_max || op.m_max > (std::int64_t{1} << 31) || op.n < 0 ||
          op.k < 0 || op.groups < 0)
        std::abort();
  } catch (const jitfp8::Error& e) {
    if (e.code() != jitfp8::ErrorCode::manifest_error) std::abort();
  }
  return 0;
}
