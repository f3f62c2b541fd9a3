// Helpers of the hand-computed cases of the CPU kernels (tests/parity/cpu_ops_*_test.cpp): one
// kernel run on given tensors without a graph around it (run_op), or a one-node graph through the
// executor with the reference kernels only (ReferenceNode).
#pragma once
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/attribute.h"
#include "core/graph.h"
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

// Runs a one-node graph through the CPU executor with the reference kernels only; constant inputs
// are given as tensors with `constant`, the rest become graph inputs:
//   ReferenceNode().input(x).constant(w).omitted().run("Conv", attrs)
struct ReferenceNode {
  Graph g;
  std::vector<Tensor> feeds;
  std::vector<ValueId> ins;

  ReferenceNode& input(const Tensor& t);
  ReferenceNode& constant(const Tensor& t);
  ReferenceNode& omitted();
  std::vector<Tensor> run(const std::string& op, Attributes attrs, int outputs = 1);
};

// EXPECTs `t` to have `shape` and, element by element, `expected` within 1e-6.
void expect_values(const Tensor& t, const Shape& shape, const std::vector<double>& expected);
// An f32 tensor of `shape` filled with `v`.
Tensor filled(Shape shape, float v);
// Attributes of integer lists.
Attributes ints(std::initializer_list<std::pair<const char*, std::vector<int64_t>>> list);

}  // namespace vx::test
