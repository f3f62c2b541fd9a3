// The CPU as a backend of the scheduler (runtime/backend.h): runs any node the CPU kernel registry
// has a kernel for, on host tensors, so it is every schedule's host backend: the fallback for nodes
// a device cannot run, and the home of shape computations. Given every node of a graph as one
// segment (the CPU is the device), it compiles the graph whole into a CpuExecutable: one plan,
// activations in one arena; segments between other backends' run node by node on fresh tensors.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/kernel_registry.h"
#include "core/thread_pool.h"
#include "runtime/backend.h"
#include "runtime/memory_limit.h"

namespace vx::cpu {

struct CpuBackendOptions {
  bool reference_only = false;  // only the reference kernels (tests, debugging)
  ThreadPool* pool = nullptr;   // a whole graph's kernels run on it (null: ThreadPool::global())
  // A whole graph: > 0 refuses (OutOfMemory, before the arena is allocated) a plan whose arena
  // exceeds this many MiB; `needs` gets what the plan needs, also when refused.
  uint64_t max_memory_mb = 0;
  MemoryNeeds* needs = nullptr;
};

class CpuBackend final : public runtime::Backend {
 public:
  explicit CpuBackend(CpuBackendOptions options = {}) : options_(options) {}
  std::string name() const override { return "cpu"; }
  bool on_host() const override { return true; }
  runtime::NodeSupport supports(const runtime::BoundGraph& bound, size_t node) override;
  std::unique_ptr<runtime::CompiledSegments> compile(const runtime::BoundGraph& bound,
                                                     const std::vector<const runtime::Segment*>& segments) override;

 private:
  CpuBackendOptions options_;
  std::vector<const KernelEntry*> chosen_;  // per node, from supports()
};

}  // namespace vx::cpu
