// What the host (CPU) backend offers the layers below it, which must not depend on a backend:
// whether it runs a node (the ONNX importer's support check) and the outputs of a node whose
// inputs are all constants (constant folding, with the reference kernels). backends/cpu installs
// both at static initialisation (the library is linked as a whole archive); without it nothing
// is folded and no node counts as supported.
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace vx {

struct HostKernels {
  std::function<bool(const Node& node, const Graph& graph)> supports;
  // The node's outputs (one per output, undefined for omitted ones), or nullopt when it cannot be
  // evaluated here (no reference kernel, or the kernel rejected the inputs).
  std::function<std::optional<std::vector<Tensor>>(const Node& node, const Graph& graph)> evaluate_constant;
};

void install_host_kernels(HostKernels kernels);
const HostKernels& host_kernels();

}  // namespace vx
