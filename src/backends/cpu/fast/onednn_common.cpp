#include "backends/cpu/fast/onednn_common.h"

#include <omp.h>

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/error.h"

namespace vx::cpu::fast {

dnnl::engine& onednn_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::memory::dims row_major_strides(const std::vector<int64_t>& dims) {
  dnnl::memory::dims s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * (dims[i] > 0 ? dims[i] : 1);
  return s;
}

memory::format_tag onednn_tag(Layout layout) {
  switch (layout) {
    case Layout::nchw: return memory::format_tag::nchw;
    case Layout::nhwc: return memory::format_tag::nhwc;
    case Layout::nchw16c: return memory::format_tag::nChw16c;
    case Layout::nchw8c: return memory::format_tag::nChw8c;
  }
  return memory::format_tag::nchw;
}

dnnl::memory::desc plain_f32_desc(const std::vector<int64_t>& dims) {
  std::vector<int64_t> d = dims.empty() ? std::vector<int64_t>{1} : dims;
  return dnnl::memory::desc(d, dnnl::memory::data_type::f32, row_major_strides(d));
}

dnnl::primitive_attr onednn_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

namespace {

struct ThreadScratchpad {
  std::unique_ptr<void, void (*)(void*)> buffer{nullptr, std::free};
  size_t capacity = 0;
};

ThreadScratchpad& this_thread_scratchpad() {
  thread_local ThreadScratchpad pad;
  return pad;
}

}  // namespace

void reserve_thread_scratchpad(size_t bytes) {
  ThreadScratchpad& pad = this_thread_scratchpad();
  if (bytes <= pad.capacity) return;
  // Huge pages and touched once, as the CPU arena is: faulting in 4 KiB pages is slow in VMs.
  constexpr size_t kHugePage = size_t(2) << 20;
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  pad.buffer.reset(std::aligned_alloc(kHugePage, rounded));
  pad.capacity = 0;
  VX_CHECK(pad.buffer != nullptr, OutOfMemory, "cannot allocate oneDNN's scratchpad of ", bytes, " bytes");
  madvise(pad.buffer.get(), rounded, MADV_HUGEPAGE);
  std::memset(pad.buffer.get(), 0, rounded);
  pad.capacity = rounded;
}

dnnl::memory thread_scratchpad(const dnnl::memory::desc& desc) {
  const size_t bytes = desc.get_size();
  reserve_thread_scratchpad(bytes);
  return dnnl::memory(desc, onednn_engine(), bytes ? this_thread_scratchpad().buffer.get() : nullptr);
}

void execute_primitive(const dnnl::primitive& primitive, dnnl::stream& stream,
                       std::unordered_map<int, dnnl::memory> args) {
  const dnnl_memory_desc_t* scratchpad =
      dnnl_primitive_desc_query_md(primitive.get_primitive_desc(), dnnl_query_scratchpad_md, 0);
  if (scratchpad && scratchpad->ndims > 0) args[DNNL_ARG_SCRATCHPAD] = thread_scratchpad(dnnl::memory::desc(*scratchpad));
  primitive.execute(stream, args);
}

void copy_segments(ThreadPool& pool, const std::vector<CopySegment>& segments) {
  constexpr size_t kMinPiece = size_t(64) << 10;  // below this a thread's wake-up costs more than the copy
  size_t total = 0;
  for (const CopySegment& s : segments) total += s.bytes;
  const size_t piece = std::max(kMinPiece, total / size_t(4 * pool.size()) + 1);
  std::vector<CopySegment> pieces;
  for (const CopySegment& s : segments)
    for (size_t at = 0; at < s.bytes; at += piece) pieces.push_back({s.to + at, s.from + at, std::min(piece, s.bytes - at)});
  const size_t average = std::max<size_t>(1, total / std::max<size_t>(1, pieces.size()));
  pool.parallel_for(int64_t(pieces.size()), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) std::memcpy(pieces[size_t(i)].to, pieces[size_t(i)].from, pieces[size_t(i)].bytes);
  }, std::max<int64_t>(1, int64_t(kMinPiece / average)));
}

KernelFn reference_kernel_of(const Node& node) {
  const KernelEntry* reference = find_reference_kernel(node.op, node.domain);
  VX_CHECK(reference != nullptr && reference->run, Internal, "no reference kernel for ", node.op);
  return reference->run;
}

void set_onednn_threads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);  // Debian's oneDNN runs on GNU OpenMP's threads
}

dnnl::convolution_forward::primitive_desc pointwise_conv(const memory::desc& src, const memory::desc& weights,
                                                         const memory::desc* bias, const memory::desc& dst,
                                                         const dnnl::primitive_attr& attr) {
  using Conv = dnnl::convolution_forward;
  const auto kind = dnnl::prop_kind::forward_inference;
  const auto direct = dnnl::algorithm::convolution_direct;
  const Conv::desc desc = bias ? Conv::desc(kind, direct, src, weights, *bias, dst, {1, 1}, {0, 0}, {0, 0})
                               : Conv::desc(kind, direct, src, weights, dst, {1, 1}, {0, 0}, {0, 0});
  return Conv::primitive_desc(desc, attr, onednn_engine());
}

}  // namespace vx::cpu::fast
