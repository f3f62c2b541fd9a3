// Runs one CPU kernel on given tensors without a graph around it, for hand-computed cases of ONNX
// semantics (tests/parity/cpu_ops_*_test.cpp).
#pragma once
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/attribute.h"
#include "core/tensor.h"

namespace vx::test {

// Runs the highest-priority kernel registered for `op` on `inputs` (an undefined Tensor is an omitted
// optional input) and returns its outputs.
std::vector<Tensor> run_op(const std::string& op, std::vector<Tensor> inputs, Attributes attrs = {},
                           size_t outputs = 1, int64_t opset = 17);

Tensor f32(Shape shape, std::vector<float> v);
Tensor i64(std::vector<int64_t> v);

// EXPECTs `got` to have `shape` and, element by element, `want` within `tol`.
void expect_tensor(const Tensor& got, const Shape& shape, const std::vector<double>& want, double tol = 1e-5);

Attributes attrs_of(std::initializer_list<std::pair<const char*, Attribute>> list);

}  // namespace vx::test
