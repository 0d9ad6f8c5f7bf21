// Every kernel family compiles for sm_90a with NVRTC, from the embedded templates alone.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include <catch2/catch.hpp>

#include "jitfp8/error.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/op_family.hpp"
#include "ops/quant_checks.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "runtime/template_source.hpp"
#include "support/ptxas_log.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

TEST_CASE("templates are embedded", "[nvrtc]") {
  const auto& files = embedded_templates();
  REQUIRE_FALSE(files.empty());
  bool found = false;
  for (const TemplateFile& file : files) {
    found |= file.path == "quant/quantize_1x128.cuh";
    CHECK_FALSE(file.text.empty());
    // Self-contained: no toolkit or standard headers.
    CHECK(file.text.find("#include <") == std::string::npos);
  }
  CHECK(found);
}

TEST_CASE("the embedded templates are the source tree's, file for file and byte for byte", "[nvrtc]") {
  // An incremental build kept a removed or renamed template embedded (a review, 2026-12-06).
  namespace fs = std::filesystem;
  const fs::path root = fs::path(JITFP8_SOURCE_DIR) / "templates";
  std::map<std::string, std::string> tree;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file() && entry.path().extension() == ".cuh") {
      std::ifstream in(entry.path(), std::ios::binary);
      tree[fs::relative(entry.path(), root).generic_string()] =
          std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  std::map<std::string, std::string> embedded;
  for (const TemplateFile& file : embedded_templates()) embedded[file.path] = file.text;
  REQUIRE(tree.size() > 10);
  for (const auto& [path, text] : tree) {
    INFO(path);
    CHECK(embedded.count(path) == 1);
    CHECK(embedded[path] == text);
  }
  for (const auto& [path, text] : embedded) {
    INFO(path);
    CHECK(tree.count(path) == 1);
  }
}

TEST_CASE("every op family compiles for sm_90a", "[nvrtc]") {
  const Arch arch = Arch::parse("sm_90a");
  for (std::string_view name : op_family_names()) {
    ManifestOp op;
    op.op = std::string(name);
    op.m_min = 1;
    op.m_max = 8192;
    op.n = 4096;
    op.k = 7168;
    op.groups = 8;
    const std::vector<KernelSpec> specs = find_op_family(name)->specs_for(op, arch, 132);
    INFO(name);
    CHECK_FALSE(specs.empty());  // a family that planned nothing passed unseen
    for (const KernelSpec& spec : specs) {
      INFO(spec.display_name());
      CompileResult result = compile_kernel(spec);
      CHECK(result.cubin.size() > 0);
      CHECK_FALSE(result.lowered_name.empty());
      // ptxas' report is in the log: no spills, no local memory.
      test::check_ptxas_log_clean(result.log);
    }
  }
}

namespace {

// The offset of the first PTX instruction of `ptx` that reaches global memory: a load, store,
// atomic or reduction in neither the shared, parameter, local nor constant space (generic ones
// count), or a copy whose operands name global memory (TMA); npos where there is none.
std::size_t first_global_access(const std::string& ptx) {
  std::size_t line_start = 0;
  while (line_start < ptx.size()) {
    std::size_t line_end = ptx.find('\n', line_start);
    if (line_end == std::string::npos) line_end = ptx.size();
    std::string_view line(ptx.data() + line_start, line_end - line_start);
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    if (!line.empty() && line[0] == '@') line.remove_prefix(std::min(line.find_first_of(" \t"), line.size()) + 1);
    const std::string_view op = line.substr(0, line.find_first_of(" \t;"));
    const std::string_view base = op.substr(0, op.find('.'));
    const bool memory_op = base == "ld" || base == "ldu" || base == "st" || base == "atom" || base == "red";
    const bool other_space = op.find(".shared") != std::string_view::npos ||
                             op.find(".param") != std::string_view::npos ||
                             op.find(".local") != std::string_view::npos ||
                             op.find(".const") != std::string_view::npos;
    if ((memory_op && !other_space) || (base == "cp" && op.find(".global") != std::string_view::npos))
      return line_start;
    line_start = line_end + 1;
  }
  return std::string::npos;
}

}  // namespace

