#include <cstdio>
#include "heuristics/sm90_gemm.hpp"
using namespace jitfp8::detail;
static void p(const Sm90GemmConfig& c) { std::printf("%dx%d st%d mc%d sk%d%s sms%d", c.block_m, c.block_n, c.stages, c.multicast, c.splits, c.splits_via_workspace ? "w" : "", c.num_sms); }
int main() {
  ClusterCapacity h200{39, 30, 15, false};
  int differ = 0, total = 0;
  for (long long m : {65, 100, 128})
    for (long long n : {1536, 2048, 2816, 3072, 3584, 4096, 4608, 5120, 5760, 6144, 6336, 7168, 8192})
      for (long long k : {7168, 8192, 10944, 12288, 16384, 24576, 32768}) {
        ++total;
        Sm90GemmConfig a = choose_sm90_gemm_config(m, n, k, 132, h200, true, false);
        Sm90GemmConfig b = choose_sm90_gemm_config(m, n, k, 132, h200, false, false);
        if (a.block_m != b.block_m || a.block_n != b.block_n || a.splits != b.splits || a.splits_via_workspace != b.splits_via_workspace || a.multicast != b.multicast) {
          ++differ;
          if (m == 128) { std::printf("%lld %lld %lld: ws ", m, n, k); p(a); std::printf(" | nows "); p(b); std::printf("\n"); }
        }
      }
  std::printf("%d of %d differ\n", differ, total);
}
