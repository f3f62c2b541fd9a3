// ONNX's control-flow ops (If, Loop, Scan) as the importer leaves them: their bodies are graph
// attributes, and every value a body reads from an enclosing graph is made explicit. Such a value
// becomes an input of the body graph, after its formal inputs, and the same value an input of the
// node, after its ONNX inputs; both lists are in one order, and the node's attribute
// kCapturedInputs counts them. So passes see every value a node reads (none is removed or renamed
// behind a body's back) and a body is a self-contained Graph. Constants a body reads are copied
// into it instead.
#pragma once
#include <cstddef>
#include <vector>

#include "core/graph.h"

namespace vx {

constexpr const char* kCapturedInputs = "vx.captured_inputs";

// How many of the node's inputs (the last ones) are values its bodies capture.
size_t captured_input_count(const Node& node);
// The node's ONNX inputs (without the captured ones): how many.
size_t formal_input_count(const Node& node);

// The graph attributes of a node (If: then_branch, else_branch; Loop, Scan: body), in name order.
std::vector<GraphAttribute> node_subgraphs(const Node& node);

}  // namespace vx
