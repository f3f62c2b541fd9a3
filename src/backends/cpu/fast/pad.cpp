// Pad (every mode and dtype: it moves bytes) row by row: each output row along the last axis is its
// source row's bytes (one memcpy for the part inside the input) between the pads of that axis, whose
// source columns are worked out once; rows spread over the thread pool. The reference's geometry
// and source rule (reference/pad_geometry.h), so the same bytes as the reference's element walk.
#include <algorithm>
#include <cstring>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"
#include "backends/cpu/reference/pad_geometry.h"

namespace vx::cpu::fast {
namespace {

void pad_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const ref::PadGeometry g = ref::read_pad_geometry(ctx);
  const size_t rank = x.rank(), elem = dtype_size(x.dtype());
  Tensor& y = ctx.output(0, x.dtype(), Shape(g.dims));
  if (y.numel() == 0) return;
  if (rank == 0) {
    std::memcpy(y.raw(), x.raw(), elem);
    return;
  }
  const int64_t width = g.dims[rank - 1], in_width = x.dim(rank - 1), begin = g.begin[rank - 1];
  const int64_t rows = y.numel() / width;
  // The last axis: each output column's source column (-1: the fill value); the columns lo .. hi
  // read the input's row as it is.
  std::vector<int64_t> column(static_cast<size_t>(width));
  for (int64_t o = 0; o < width; ++o) column[size_t(o)] = ref::pad_source(o, begin, in_width, g.mode);
  const int64_t lo = std::clamp<int64_t>(begin, 0, width), hi = std::clamp<int64_t>(begin + in_width, lo, width);
  const std::vector<int64_t> in_strides = ref::strides_of(x.shape());
  const std::vector<int64_t> outer_dims(g.dims.begin(), g.dims.end() - 1);
  const std::vector<int64_t> outer_strides = ref::strides_of(outer_dims);
  const char* src = static_cast<const char*>(x.raw());
  const char* fill = static_cast<const char*>(g.fill.raw());
  char* dst = static_cast<char*>(y.raw());
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, width * int64_t(elem)));
  ctx.pool().parallel_for(rows, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> coord(rank - 1);
    for (int64_t r = r0; r < r1; ++r) {
      ref::unravel(r, outer_strides, coord);
      int64_t offset = 0;  // the source row's first element, or -1: the row is all fill
      for (size_t d = 0; d + 1 < rank && offset >= 0; ++d) {
        const int64_t s = ref::pad_source(coord[d], g.begin[d], x.dim(d), g.mode);
        offset = s < 0 ? -1 : offset + s * in_strides[d];
      }
      char* out = dst + size_t(r * width) * elem;
      if (offset < 0) {
        for (int64_t o = 0; o < width; ++o) std::memcpy(out + size_t(o) * elem, fill, elem);
        continue;
      }
      const char* row = src + size_t(offset) * elem;
      auto put = [&](int64_t o) {
        const int64_t c = column[size_t(o)];
        std::memcpy(out + size_t(o) * elem, c < 0 ? fill : row + size_t(c) * elem, elem);
      };
      for (int64_t o = 0; o < lo; ++o) put(o);
      if (hi > lo) std::memcpy(out + size_t(lo) * elem, row + size_t(lo - begin) * elem, size_t(hi - lo) * elem);
      for (int64_t o = hi; o < width; ++o) put(o);
    }
  }, grain);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(pad_fast, {"Pad", "fast", 10, nullptr, pad_kernel});

}  // namespace vx::cpu::fast
