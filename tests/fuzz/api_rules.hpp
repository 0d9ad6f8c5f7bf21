// The argument rules of the public operations, restated from their headers (quant.hpp, gemm.hpp)
// independently of the library's validation: the oracle of the API fuzzer. Each function returns
// the names of every argument that breaks a rule; empty means the call is valid.
// A name prefixed with '?' (maybe()) marks a genuinely ambiguous rule (the header does not say,
// or an undocumented implementation limit): the call may pass validation or be refused, and a
// refusal may name it. Unprefixed names are definite violations.
#pragma once

#include <set>
#include <string>

#include "jitfp8/gemm.hpp"
#include "jitfp8/moe.hpp"
#include "jitfp8/quant.hpp"

namespace jitfp8::fuzz {

std::set<std::string> quantize_violations(const Quantize1x128Args& a);
std::set<std::string> transposed_violations(const Quantize1x128TransposedArgs& a);
std::set<std::string> block128_violations(const Quantize128x128Args& a);
std::set<std::string> rowwise_violations(const QuantizeRowwiseArgs& a);
std::set<std::string> mxfp8_violations(const QuantizeMxfp8Args& a);
std::set<std::string> gemm_violations(const GemmFp8Args& a);
std::set<std::string> wgrad_violations(const GemmFp8WgradArgs& a);

// The MoE functions (moe.hpp; quant.hpp "MoE layouts"; layouts.hpp KGroupedLayout).
std::set<std::string> grouped_contiguous_violations(const GroupedGemmContiguousArgs& a);
std::set<std::string> moe_layout_violations(const MoeContiguousLayoutArgs& a);
std::set<std::string> grouped_masked_violations(const GroupedGemmMaskedArgs& a);
std::set<std::string> grouped_wgrad_violations(const GroupedGemmWgradArgs& a);
std::set<std::string> grouped_colwise_violations(const QuantizeGroupedColwiseArgs& a);
std::set<std::string> kgrouped_violations(const QuantizeKGroupedArgs& a);
std::set<std::string> experts128_violations(const QuantizeExperts128x128Args& a);
std::set<std::string> experts_mxfp8_violations(const QuantizeExpertsMxfp8Args& a);

inline std::string maybe(const std::string& name) { return "?" + name; }

}  // namespace jitfp8::fuzz
