// Shape inference: fills Value::shape and Value::dtype of every node output from its inputs'
// shapes, through a registry of per-op shape functions (so that each op family, e.g. the ONNX ops,
// registers its own). An op without a shape function, or a shape that depends on runtime data,
// leaves the output as it was (unknown) rather than failing: the planner then lets the kernel
// allocate that output at run time.
#pragma once
#include <functional>
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

// Runs the shape functions over the nodes in order. When `inferred` is given it is resized to the
// number of values and marks each value whose shape is now known: produced by a node whose shape
// function ran, or produced by no node (graph inputs, constants) with a fully known shape.
void infer_shapes(Graph& graph, std::vector<bool>* inferred = nullptr);

// Static registration from an op family's .cpp:  VX_REGISTER_SHAPE_FN(relu, "Relu", same_shape);
#define VX_REGISTER_SHAPE_FN(tag, op, fn) \
  static const bool vx_shape_fn_registered_##tag = (::vx::register_shape_fn(op, fn), true)

// Reusable shape functions.
bool same_shape_as_first_input(const Node& node, Graph& graph);

}  // namespace vx
