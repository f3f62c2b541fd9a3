// recording_order (backends/vulkan/recording_order.h): independent nodes within the window are
// recorded together, every node after the nodes whose outputs it reads, a chain in graph order;
// interleaved_dispatches: the dispatches of a group's nodes round by round.
#include <gtest/gtest.h>

#include "backends/vulkan/recording_order.h"

namespace vx::vk {
namespace {

// Nodes named by index; node i reads the outputs of the nodes in reads[i] (or the graph input).
Graph graph_of(const std::vector<std::vector<size_t>>& reads) {
  Graph g;
  const ValueId input = g.add_value("x", DType::f32, Shape{4});
  g.inputs = {input};
  std::vector<ValueId> out;
  for (size_t i = 0; i < reads.size(); ++i) {
    std::vector<ValueId> inputs;
    for (size_t r : reads[i]) inputs.push_back(out.at(r));
    if (inputs.empty()) inputs.push_back(input);
    out.push_back(g.add_value("v" + std::to_string(i), DType::f32, Shape{4}));
    g.add_node("Relu", "n" + std::to_string(i), inputs, {out.back()});
  }
  return g;
}

std::vector<size_t> all(size_t n) {
  std::vector<size_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(RecordingOrder, AChainKeepsItsOrder) {
  const Graph g = graph_of({{}, {0}, {1}, {2}});
  EXPECT_EQ(recording_order(g, all(4)), (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(RecordingOrder, TwoBranchesAreInterleaved) {
  // Branch a: 0 -> 1 -> 2, branch b: 3 -> 4 -> 5 (both of the input), then 6 of 2 and 5.
  const Graph g = graph_of({{}, {0}, {1}, {}, {3}, {4}, {2, 5}});
  EXPECT_EQ(recording_order(g, all(7)), (std::vector<size_t>{0, 3, 1, 4, 2, 5, 6}));
}

TEST(RecordingOrder, TheWindowBoundsHowFarANodeMovesAhead) {
  // Node 4 depends on nothing before it but lies 3 nodes after node 0's chain: a window of 2 does
  // not reach it from node 0 (it sees 1, 2), nor from 1 (2, 3); from 2 it sees 3 and 4.
  const Graph g = graph_of({{}, {0}, {1}, {2}, {}});
  EXPECT_EQ(recording_order(g, all(5), 2), (std::vector<size_t>{0, 1, 2, 4, 3}));
  EXPECT_EQ(recording_order(g, all(5), 4), (std::vector<size_t>{0, 4, 1, 2, 3}));
}

TEST(RecordingOrder, ANodeWaitsForEveryProducerOfItsGroup) {
  // 2 reads 0 and 1 (both independent): 0 and 1 go together, 2 after them.
  const Graph g = graph_of({{}, {}, {0, 1}, {}});
  EXPECT_EQ(recording_order(g, all(4)), (std::vector<size_t>{0, 1, 3, 2}));
}

TEST(RecordingOrder, ASubsetOfTheGraphsNodes) {
  // A segment of nodes 1, 2, 4 (0 and 3 run elsewhere): 4 reads 3's output, made before the
  // segment, and joins 1.
  const Graph g = graph_of({{}, {0}, {1}, {}, {3}});
  EXPECT_EQ(recording_order(g, {1, 2, 4}), (std::vector<size_t>{1, 4, 2}));
}

TEST(InterleavedDispatches, RoundByRoundEachNodesDispatchesInTheirOrder) {
  // A ConvPair's four dispatches beside a downsample convolution's two, and a node with none.
  EXPECT_EQ(interleaved_dispatches({4, 0, 2}),
            (std::vector<DispatchRef>{{0, 0}, {2, 0}, {0, 1}, {2, 1}, {0, 2}, {0, 3}}));
  EXPECT_EQ(interleaved_dispatches({1}), (std::vector<DispatchRef>{{0, 0}}));
  EXPECT_TRUE(interleaved_dispatches({0, 0}).empty());
}

}  // namespace
}  // namespace vx::vk
