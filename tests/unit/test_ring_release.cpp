// The K-grouped producer's rule for re-patching a tensor map (templates/common/ring_release.cuh),
// against a producer walked copy by copy: before copy i it waits for the release of copy
// i - stages, so after `issued` copies the releases it has waited for are those of copies
// 0 .. issued - 1 - stages.
#define JITFP8_HOST_DEVICE
#include "../../templates/common/ring_release.cuh"

#include <set>

#include <catch2/catch.hpp>

TEST_CASE("a ring's producer knows which copies' releases it has not waited for", "[ring]") {
  for (unsigned stages = 2; stages <= 12; ++stages) {
    std::set<unsigned> awaited;  // copies whose release the producer has waited for
    for (unsigned issued = 0; issued <= 5 * stages; ++issued) {
      // (state after `issued` copies; then the producer waits and issues copy `issued`)
      for (unsigned j = 0; j < issued; ++j) {
        INFO("stages " << stages << ", " << issued << " copies issued, copy " << j);
        CHECK(jitfp8::release_not_awaited(j, issued, stages) == (awaited.count(j) == 0));
      }
      if (issued >= stages) awaited.insert(issued - stages);
    }
  }
  // The K-grouped case of the review: 4 stages, the expert before last one copy (copy 3), the
  // expert between them 3 copies (4-6): copy 3's release comes with copy 7's wait, not yet made.
  CHECK(jitfp8::release_not_awaited(3, 7, 4));
}
