#include "runtime/value_table.h"

namespace vx::runtime {

ValueTable::ValueTable(const Graph& graph, bool with_constants)
    : values_(graph.values.size()), constant_(graph.values.size(), false) {
  if (!with_constants) return;
  for (size_t i = 0; i < graph.values.size(); ++i)
    if (graph.values[i].is_constant()) values_[i] = graph.values[i].constant, constant_[i] = true;
}

void ValueTable::drop_run_tensors() {
  for (size_t i = 0; i < values_.size(); ++i)
    if (!constant_[i]) values_[i] = Tensor();
}

}  // namespace vx::runtime
