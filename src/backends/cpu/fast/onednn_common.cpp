#include "backends/cpu/fast/onednn_common.h"

#include <dlfcn.h>

#include <cstdlib>
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

dnnl::memory::desc plain_f32_desc(const std::vector<int64_t>& dims) {
  std::vector<int64_t> d = dims.empty() ? std::vector<int64_t>{1} : dims;
  return dnnl::memory::desc(d, dnnl::memory::data_type::f32, row_major_strides(d));
}

dnnl::primitive_attr onednn_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::memory thread_scratchpad(const dnnl::memory::desc& desc) {
  thread_local std::unique_ptr<void, void (*)(void*)> buffer(nullptr, std::free);
  thread_local size_t capacity = 0;
  const size_t bytes = desc.get_size();
  if (bytes > capacity) {
    constexpr size_t kAlign = 4096;
    const size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
    buffer.reset(std::aligned_alloc(kAlign, rounded));
    VX_CHECK(buffer != nullptr, OutOfMemory, "cannot allocate oneDNN's scratchpad of ", bytes, " bytes");
    capacity = rounded;
  }
  return dnnl::memory(desc, onednn_engine(), bytes ? buffer.get() : nullptr);
}

void execute_primitive(const dnnl::primitive& primitive, dnnl::stream& stream,
                       std::unordered_map<int, dnnl::memory> args) {
  const dnnl_memory_desc_t* scratchpad =
      dnnl_primitive_desc_query_md(primitive.get_primitive_desc(), dnnl_query_scratchpad_md, 0);
  if (scratchpad && scratchpad->ndims > 0) args[DNNL_ARG_SCRATCHPAD] = thread_scratchpad(dnnl::memory::desc(*scratchpad));
  primitive.execute(stream, args);
}

void set_onednn_threads(int threads) {
  // Debian's oneDNN uses GNU OpenMP, which libdnnl already loaded; look it up rather than link it.
  using SetThreads = void (*)(int);
  static SetThreads set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (set && threads > 0) set(threads);
}

}  // namespace vx::cpu::fast
