// What every oneDNN kernel of the CPU backend shares: the engine, a stream per call, plain memory
// descriptors over row-major tensors, and the thread count (oneDNN's OpenMP threads follow the size
// of the executor's ThreadPool, set_onednn_threads in onednn_fused_conv.h).
#pragma once
#include <dnnl.hpp>
#include <vector>

#include "core/shape.h"

namespace vx::cpu::fast {

dnnl::engine& onednn_engine();
// Row-major f32 descriptor of these extents (a scalar becomes {1}).
dnnl::memory::desc plain_f32_desc(const std::vector<int64_t>& dims);
// Row-major strides of these extents.
dnnl::memory::dims row_major_strides(const std::vector<int64_t>& dims);

}  // namespace vx::cpu::fast
