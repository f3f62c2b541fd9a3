#include "backends/cpu/fast/strided_copy.h"

#include <algorithm>
#include <cstring>

#include "backends/cpu/fast/merged_axes.h"
#include "core/error.h"

namespace vx::cpu::fast {
namespace {

constexpr int64_t kCopyTile = 32;
// Work per task. Rows that are one memcpy each are split only in pieces of 1 MiB: on the 2-core
// machine a second thread made 256 KiB - 1 MiB copies slower (a third of a [128, 1536] tensor: 5.5
// -> 11 us; `op_table_bench --speed --filter Slice_threaded`); gathers and fills from 16384 elements.
constexpr int64_t kMemcpyBytesPerTask = int64_t(1) << 20;
constexpr int64_t kCopyElementsPerTask = 16384;

template <class T>
void copy_rows(const StridedCopy& c, const T* in, T* out, ThreadPool& pool) {
  const size_t rank = c.dims.size();
  const int64_t inner = c.dims[rank - 1], inner_stride = c.strides[rank - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= c.dims[d];
  // The output axis whose input stride is 1 (when the innermost one is neither 1 nor a broadcast):
  // tile it with the innermost one.
  int64_t tile_axis = -1;
  if (inner_stride != 1 && inner_stride != 0)
    for (size_t d = 0; d + 1 < rank; ++d)
      if (c.strides[d] == 1) tile_axis = int64_t(d);
  const int64_t per_task = inner_stride == 1 ? kMemcpyBytesPerTask / int64_t(sizeof(T)) : kCopyElementsPerTask;
  const int64_t grain = std::max<int64_t>(1, per_task / std::max<int64_t>(inner, 1));
  if (tile_axis >= 0) {
    // Rows grouped as [outer..., tile axis, between...]: 32 rows of the tile axis at once.
    const int64_t t_dim = c.dims[size_t(tile_axis)];
    int64_t between = 1;  // rows between consecutive tile-axis indices
    for (size_t d = size_t(tile_axis) + 1; d + 1 < rank; ++d) between *= c.dims[d];
    const int64_t groups = rows / (t_dim * between);
    const int64_t t_blocks = (t_dim + kCopyTile - 1) / kCopyTile;
    pool.parallel_for(groups * t_blocks * between, [&](int64_t begin, int64_t end) {
      for (int64_t job = begin; job < end; ++job) {
        const int64_t b = job % between, tb = (job / between) % t_blocks, g = job / (between * t_blocks);
        // Input offset of row (g, t = 0, b): g and b decomposed over their axes.
        int64_t off = c.base, rem = g;
        for (int64_t d = tile_axis - 1; d >= 0; --d) {
          off += (rem % c.dims[size_t(d)]) * c.strides[size_t(d)];
          rem /= c.dims[size_t(d)];
        }
        rem = b;
        for (size_t d = rank - 2; d > size_t(tile_axis); --d) {
          off += (rem % c.dims[d]) * c.strides[d];
          rem /= c.dims[d];
        }
        const int64_t t0 = tb * kCopyTile, t1 = std::min(t_dim, t0 + kCopyTile);
        for (int64_t i0 = 0; i0 < inner; i0 += kCopyTile) {
          const int64_t i1 = std::min(inner, i0 + kCopyTile);
          for (int64_t t = t0; t < t1; ++t) {
            const int64_t row = (g * t_dim + t) * between + b;
            const T* src = in + off + t;  // the tile axis has input stride 1
            T* dst = out + row * inner;
            for (int64_t i = i0; i < i1; ++i) dst[i] = src[i * inner_stride];
          }
        }
      }
    }, std::max<int64_t>(1, grain / kCopyTile));
    return;
  }
  pool.parallel_for(rows, [&](int64_t begin, int64_t end) {
    // The input offset of row `begin`, then an odometer over the outer axes.
    std::vector<int64_t> coord(rank, 0);
    int64_t off = c.base, rem = begin;
    for (size_t d = rank - 1; d-- > 0;) {
      coord[d] = rem % c.dims[d];
      off += coord[d] * c.strides[d];
      rem /= c.dims[d];
    }
    for (int64_t r = begin; r < end; ++r) {
      T* dst = out + r * inner;
      if (inner_stride == 1) std::memcpy(dst, in + off, size_t(inner) * sizeof(T));
      else if (inner_stride == 0) std::fill(dst, dst + inner, in[off]);
      else
        for (int64_t i = 0; i < inner; ++i) dst[i] = in[off + i * inner_stride];
      for (size_t d = rank - 1; d-- > 0;) {
        off += c.strides[d];
        if (++coord[d] < c.dims[d]) break;
        off -= coord[d] * c.strides[d];
        coord[d] = 0;
      }
    }
  }, grain);
}

// The same copy with extent-1 axes dropped and adjacent axes merged; at least one axis is left.
StridedCopy merged(const StridedCopy& copy) {
  VX_CHECK(copy.dims.size() == copy.strides.size(), Internal, "strided copy: ", copy.dims.size(), " extents, ",
           copy.strides.size(), " strides");
  MergedAxes m = merge_axes(copy.dims, {copy.strides});
  if (m.dims.empty()) return {{1}, {1}, copy.base};  // one element
  return {std::move(m.dims), std::move(m.strides[0]), copy.base};
}

}  // namespace

bool strided_copy_supports(size_t element_bytes) {
  return element_bytes == 1 || element_bytes == 2 || element_bytes == 4 || element_bytes == 8;
}

void run_strided_copy(const StridedCopy& copy, const void* in, void* out, size_t element_bytes, ThreadPool& pool) {
  for (int64_t d : copy.dims)
    if (d == 0) return;
  const StridedCopy c = merged(copy);
  switch (element_bytes) {
    case 1: return copy_rows(c, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), pool);
    case 2: return copy_rows(c, static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out), pool);
    case 4: return copy_rows(c, static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out), pool);
    case 8: return copy_rows(c, static_cast<const uint64_t*>(in), static_cast<uint64_t*>(out), pool);
    default: fail(ErrorCode::Internal, cat("strided copy of ", element_bytes, "-byte elements"));
  }
}

}  // namespace vx::cpu::fast
