// Prewarm manifests: JSON naming a model and the operations it runs (kernels_cache/README.md).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "manifest_kernels.hpp"
#include "ops/op_family.hpp"
#include "runtime/process_lifetime.hpp"

namespace jitfp8 {
namespace {

using nlohmann::json;

constexpr std::int64_t kGemmMRangeMax = std::int64_t{1} << 20;

[[noreturn]] void bad(const std::string& where, const std::string& rule) {
  throw Error(ErrorCode::manifest_error, fmt::format("{}: {}", where, rule));
}

std::int64_t positive_int(const json& value, const std::string& where) {
  if (!value.is_number_integer()) bad(where, "must be an integer");
  auto number = value.get<std::int64_t>();
  if (number < 1 || number > (std::int64_t{1} << 31)) bad(where, "must be in [1, 2^31]");
  return number;
}

ManifestOp parse_op(const json& item, const std::string& where) {
  static const auto& known = detail::process_lifetime<const std::set<std::string>>(std::set<std::string>{
      "op", "m", "n", "k", "groups", "x_dtype", "q_dtype", "pow2_scales", "d_dtype", "comment"});
  if (!item.is_object()) bad(where, "each operation must be a JSON object");
  for (const auto& [name, value] : item.items())
    if (!known.contains(name))
      bad(where, fmt::format("unknown field '{}' (known: {})", name, fmt::join(known, ", ")));
  ManifestOp op;
  if (!item.contains("op") || !item["op"].is_string()) bad(where, "needs a string field 'op'");
  op.op = item["op"].get<std::string>();
  const detail::OpFamily* family = detail::find_op_family(op.op);
  if (family == nullptr)
    bad(where + ".op", fmt::format("unknown operation '{}' (known: {})", op.op,
                                   fmt::join(detail::op_family_names(), ", ")));
  // The op's own fields (op_family.hpp): another known field is a mistake, not a default.
  for (const auto& [name, value] : item.items())
    if (name != "op" && name != "comment" && !detail::field_listed(family->fields, name))
      bad(where + "." + name, fmt::format("{} takes no '{}' (its fields: {})", op.op, name, family->fields));
  // M left out reads as every M (the quantizers' default below), so an op that needs it is
  // refused here; n, k and groups left out stay 0, which validate_manifest_op refuses where the
  // op needs them.
  if (detail::field_listed(family->required, "m") && !item.contains("m"))
    bad(where, fmt::format("{} needs 'm' (its required fields: {})", op.op, family->required));
  if (item.contains("m")) {
    const json& m = item["m"];
    if (m.is_array()) {
      if (m.size() != 2) bad(where + ".m", "a range is [min, max]");
      op.m_min = positive_int(m[0], where + ".m[0]");
      op.m_max = positive_int(m[1], where + ".m[1]");
    } else {
      op.m_min = op.m_max = positive_int(m, where + ".m");
    }
  } else {
    // A quantizer without m (the GEMMs require it) covers every m, as one without k covers every
    // k: it read as m = 1, and quantize_1x128 left out the kernel its calls of 512 rows or more
    // take, compiled then at first use (a review, 2026-12-05).
    op.m_min = 1;
    op.m_max = std::numeric_limits<std::int32_t>::max();
  }
  if (item.contains("n")) op.n = positive_int(item["n"], where + ".n");
  if (item.contains("k")) op.k = positive_int(item["k"], where + ".k");
  if (item.contains("groups")) op.groups = positive_int(item["groups"], where + ".groups");
  for (auto [name, field] : {std::pair{"x_dtype", &op.x_dtype}, {"q_dtype", &op.q_dtype}, {"d_dtype", &op.d_dtype}})
    if (item.contains(name)) {
      if (!item[name].is_string()) bad(where + "." + name, "must be a string");
      *field = item[name].get<std::string>();
    }
  if (item.contains("pow2_scales")) {
    if (!item["pow2_scales"].is_boolean()) bad(where + ".pow2_scales", "must be true or false");
    op.pow2_scales = item["pow2_scales"].get<bool>();
  }
  detail::validate_manifest_op(op, where);  // the value rules, shared with ops built in code
  return op;
}

// Refuses an object that names a field twice, which the JSON parser accepts (the last value
// wins): {"m": 128, "m": 4096} would prewarm one of the two without a word. A parser callback
// that follows where it is (the open objects' current keys, the open arrays' element counts).
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(std::string origin) : origin_(std::move(origin)) {}

  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        open_.push_back(Open{event == json::parse_event_t::object_start, {}, {}, 0});
        break;
      case json::parse_event_t::key: {
        Open& object = open_.back();
        object.key = parsed.get<std::string>();
        if (!object.keys.insert(object.key).second)
          bad(path().empty() ? origin_ : origin_ + ": " + path(), fmt::format("field '{}' given twice", object.key));
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        open_.pop_back();
        element_done();
        break;
      case json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  }

