// set_gemm_sm_limit: the argument rule, the count and cluster capacity the GEMM dispatches plan
// for under it, and the kernels planned for a few SMs (every GEMM family) compile spill-free.
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "jitfp8/error.hpp"
#include "heuristics/sm90_gemm.hpp"
#include "heuristics/sm90_grouped.hpp"
#include "heuristics/sm90_grouped_wgrad.hpp"
#include "heuristics/sm90_wgrad.hpp"
#include "jitfp8/runtime.hpp"
#include "ops/gemm_target.hpp"
#include "ops/op_family.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "support/ptxas_log.hpp"

using namespace jitfp8;
using namespace jitfp8::detail;

TEST_CASE("set_gemm_sm_limit takes a count >= 0 and names the argument otherwise", "[sm-limit]") {
  REQUIRE(gemm_sm_limit() == 0);  // unlimited unless set
  set_gemm_sm_limit(66);
  CHECK(gemm_sm_limit() == 66);
  try {
    set_gemm_sm_limit(-1);
    FAIL("a negative limit was taken");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::invalid_argument);
    const std::string what = e.what();
    CHECK(what.find("set_gemm_sm_limit") != std::string::npos);
    CHECK(what.find("'sms' = -1") != std::string::npos);
    CHECK(what.find(">= 0") != std::string::npos);
  }
  CHECK(gemm_sm_limit() == 66);  // a refused value changes nothing
  set_gemm_sm_limit(0);
  CHECK(gemm_sm_limit() == 0);
}

TEST_CASE("under an SM limit the GEMMs plan for fewer SMs whose CTAs stand alone", "[sm-limit]") {
  CHECK(limited_sm_count(132, 0) == 132);
  CHECK(limited_sm_count(132, 66) == 66);
  CHECK(limited_sm_count(132, 1) == 1);
  CHECK(limited_sm_count(132, 132) == 132);
  CHECK(limited_sm_count(132, 500) == 132);  // above the device: the whole device
  CHECK(limited_sm_count(114, 132) == 114);

  const ClusterCapacity h200{39, 30, 15};  // clusters of 3, 4 and 8 an H200 holds at once
  int asked = 0;
  const auto capacity = [&] { return ++asked, h200; };
  const TargetDevice whole = limited_target(132, 132, capacity);
  CHECK(whole.sm_count == 132);
  CHECK((whole.clusters.of3 == 39 && whole.clusters.of4 == 30 && whole.clusters.of8 == 15));
  CHECK_FALSE(whole.clusters.alone);
  CHECK(asked == 1);
  const TargetDevice limited = limited_target(132, 112, capacity);
  CHECK(limited.sm_count == 112);
  CHECK(limited.clusters.alone);
  CHECK(asked == 1);  // the device's capacity is not needed (nor measured) under a limit
}

TEST_CASE("GEMM kernels planned for a few SMs compile without spills", "[sm-limit][nvrtc]") {
  const Arch arch = Arch::parse("sm_90a");
  int families = 0;
  for (std::string_view name : op_family_names()) {
    if (!name.starts_with("gemm_")) continue;
    ++families;
    for (int sms : {1, 7}) {
      ManifestOp op;
      op.op = std::string(name);
      op.m_min = 1;
      op.m_max = 4096;
      op.n = 4096;
      op.k = 7168;
      op.groups = 8;
      const std::vector<KernelSpec> specs =
          find_op_family(name)->specs_for(op, arch, limited_target(132, sms, [] { return ClusterCapacity{}; }));
      REQUIRE_FALSE(specs.empty());
      for (const KernelSpec& spec : specs) {
        INFO(spec.display_name() << " for " << sms << " SMs: " << spec.config.dump());
        const int num_sms = spec.config.at("num_sms").get<int>();
        CHECK(num_sms >= 1);
        CHECK(num_sms <= sms);
        CHECK(spec.config.at("multicast").get<int>() == 1);  // alone: no pairs
        if (spec.config.value("split_exchange", "none") == "cluster") CHECK(num_sms <= sms * 2 / 3);
        const CompileResult result = compile_kernel(spec);
        CHECK(result.cubin.size() > 0);
        test::check_ptxas_log_clean(result.log);
      }
    }
  }
  CHECK(families == 5);  // dense, weight gradient, contiguous, masked, K-grouped
}

TEST_CASE("every GEMM chooser keeps CTAs out of pairs when alone, on a sweep of shapes and SM counts",
          "[sm-limit][heuristics]") {
  ClusterCapacity alone;
  alone.alone = true;
  int cluster_picks = 0, workspace_picks = 0;
  for (int sms : {131, 112, 66, 7, 2, 1})
    for (std::int64_t n : {136, 576, 2112, 7168, 32768})
      for (std::int64_t k : {512, 2048, 7168, 32768})
        for (std::int64_t m : {1, 128, 1000, 4096}) {
          INFO(sms << " SMs, m " << m << " n " << n << " k " << k);
          for (bool with_workspace : {false, true}) {
            const Sm90GemmConfig c = choose_sm90_gemm_config(m, n, k, sms, alone, with_workspace);
            INFO(c.to_json().dump());
            CHECK(c.multicast == 1);
            // Split-K clusters only in grids of at most 2/3 of the SMs.
            if (c.splits > 1 && !c.splits_via_workspace) CHECK(c.num_sms <= sms * 2 / 3);
            CHECK((c.num_sms >= 1 && c.num_sms <= sms));
            cluster_picks += c.splits > 1 && !c.splits_via_workspace;
            workspace_picks += c.splits_via_workspace;
          }
          for (Sm90Grouping g : {Sm90Grouping::contiguous_ids, Sm90Grouping::masked}) {
            const Sm90GemmConfig c = choose_sm90_grouped_config(g, m, 8, n, k, sms, true);
            CHECK(c.multicast == 1);
            CHECK((c.num_sms >= 1 && c.num_sms <= sms));
          }
          const Sm90WgradConfig w = choose_sm90_wgrad_config(m, n, k, sms, true, true);
          CHECK(w.multicast == 1);
          CHECK((w.num_sms >= 1 && w.num_sms <= sms));
          const Sm90WgradConfig kg = choose_sm90_grouped_wgrad_config(m, n, k * 8, 8, sms, true);
          CHECK(kg.multicast == 1);
          CHECK((kg.num_sms >= 1 && kg.num_sms <= sms));
        }
  // Both split forms stay in use: clusters in small grids, and the workspace (a cooperative launch:
  // it starts once all its CTAs fit, which a grid within the limit does beside the kernel that
  // holds the rest).
  CHECK(cluster_picks > 0);
  CHECK(workspace_picks > 0);
}
