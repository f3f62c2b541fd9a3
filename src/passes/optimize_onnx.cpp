#include "passes/optimize_onnx.h"

#include "passes/fold_constants.h"
#include "passes/fold_conv_batch_norm.h"
#include "passes/fuse_conv_bias_relu.h"
#include "passes/remove_dead_nodes.h"

namespace vx {

void optimize_onnx(Graph& graph) {
  Graph g = remove_dead_nodes(std::move(graph));
  g = fold_constants(std::move(g));
  g = fold_conv_batch_norm(std::move(g));
  g = fuse_conv_bias_relu(std::move(g));  // every Conv -> vx.FusedConv: the op the oneDNN kernel runs
  g = remove_dead_nodes(std::move(g));
  g.validate();
  graph = std::move(g);
}

}  // namespace vx
