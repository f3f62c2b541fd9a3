// Per value of a graph: its constant, else the tensor a run in progress gave it. Kept by an
// executable across its runs so that a run does not copy every constant's tensor (and its shape)
// again: on a model of 0.1 ms a call (Silero VAD) allocations were a quarter of the time.
#pragma once
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace vx::runtime {

class ValueTable {
 public:
  // with_constants: false for a table of per-run tensors only (a caller's output buffers).
  ValueTable(const Graph& graph, bool with_constants);

  Tensor& operator[](size_t id) { return values_[id]; }
  std::vector<Tensor>& values() { return values_; }

  // Drops the run's tensors (every entry but the constants) as it goes out of scope, however the
  // run ends: a failed run leaves nothing behind, and no caller's tensor is held between runs.
  class RunScope {
   public:
    explicit RunScope(ValueTable& table) : table_(table) {}
    RunScope(const RunScope&) = delete;
    RunScope& operator=(const RunScope&) = delete;
    ~RunScope() { table_.drop_run_tensors(); }

   private:
    ValueTable& table_;
  };

 private:
  void drop_run_tensors();

  std::vector<Tensor> values_;
  std::vector<bool> constant_;
};

}  // namespace vx::runtime