 private:
  struct Open {
    bool object;
    std::set<std::string> keys;  // object: the fields seen
    std::string key;             // object: the field being read
    std::size_t index;           // array: the element being read
  };

  void element_done() {
    if (!open_.empty() && !open_.back().object) ++open_.back().index;
  }
  // Where the innermost open object is, as the other errors say it: "ops[2]".
  std::string path() const {
    std::string where;
    for (std::size_t i = 0; i + 1 < open_.size(); ++i)
      where += open_[i].object ? (where.empty() ? "" : ".") + open_[i].key : fmt::format("[{}]", open_[i].index);
    return where;
  }

  std::string origin_;
  std::vector<Open> open_;
};

}  // namespace

namespace detail {

void validate_manifest_op(const ManifestOp& op, const std::string& where) {
  const OpFamily* family = find_op_family(op.op);
  if (family == nullptr)
    bad(where + ".op", fmt::format("unknown operation '{}' (known: {})", op.op, fmt::join(op_family_names(), ", ")));
  const std::int64_t limit = std::int64_t{1} << 31;
  if (op.m_min < 1 || op.m_max > limit)
    bad(where + ".m", fmt::format("must be in [1, 2^31] (got [{}, {}])", op.m_min, op.m_max));
  if (op.m_min > op.m_max) bad(where + ".m", "min must not exceed max");
  if (op.op.rfind("gemm_", 0) == 0) {
    // The GEMMs' kernels are planned every 64 rows of the range (the quantizers' do not depend
    // on M): [1, 2^31] took half an hour before any output (a review, 2026-12-04).
    if (op.m_max - op.m_min > kGemmMRangeMax)
      bad(where + ".m", fmt::format("a GEMM's range may have max - min at most 2^20, its kernels being planned "
                                    "every 64 rows (got {}): split it, or list the sizes you run",
                                    op.m_max - op.m_min));
    if (op.m_max > std::numeric_limits<std::int32_t>::max())
      bad(where + ".m", "a GEMM's m must be below 2^31 (its dispatch's rule)");
  }
  // Unused fields stay 0; a field the op needs must be given.
  for (auto [name, value] : {std::pair{"n", op.n}, {"k", op.k}, {"groups", op.groups}}) {
    if (value < 0 || value > limit) bad(where + "." + name, fmt::format("must be in [1, 2^31], not {}", value));
    if (value == 0 && field_listed(family->required, name))
      bad(where, fmt::format("{} needs '{}' (its required fields: {})", op.op, name, family->required));
  }
  const auto one_of = [&](const char* name, const std::string& value, const char* a, const char* b) {
    if (value != a && value != b) bad(where + "." + name, fmt::format("\"{}\" must be \"{}\" or \"{}\"", value, a, b));
  };
  one_of("x_dtype", op.x_dtype, "bf16", "f32");
  one_of("q_dtype", op.q_dtype, "e4m3", "e5m2");
  one_of("d_dtype", op.d_dtype, "bf16", "f32");
}

}  // namespace detail

Manifest parse_manifest(const std::string& json_text, const std::string& origin) {
  json root;
  try {
    root = json::parse(json_text, DuplicateKeyCheck(origin));
  } catch (const json::exception& error) {  // parse_error, and out_of_range for numbers like 1e999
    bad(origin, fmt::format("not valid JSON: {}", error.what()));
  }
  if (!root.is_object()) bad(origin, "the top level must be a JSON object");
  Manifest manifest;
  if (!root.contains("model") || !root["model"].is_string())
    bad(origin, "needs a string field 'model'");
  manifest.model = root["model"].get<std::string>();
  for (const auto& [name, value] : root.items())
    if (name != "model" && name != "description" && name != "ops")
      bad(origin, fmt::format("unknown top-level field '{}' (known: model, description, ops)", name));
  if (!root.contains("ops") || !root["ops"].is_array())
    bad(origin, "needs an array field 'ops'");
  for (std::size_t i = 0; i < root["ops"].size(); ++i)
    manifest.ops.push_back(parse_op(root["ops"][i], fmt::format("{}: ops[{}]", origin, i)));
  return manifest;
}

Manifest load_manifest(const std::string& path) {
  // A folder opens as a stream and reads as nothing: it was reported as empty JSON.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) bad(path, "is a directory, not a manifest file");
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, fmt::format("cannot be read: {}", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) bad(path, "could not be read to its end");
  return parse_manifest(text.str(), path);
}

}  // namespace jitfp8