// Programmatic dependent launch (runtime.hpp) lets a kernel start before the one ahead of it on the
// stream has finished; each must wait (griddepcontrol.wait) before it reads or writes global
// memory. Checked in the PTX of every op family (its first and last kernel for a range of M) and
// of the MoE layout and reference kernels: the wait comes before the first global access.
TEST_CASE("every kernel waits for the grid ahead before its first global-memory access (PDL)",
          "[nvrtc][pdl]") {
  const Arch arch = Arch::parse("sm_90a");
  std::vector<KernelSpec> specs;
  for (std::string_view name : op_family_names()) {
    ManifestOp op;
    op.op = std::string(name);
    op.m_min = 1, op.m_max = 8192, op.n = 4096, op.k = 7168, op.groups = 8;
    const std::vector<KernelSpec> family = find_op_family(name)->specs_for(op, arch, 132);
    REQUIRE_FALSE(family.empty());
    specs.push_back(family.front());
    if (family.size() > 1) specs.push_back(family.back());
  }
  for (const char* kernel : {"jitfp8::moe_layout_ends_kernel", "jitfp8::moe_layout_indices_kernel"}) {
    KernelSpec spec;
    spec.family = "moe_contiguous_layout", spec.header = "moe/moe_layout.cuh", spec.kernel = kernel, spec.arch = arch;
    specs.push_back(spec);
  }
  KernelSpec reference;
  reference.family = "gemm_reference", reference.header = "reference/gemm_reference.cuh";
  reference.kernel = "jitfp8::gemm_reference_kernel", reference.template_args = {"false"}, reference.arch = arch;
  specs.push_back(reference);
  for (const KernelSpec& spec : specs) {
    INFO(spec.display_name());
    const std::string ptx = compile_ptx(spec);
    const std::size_t wait = ptx.find("griddepcontrol.wait");
    CHECK(wait != std::string::npos);
    const std::size_t global = first_global_access(ptx);
    INFO("first global access: " << ptx.substr(global == std::string::npos ? 0 : global, 80));
    CHECK(global != std::string::npos);
    CHECK(wait < global);
  }
}

TEST_CASE("the PDL setting reads back as set", "[pdl]") {
  const bool before = programmatic_dependent_launch();
  set_programmatic_dependent_launch(true);
  CHECK(programmatic_dependent_launch());
  set_programmatic_dependent_launch(false);
  CHECK_FALSE(programmatic_dependent_launch());
  set_programmatic_dependent_launch(before);
}

TEST_CASE("NVRTC's own compile cache is off where NVRTC has one", "[nvrtc]") {
  // Every other compile in these tests runs with the same options: NVRTC accepts them.
  const std::vector<std::string> options = nvrtc_options(Arch::parse("sm_90a"));
  const bool off = std::find(options.begin(), options.end(), "--no-cache") != options.end();
  CHECK(off == (nvrtc_version_number() >= 13000));
  CHECK(options.front() == "--gpu-architecture=sm_90a");  // get_ptx swaps the first option
}

TEST_CASE("compiling for another architecture on request", "[nvrtc]") {
  ManifestOp op;
  op.op = "quantize_1x128";
  for (const char* target : {"sm_90", "sm_100a"}) {
    for (const KernelSpec& spec :
         find_op_family("quantize_1x128")->specs_for(op, Arch::parse(target), 132)) {
      INFO(spec.display_name());
      CHECK(compile_kernel(spec).cubin.size() > 0);
    }
  }
}

namespace {
// The static shared memory in ptxas' report of one kernel ("Used 80 registers, used 1 barriers,
// 512 bytes smem, ..."; no smem field where there is none); -1 without such a line.
int ptxas_static_smem(const std::string& log) {
  const std::size_t used = log.find("Used ");
  if (used == std::string::npos) return -1;
  const std::string line = log.substr(used, log.find('\n', used) - used);
  const std::size_t at = line.find(" bytes smem");
  if (at == std::string::npos) return 0;
  std::size_t start = at;
  while (start > 0 && line[start - 1] >= '0' && line[start - 1] <= '9') --start;
  return start == at ? -1 : std::stoi(line.substr(start, at - start));
}
}  // namespace

