#include "backends/vulkan/recording_order.h"

#include <algorithm>
#include <set>

namespace vx::vk {

std::vector<size_t> recording_order(const Graph& g, const std::vector<size_t>& nodes, size_t window) {
  std::set<ValueId> pending;  // outputs of the segment's nodes not yet ordered
  for (size_t n : nodes)
    for (ValueId out : g.nodes[n].outputs)
      if (out != kNoValue) pending.insert(out);
  std::vector<bool> taken(nodes.size(), false);
  std::vector<size_t> order;
  for (size_t first = 0; first < nodes.size(); ++first) {
    if (taken[first]) continue;
    // The first node not yet ordered starts a group (every node before it in graph order is
    // ordered); the next `window` nodes join it when they read nothing pending, the group's
    // outputs included.
    std::vector<size_t> group = {first};
    taken[first] = true;
    for (size_t i = first + 1, seen = 0; i < nodes.size() && seen < window; ++i) {
      if (taken[i]) continue;
      ++seen;
      const Node& node = g.nodes[nodes[i]];
      if (std::any_of(node.inputs.begin(), node.inputs.end(), [&](ValueId in) { return pending.count(in) > 0; })) continue;
      group.push_back(i);
      taken[i] = true;
    }
    for (size_t i : group) {
      order.push_back(nodes[i]);
      for (ValueId out : g.nodes[nodes[i]].outputs) pending.erase(out);
    }
  }
  return order;
}

std::vector<DispatchRef> interleaved_dispatches(const std::vector<size_t>& dispatch_counts) {
  std::vector<DispatchRef> order;
  size_t rounds = 0;
  for (size_t count : dispatch_counts) rounds = std::max(rounds, count);
  for (size_t round = 0; round < rounds; ++round)
    for (size_t node = 0; node < dispatch_counts.size(); ++node)
      if (round < dispatch_counts[node]) order.push_back({node, round});
  return order;
}

}  // namespace vx::vk
