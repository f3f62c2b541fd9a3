#include "backends/cpu/cpu_executable.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <new>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/onednn_common.h"
#include "core/error.h"
#include "passes/graph_queries.h"
#include "runtime/step_progress.h"

namespace vx::cpu {

namespace {

// Runs a kernel's preparation or its run for `node` ("<what>node '<name>' (<op>)" in messages,
// built only on failure: this wraps every node of every run). vx::Errors get that context;
// oneDNN's own exceptions (dnnl::error, e.g. "could not create a primitive") and failed
// allocations become vx::Errors that name the node and say when memory ran out.
template <class F>
void with_node_context(const char* what, const Node& node, F&& f) {
  auto where = [&] { return cat(what, "node '", node.name, "' (", node.op, ")"); };
  try {
    VX_WITH_CONTEXT(where(), f());
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_out_of_memory)
      fail(ErrorCode::OutOfMemory, cat(where(), ": out of memory: oneDNN could not allocate (", e.what(), ")"));
    fail(ErrorCode::Internal, cat(where(), ": oneDNN: ", e.what(), " (status ", int(e.status), ")"));
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::OutOfMemory, cat(where(), ": out of memory: an allocation failed"));
  }
}

class ExecutionContext final : public KernelContext {
 public:
  ExecutionContext(const Plan& plan, std::vector<Tensor>& values, const std::vector<Tensor>& provided,
                   uint8_t* arena, ThreadPool& pool)
      : plan_(plan), values_(values), provided_(provided), arena_(arena), pool_(pool) {}

  void set_step(const Node& node, const PlanStep& step) {
    node_ = &node;
    step_ = &step;
  }

  const Node& node() const override { return *node_; }
  int64_t opset() const override { return plan_.graph.opset(""); }
  size_t num_inputs() const override { return node_->inputs.size(); }
  bool has_input(size_t i) const override { return node_->input(i) != kNoValue; }
  const Tensor& input(size_t i) const override {
    VX_CHECK(has_input(i), InvalidArgument, "node '", node_->name, "' (", node_->op, ") reads its omitted input ", i);
    const Tensor& t = values_[size_t(node_->inputs[i])];
    VX_CHECK(t.defined(), Internal, "node '", node_->name, "' reads '", plan_.graph.value(node_->inputs[i]).name,
             "', which was never computed");
    return t;
  }
  size_t num_outputs() const override { return node_->outputs.size(); }
  Tensor& output(size_t i, DType dtype, const Shape& shape) override {
    VX_CHECK(i < node_->outputs.size(), Internal, "node '", node_->name, "' (", node_->op, ") writes output ", i,
             " of ", node_->outputs.size());
    const ValueId id = node_->outputs[i];
    if (id == kNoValue) {  // an omitted optional output: somewhere to write, then dropped
      omitted_output_ = Tensor(dtype, shape);
      return omitted_output_;
    }
    const Value& planned = plan_.graph.value(id);
    const int64_t offset = plan_.arena_offset[size_t(id)];
    const Tensor& mine = provided_[size_t(id)];
    if (offset >= 0 && planned.dtype == dtype && planned.shape == shape)
      values_[size_t(id)] = Tensor::wrap(dtype, shape, arena_ + offset);
    else if (mine.defined() && mine.dtype() == dtype && mine.shape() == shape)
      values_[size_t(id)] = mine;
    else
      values_[size_t(id)] = Tensor(dtype, shape);
    return values_[size_t(id)];
  }
  ThreadPool& pool() override { return pool_; }
  void* scratch(size_t bytes) override {
    if (step_->scratch_offset >= 0 && bytes <= step_->scratch_bytes) return arena_ + step_->scratch_offset;
    return KernelContext::scratch(bytes);
  }

 private:
  const Plan& plan_;
  std::vector<Tensor>& values_;
  const std::vector<Tensor>& provided_;  // caller's output buffers, by value id
  uint8_t* arena_;
  ThreadPool& pool_;
  const Node* node_ = nullptr;
  const PlanStep* step_ = nullptr;
  Tensor omitted_output_;
};

}  // namespace

