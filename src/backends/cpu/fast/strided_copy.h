// The threaded strided copy under the fast data-movement kernels (Transpose, Slice, Split, Expand):
// the output is written row-major; element (i0, ..., in) is read at base + sum(ik * strides[k])
// (elements) of the input. Output axes that stay adjacent in the input are merged first. A row whose
// elements are contiguous in the input is one memcpy, a row of one repeated element (a broadcast) a
// fill; where the input's innermost axis is another output axis (a true transpose) the two axes are
// copied in 32 x 32 tiles so that both sides go along cache lines; anything else is a typed gather.
// Exact (a copy) for elements of 1, 2, 4 or 8 bytes (strided_copy_supports).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/thread_pool.h"

namespace vx::cpu::fast {

struct StridedCopy {
  std::vector<int64_t> dims;     // output extents
  std::vector<int64_t> strides;  // input strides in elements, one per output axis (0: broadcast)
  int64_t base = 0;              // input offset of the first output element
};

bool strided_copy_supports(size_t element_bytes);

// Copies over the pool, adjacent axes merged first.
void run_strided_copy(const StridedCopy& copy, const void* in, void* out, size_t element_bytes, ThreadPool& pool);

}  // namespace vx::cpu::fast
