#include "ops/slice_geometry.h"

#include <algorithm>
#include <limits>

#include "core/error.h"
#include "ops/shape_fn.h"
#include "ops/shape_rules.h"

namespace vx {

std::optional<SliceOperands> constant_slice_operands(const Node& node, const Graph& graph) {
  if (node.input(1) == kNoValue)
    return SliceOperands{node.attrs.get_ints("starts"), node.attrs.get_ints("ends"), node.attrs.get_ints("axes"), {}};
  const auto starts = constant_ints(node, graph, 1), ends = constant_ints(node, graph, 2);
  const auto axes = constant_ints(node, graph, 3), steps = constant_ints(node, graph, 4);
  if (!starts || !ends || (node.input(3) != kNoValue && !axes) || (node.input(4) != kNoValue && !steps))
    return std::nullopt;
  return SliceOperands{*starts, *ends, axes.value_or(std::vector<int64_t>{}), steps.value_or(std::vector<int64_t>{})};
}

std::vector<SliceAxis> slice_geometry(const std::vector<int64_t>& dims, SliceOperands o, const std::string& what) {
  VX_CHECK(o.starts.size() == o.ends.size(), InvalidArgument, what, ": ", o.starts.size(), " starts but ",
           o.ends.size(), " ends");
  if (o.axes.empty())
    for (size_t i = 0; i < o.starts.size(); ++i) o.axes.push_back(int64_t(i));
  if (o.steps.empty()) o.steps.assign(o.starts.size(), 1);
  VX_CHECK(o.axes.size() == o.starts.size() && o.steps.size() == o.starts.size(), InvalidArgument, what,
           ": starts, ends, axes and steps differ in length");
  const int64_t rank = int64_t(dims.size());
  std::vector<SliceAxis> axes(dims.size());
  for (size_t a = 0; a < dims.size(); ++a) axes[a].count = dims[a];
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < o.starts.size(); ++i) {
    const size_t a = size_t(normalize_axis(o.axes[i], rank, what));
    VX_CHECK(!seen[a], InvalidArgument, what, ": axis ", o.axes[i], " repeated");
    seen[a] = true;
    const int64_t d = dims[a], step = o.steps[i];
    VX_CHECK(step != 0, InvalidArgument, what, ": step 0 on axis ", o.axes[i]);
    // Clamp in int64 first: ends are often INT64_MAX / INT64_MIN.
    int64_t start = o.starts[i] < 0 ? std::max<int64_t>(o.starts[i], -d - 1) + d : o.starts[i];
    int64_t end = o.ends[i] < 0 ? std::max<int64_t>(o.ends[i], -d - 1) + d : o.ends[i];
    // Counts written so that steps near INT64_MAX / INT64_MIN cannot overflow.
    int64_t count;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, d);
      end = std::clamp<int64_t>(end, 0, d);
      count = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, d - 1);
      end = std::clamp<int64_t>(end, -1, d - 1);
      const int64_t magnitude = step == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -step;
      count = start > end ? (start - end - 1) / magnitude + 1 : 0;
    }
    axes[a] = {count > 0 ? start : 0, step, count};
  }
  return axes;
}

}  // namespace vx