const KernelEntry* choose_kernel(const Node& node, const Graph& graph, bool reference_only) {
  if (!reference_only) return find_kernel(node, graph);
  const KernelEntry* ref = find_reference_kernel(node.op, node.domain);
  return ref && (!ref->supports || ref->supports(node, graph)) ? ref : nullptr;
}

Plan make_cpu_plan(const Graph& graph, const std::map<std::string, Shape>& input_shapes, bool reference_only) {
  return make_plan(
      graph, input_shapes,
      [reference_only](const Node& node, const Graph& g) {
        const KernelEntry* k = choose_kernel(node, g, reference_only);
        return k ? k->variant : std::string();
      },
      prepare_cpu_plan);
}

CpuExecutable::CpuExecutable(Plan plan, CpuOptions options)
    : plan_(std::move(plan)), options_(options), values_(plan_.graph, true), provided_(plan_.graph, false) {
  const Graph& g = plan_.graph;
  kernels_.resize(plan_.steps.size());
  release_.resize(plan_.steps.size());
  std::vector<const KernelEntry*> entries(plan_.steps.size());
  bool same_choice = plan_.prepared_by == "cpu";
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const Node& node = g.nodes[size_t(plan_.steps[s].node)];
    entries[s] = choose_kernel(node, g, options_.reference_only);
    VX_CHECK(entries[s] != nullptr, Unsupported, "the CPU backend has no kernel for node '", node.name, "' (op '",
             node.op, node.domain.empty() ? "" : "' in domain '" + node.domain, "')");
    if (plan_.steps[s].variant != entries[s]->variant) same_choice = false;
    plan_.steps[s].variant = entries[s]->variant;
  }
  if (!same_choice) {
    // Planned without the CPU hook or for other kernels: redo the layout decision; scratch is
    // then allocated at run time (make_cpu_plan puts it in the arena).
    for (PlanStep& step : plan_.steps) step.scratch_offset = -1;
    prepare_cpu_plan(plan_);
  }
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const PlanStep& step = plan_.steps[s];
    VX_CHECK(step.scratch_offset < 0 || step.scratch_offset + int64_t(step.scratch_bytes) <= int64_t(plan_.arena_bytes),
             Internal, "scratch of step ", s, " lies outside the arena");
  }
  for (const ArenaSlot& slot : plan_.arena_slots)
    VX_CHECK(slot.offset + slot.bytes <= plan_.arena_bytes, Internal, "arena slot at ", slot.offset,
             " lies outside the arena of ", plan_.arena_bytes, " bytes");
  // oneDNN splits a primitive's work for the calling thread's OpenMP team size when it builds it:
  // build them for this executable's pool (--threads 2 on 16 cores ran convolutions on 16 threads).
  fast::set_onednn_threads((options_.pool ? *options_.pool : ThreadPool::global()).size());
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const Node& node = g.nodes[size_t(plan_.steps[s].node)];
    with_node_context("preparing ", node,
                      [&] { kernels_[s] = entries[s]->create ? entries[s]->create(node, g) : entries[s]->run; });
  }
  // The last step reading each value; after it the value's tensor is dropped (arena views cost
  // nothing; run-time allocations are freed early).
  std::vector<int> last(g.values.size(), -1);
  for (size_t s = 0; s < plan_.steps.size(); ++s)
    for (ValueId id : g.nodes[size_t(plan_.steps[s].node)].inputs)
      if (id != kNoValue) last[size_t(id)] = int(s);
  for (size_t i = 0; i < g.values.size(); ++i)
    if (last[i] >= 0 && !g.values[i].is_constant() && !is_graph_output(g, ValueId(i)))
      release_[size_t(last[i])].push_back(ValueId(i));
  if (plan_.arena_bytes > 0) {
    // Huge pages where the kernel allows: faulting in a large arena 4 KiB at a time is slow (about
    // 3 ms per MiB in our VMs), and the convolutions sweep it with strides that thrash the TLB.
    // Touched once here so that no run pays for the faults.
    constexpr size_t kHugePage = size_t(2) << 20;
    const size_t bytes = (plan_.arena_bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* memory = std::aligned_alloc(kHugePage, bytes);
    VX_CHECK(memory != nullptr, OutOfMemory, "cannot allocate the CPU activation arena of ", plan_.arena_bytes,
             " bytes for graph '", g.name, "'");
    madvise(memory, bytes, MADV_HUGEPAGE);
    std::memset(memory, 0, bytes);
    arena_ = std::unique_ptr<uint8_t, void (*)(void*)>(static_cast<uint8_t*>(memory), std::free);
  }
}