TEST_CASE("every quantization family compiles for sm_89 and sm_90a and fits a block's shared memory",
          "[nvrtc]") {
  // The quantizers also serve sm_89 (99 KB per block, no clusters; the colwise kernel's cluster
  // instructions failed to assemble there, and three fp32 / colwise variants asked for more
  // than 99 KB, a review, 2026-12-05). Each kernel's static plus dynamic shared memory must fit
  // the arch's block, and its static part the bound the planners assume (kQuantStaticSmemMax):
  // a variant over the limit fails only at launch.
  for (const char* target : {"sm_89", "sm_90a"}) {
    const Arch arch = Arch::parse(target);
    for (std::string_view name : op_family_names()) {
      if (!name.starts_with("quantize_")) continue;
      for (const char* x_dtype : {"bf16", "f32"}) {
        ManifestOp op;
        op.op = std::string(name);
        op.x_dtype = x_dtype;
        const std::vector<KernelSpec> specs = find_op_family(name)->specs_for(op, arch, 132);
        INFO(name << " " << x_dtype << " " << target);
        CHECK_FALSE(specs.empty());
        for (const KernelSpec& spec : specs) {
          INFO(spec.display_name() << ", dynamic shared memory " << spec.dynamic_smem_bytes);
          const CompileResult result = compile_kernel(spec);
          // Spill-free is asked of the Hopper kernels (sm_89's MXFP8 row kernels spill 8 bytes).
          if (arch.arch_specific) test::check_ptxas_log_clean(result.log);
          const int static_smem = ptxas_static_smem(result.log);
          INFO("static shared memory " << static_smem);
          REQUIRE(static_smem >= 0);
          CHECK(static_smem <= quant::kQuantStaticSmemMax);
          CHECK(static_smem + spec.dynamic_smem_bytes <= quant::smem_per_block_limit(arch));
        }
      }
    }
  }
  CHECK(quant::smem_per_block_limit(Arch::parse("sm_89")) == 101376);
  CHECK(quant::smem_per_block_limit(Arch::parse("sm_90a")) == 232448);
  CHECK(ptxas_static_smem("ptxas info    : Used 112 registers, used 1 barriers, 5120 bytes smem") == 5120);
  CHECK(ptxas_static_smem("ptxas info    : Used 39 registers, used 0 barriers, 396 bytes cmem[0]") == 0);
}

TEST_CASE("quantization families prewarm e5m2 output when the manifest asks", "[nvrtc]") {
  const Arch arch = Arch::parse("sm_90a");
  for (std::string_view name : op_family_names()) {
    if (!name.starts_with("quantize_")) continue;
    ManifestOp op;
    op.op = std::string(name);
    op.q_dtype = "e5m2";
    std::vector<KernelSpec> e5m2 = find_op_family(name)->specs_for(op, arch, 132);
    op.q_dtype = "e4m3";
    std::vector<KernelSpec> e4m3 = find_op_family(name)->specs_for(op, arch, 132);
    REQUIRE(e5m2.size() == e4m3.size());
    for (std::size_t i = 0; i < e5m2.size(); ++i) {
      INFO(e5m2[i].display_name());
      CHECK(e5m2[i].name_expression() != e4m3[i].name_expression());
      CHECK(compile_kernel(e5m2[i]).cubin.size() > 0);
    }
  }
}

TEST_CASE("gemm_fp8_nt prewarms f32-output kernels when the manifest asks", "[nvrtc][f32]") {
  const Arch arch = Arch::parse("sm_90a");
  ManifestOp op;
  op.op = "gemm_fp8_nt";
  op.m_min = 1, op.m_max = 4096, op.n = 2112, op.k = 7168;
  const std::vector<KernelSpec> bf16 = find_op_family(op.op)->specs_for(op, arch, 132);
  op.d_dtype = "f32";
  const std::vector<KernelSpec> f32 = find_op_family(op.op)->specs_for(op, arch, 132);
  REQUIRE(!f32.empty());
  std::set<std::string> bf16_names;
  for (const KernelSpec& spec : bf16) bf16_names.insert(spec.name_expression());
  for (const KernelSpec& spec : f32) {
    INFO(spec.display_name());
    CHECK(spec.config.at("d_dtype") == "f32");
    CHECK(!bf16_names.contains(spec.name_expression()));
  }
  CHECK(compile_kernel(f32.front()).cubin.size() > 0);
  op.d_dtype = "e4m3";  // only a parsed manifest is checked for it: the family checks again
  CHECK_THROWS_AS(find_op_family(op.op)->specs_for(op, arch, 132), Error);
}
