#include "passes/optimize.h"

#include "passes/fuse_conv_bias_relu.h"
#include "passes/fuse_conv_relu_pool.h"
#include "passes/fuse_upsample_concat_conv.h"
#include "passes/remove_dead_nodes.h"

namespace vx {

void optimize_for_inference(Graph& graph) {
  Graph g = remove_dead_nodes(std::move(graph));
  g = fuse_conv_bias_relu(std::move(g));
  g = fuse_upsample_concat_conv(std::move(g));
  g = fuse_conv_relu_pool(std::move(g));
  g = remove_dead_nodes(std::move(g));
  g.validate();
  graph = std::move(g);
}

}  // namespace vx