std::vector<Tensor> CpuExecutable::run(const std::vector<Tensor>& inputs, Profile* profile) {
  std::vector<Tensor> outputs;
  run(inputs, outputs, profile);
  return outputs;
}

void CpuExecutable::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, Profile* profile) {
  run_steps(inputs, outputs, profile, nullptr);
}

void CpuExecutable::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, std::vector<double>& step_ms) {
  run_steps(inputs, outputs, nullptr, &step_ms);
}

void CpuExecutable::run_steps(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, Profile* profile,
                              std::vector<double>* step_ms) {
  std::lock_guard<std::mutex> lock(run_mutex_);
  const Graph& g = plan_.graph;
  VX_CHECK(inputs.size() == g.inputs.size(), InvalidArgument, "graph '", g.name, "' takes ", g.inputs.size(),
           " inputs, got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    VX_CHECK(inputs[i].defined(), InvalidArgument, "input ", i, " ('", v.name, "') is empty");
    VX_CHECK(inputs[i].dtype() == v.dtype, InvalidArgument, "input ", i, " ('", v.name, "') has dtype ",
             dtype_name(inputs[i].dtype()), ", expected ", dtype_name(v.dtype));
    VX_CHECK(inputs[i].shape() == v.shape, InvalidArgument, "input ", i, " ('", v.name, "') has shape ",
             inputs[i].shape().str(), " but the plan was made for ", v.shape.str());
  }
  runtime::ValueTable::RunScope values_scope(values_), provided_scope(provided_);
  for (size_t i = 0; i < inputs.size(); ++i) values_[size_t(g.inputs[i])] = inputs[i];
  // Caller-provided output buffers of the right dtype and shape are written in place.
  outputs.resize(g.outputs.size());
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const ValueId id = g.outputs[i];
    const Value& v = g.value(id);
    const bool aliases_input = std::find(g.inputs.begin(), g.inputs.end(), id) != g.inputs.end();
    if (outputs[i].defined() && plan_.shape_known[size_t(id)] && outputs[i].dtype() == v.dtype &&
        outputs[i].shape() == v.shape && !aliases_input && !v.is_constant())
      provided_[size_t(id)] = outputs[i];
  }
  ThreadPool& pool = options_.pool ? *options_.pool : ThreadPool::global();
  ExecutionContext ctx(plan_, values_.values(), provided_.values(), arena_.get(), pool);
  if (profile) profile->entries.clear();
  if (step_ms) step_ms->assign(plan_.steps.size(), 0.0);
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const Node& node = g.nodes[size_t(plan_.steps[s].node)];
    ctx.set_step(node, plan_.steps[s]);
    const auto start = std::chrono::steady_clock::now();
    with_node_context("", node, [&] { kernels_[s](ctx); });
    if (profile || step_ms) {
      const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
      if (profile) profile->entries.push_back({node.name, node.op, plan_.steps[s].variant, ms.count()});
      if (step_ms) (*step_ms)[s] = ms.count();
    }
    for (ValueId id : node.outputs)
      VX_CHECK(id == kNoValue || values_[size_t(id)].defined(), Internal, "node '", node.name, "' (", node.op,
               ") did not write its output '", g.value(id).name, "'");
    for (ValueId id : release_[s]) values_[size_t(id)] = Tensor();
    runtime::report_step(int64_t(s + 1), int64_t(plan_.steps.size()));
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const ValueId id = g.outputs[i];
    Tensor t = values_[size_t(id)];
    // A graph output that is also a graph input or constant must not alias the caller's data.
    if (g.value(id).is_constant() || std::find(g.inputs.begin(), g.inputs.end(), id) != g.inputs.end()) t = t.clone();
    outputs[i] = std::move(t);
  }
}

}  // namespace vx::cpu
