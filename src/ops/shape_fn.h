// The per-op shape-function table: for an op (and its domain), the function that sets its outputs'
// shapes and dtypes from its inputs'. Each op family registers its own statically
// (ops/onnx_shape_fns.cpp for ONNX, the fusion passes for the vx.* ops they create, custom ops
// through the API); the shape-inference pass (passes/shape_inference.h) walks a graph with it.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"

namespace vx {

// Sets graph.value(o).shape / dtype for the node's outputs o. Called only when every non-omitted
// input's shape is known. Returns false (and leaves the outputs alone) when it cannot tell, e.g. a
// data-dependent shape; throws InvalidArgument naming the node when the inputs are inconsistent.
using ShapeFn = std::function<bool(const Node& node, Graph& graph)>;

// `domain`: "" for ai.onnx and our own vx.* ops, else a custom op's domain.
void register_shape_fn(const std::string& op, ShapeFn fn, const std::string& domain = "");
// nullptr when none is registered.
const ShapeFn* find_shape_fn(const std::string& op, const std::string& domain = "");

// Static registration from an op family's .cpp:  VX_REGISTER_SHAPE_FN(relu, "Relu", same_shape);
#define VX_REGISTER_SHAPE_FN(tag, op, fn) \
  static const bool vx_shape_fn_registered_##tag = (::vx::register_shape_fn(op, fn), true)

// Output 0 gets input 0's shape and dtype (unary ops; defined with the ONNX shape functions).
bool same_shape_as_first_input(const Node& node, Graph& graph);

// The integer values of the node's input i (nullopt when it is absent or computed at run time;
// defined with the ONNX shape functions).
std::optional<std::vector<int64_t>> constant_ints(const Node& node, const Graph& graph, size_t i);

// A node's axes: the attribute (older opsets) or the constant input `input` (opset 13+; 18 for the
// reductions); empty when neither is given, nullopt when the input is computed at run time.
std::optional<std::vector<int64_t>> axes_of(const Node& node, const Graph& graph, size_t input);

}  // namespace vx
