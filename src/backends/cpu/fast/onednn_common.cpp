#include "backends/cpu/fast/onednn_common.h"

#include <dlfcn.h>

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

void set_onednn_threads(int threads) {
  // Debian's oneDNN uses GNU OpenMP, which libdnnl already loaded; look it up rather than link it.
  using SetThreads = void (*)(int);
  static SetThreads set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (set && threads > 0) set(threads);
}

}  // namespace vx::cpu::fast
