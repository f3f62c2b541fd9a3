// Small ONNX models serialised in the tests (no binary files in the repository).
#pragma once
#include <string>

#include "volvox/custom_op.hpp"

namespace vx::test {

// x [2, 3, 5] float -> <domain>.<op>(alpha 1.5) -> s; y = Add(s, x). Opsets: ai.onnx 13, domain 1.
std::string custom_op_model(const std::string& domain, const std::string& op);

// x [2, 3] float -> Relu -> <first>, Neg -> <second>: two outputs with names the caller picks
// (e.g. "a/b" and "a_b", which sanitise to the same file name).
std::string two_output_model(const std::string& first, const std::string& second);

// x [n] float (n symbolic) -> a = Sigmoid(x), b = Exp(a), y = Add(a, b): two intermediates of
// x's size live at once (an activation arena of about 8n bytes). Opset 13.
std::string sigmoid_exp_model();

// What get_inputs()/get_outputs() report: x float [batch, 3, (free, unnamed)] -> Relu -> y (declared
// alike); steps int64 [2] -> Identity -> z int64 [2]. Opset 13.
std::string declared_shapes_model();

// The custom-op example: y = x * sigmoid(alpha * x) (attribute alpha, default 1), one float input;
// its shape function and CPU kernel (add the Vulkan kernel before registering).
float scaled_swish(float x, float alpha);
volvox::CustomOp scaled_swish_op(const std::string& domain);

}  // namespace vx::test
