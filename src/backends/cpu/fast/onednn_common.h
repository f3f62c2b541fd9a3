// What the fast CPU kernels share: the oneDNN engine, plain memory descriptors over row-major
// tensors, the thread count (oneDNN's OpenMP threads follow the size of the executor's ThreadPool),
// and the checks of their supports() tests.
#pragma once
#include <dnnl.hpp>
#include <unordered_map>
#include <vector>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/kernel_registry.h"
#include "core/graph.h"
#include "core/shape.h"
#include "core/thread_pool.h"

namespace vx::cpu::fast {

using dnnl::memory;
constexpr auto f32 = memory::data_type::f32;

dnnl::engine& onednn_engine();
// True when `id` names an f32 value of known shape (what every oneDNN kernel needs).
inline bool known_f32(const Graph& g, ValueId id) {
  return id != kNoValue && g.value(id).dtype == DType::f32 && g.value(id).shape.is_known();
}

// oneDNN's name for one of the CPU backend's activation layouts.
memory::format_tag onednn_tag(Layout layout);

// Row-major f32 descriptor of these extents (a scalar becomes {1}).
dnnl::memory::desc plain_f32_desc(const std::vector<int64_t>& dims);
// Runs a kernel's supports() test, declining (false) where the node cannot even be inspected
// (values missing from the graph, attributes of the wrong type): supports() must never throw.
template <class Test>
bool declines_on_error(Test&& test) {
  try {
    return test();
  } catch (...) {
    return false;
  }
}

// The reference kernel of the node's op, for a fast kernel to hand it a run it does not take (input
// shapes other than the planned ones). Internal error when there is none.
KernelFn reference_kernel_of(const Node& node);

// One contiguous copy of a fast kernel that only moves bytes (concat.cpp, movement.cpp).
struct CopySegment {
  char* to;
  const char* from;
  size_t bytes;
};

// Copies every segment over the pool, long ones cut into pieces of at least 64 KiB so that the
// threads share them, short ones taken many at a time.
void copy_segments(ThreadPool& pool, const std::vector<CopySegment>& segments);

// A shape the plan knows, of rank 1 or more. Not rank 0: planning clears the dims of every computed
// value, and one declared [] (or of unknown rank) then reads as a known scalar even where inference
// knew nothing (SSDLite's NMS: an Unsqueeze of such a value once wrote [] for [1]).
inline bool known_shape(const Graph& g, ValueId id) {
  return id != kNoValue && g.value(id).shape.rank() > 0 && g.value(id).shape.is_known();
}

// Row-major strides of these extents.
dnnl::memory::dims row_major_strides(const std::vector<int64_t>& dims);

// True when the node has one output and it is f32.
inline bool single_f32_output(const Node& n, const Graph& g) {
  return n.outputs.size() == 1 && n.outputs[0] != kNoValue && g.value(n.outputs[0]).dtype == DType::f32;
}

// Primitive attributes every oneDNN kernel starts from: the scratchpad is ours (user mode).
// oneDNN's own (library mode) is a per-thread buffer sized when a primitive is created, so a
// kernel built on one thread and run on another (an OIDN filter committed on the caller's thread
// and executed on the device's worker) would write past it.
dnnl::primitive_attr onednn_attr();
// A primitive's scratchpad in memory of the calling thread, grown as needed and kept for the
// thread's later primitives (as oneDNN's library mode would, but owned by the running thread).
dnnl::memory thread_scratchpad(const dnnl::memory::desc& desc);
// Grows the calling thread's scratchpad to `bytes` now, touching it: kernels call it when they are
// built, so that the first run (usually on the same thread) does not pay for faulting it in.
void reserve_thread_scratchpad(size_t bytes);
// Runs a primitive made with onednn_attr(), its scratchpad from thread_scratchpad().
void execute_primitive(const dnnl::primitive& primitive, dnnl::stream& stream,
                       std::unordered_map<int, dnnl::memory> args);

// A 1x1 convolution (stride 1, no padding) for inference, with the bias when `bias` is given:
// products by constant weights and dilated convolutions run tap by tap are made of it. Throws
// dnnl::error where oneDNN has none for these descriptors.
dnnl::convolution_forward::primitive_desc pointwise_conv(const dnnl::memory::desc& src, const dnnl::memory::desc& weights,
                                                         const dnnl::memory::desc* bias, const dnnl::memory::desc& dst,
                                                         const dnnl::primitive_attr& attr);

// Sets the number of OpenMP threads oneDNN uses from now on in the calling thread.
void set_onednn_threads(int threads);

}  // namespace vx::cpu::fast
