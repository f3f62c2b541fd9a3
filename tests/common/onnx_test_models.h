// Small ONNX models serialised in the tests (no binary files in the repository).
#pragma once
#include <string>

namespace vx::test {

// x [2, 3, 5] float -> <domain>.<op>(alpha 1.5) -> s; y = Add(s, x). Opsets: ai.onnx 13, domain 1.
std::string custom_op_model(const std::string& domain, const std::string& op);

}  // namespace vx::test
