// The argument rules of the public operations, restated from their headers (quant.hpp, gemm.hpp)
// independently of the library's validation: the oracle of the API fuzzer. Each function returns
// the names of every argument that breaks a rule; empty means the call is valid.
#pragma once

#include <set>
#include <string>

#include "jitfp8/gemm.hpp"
#include "jitfp8/quant.hpp"

namespace jitfp8::fuzz {

std::set<std::string> quantize_violations(const Quantize1x128Args& a);
std::set<std::string> transposed_violations(const Quantize1x128TransposedArgs& a);
std::set<std::string> block128_violations(const Quantize128x128Args& a);
std::set<std::string> rowwise_violations(const QuantizeRowwiseArgs& a);
std::set<std::string> mxfp8_violations(const QuantizeMxfp8Args& a);
std::set<std::string> gemm_violations(const GemmFp8Args& a);
std::set<std::string> wgrad_violations(const GemmFp8WgradArgs& a);

}  // namespace jitfp8::fuzz
