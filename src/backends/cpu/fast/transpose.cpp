// Transpose of any element type of 1, 2, 4 or 8 bytes: the permuted copy the reference makes, with
// the output axes that stay adjacent in the input merged, threaded over blocks of output rows. A
// row whose elements are contiguous in the input is one memcpy; otherwise, where the input's
// innermost axis is another output axis (a true transpose: attention's K^T, NCHW <-> NHWC), the
// two axes are copied in 32 x 32 tiles so that both sides are read and written along cache lines;
// anything else is a typed gather. Exact (a copy). Declines other element sizes (the reference
// copies them byte by byte).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/shape_rules.h"

namespace vx::cpu::fast {
namespace {

// The copy as output extents and input strides (elements), adjacent axes merged; and the
// output's shape.
struct PermutedCopy {
  std::vector<int64_t> dims, strides;
  Shape out;
};

PermutedCopy permuted_copy(const Shape& x, const std::vector<int64_t>& perm_attr, const std::string& what) {
  const int64_t rank = int64_t(x.rank());
  const std::vector<int64_t> perm = transpose_perm(perm_attr, size_t(rank));
  VX_CHECK(int64_t(perm.size()) == rank, InvalidArgument, what, ": perm has ", perm.size(), " entries for rank ", rank);
  std::vector<int64_t> in_strides(size_t(rank), 1);
  for (int64_t i = rank - 1; i > 0; --i) in_strides[size_t(i - 1)] = in_strides[size_t(i)] * x[size_t(i)];
  std::vector<bool> seen(size_t(rank), false);
  PermutedCopy c;
  std::vector<int64_t> out;
  for (int64_t p : perm) {
    p = normalize_axis(p, rank, what);
    VX_CHECK(!seen[size_t(p)], InvalidArgument, what, ": perm repeats axis ", p);
    seen[size_t(p)] = true;
    out.push_back(x[size_t(p)]);
    if (x[size_t(p)] == 1) continue;  // extent 1: no axis at all
    if (!c.dims.empty() && c.strides.back() == in_strides[size_t(p)] * x[size_t(p)]) {
      c.dims.back() *= x[size_t(p)];  // still adjacent in the input: one axis
      c.strides.back() = in_strides[size_t(p)];
    } else {
      c.dims.push_back(x[size_t(p)]);
      c.strides.push_back(in_strides[size_t(p)]);
    }
  }
  if (c.dims.empty()) c.dims = c.strides = {1};
  c.out = Shape(out);
  return c;
}

template <class T>
void copy_rows(const PermutedCopy& c, const T* in, T* out, ThreadPool& pool) {
  const size_t rank = c.dims.size();
  const int64_t inner = c.dims[rank - 1], inner_stride = c.strides[rank - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= c.dims[d];
  // The output axis whose input stride is 1 (when the innermost one is not): tile it with the
  // innermost one.
  int64_t tile_axis = -1;
  for (size_t d = 0; d + 1 < rank; ++d)
    if (c.strides[d] == 1) tile_axis = int64_t(d);
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1));
  if (inner_stride != 1 && tile_axis >= 0) {
    // Rows grouped as [outer..., tile axis, between...]: handle 32 rows of the tile axis at once.
    const int64_t t_dim = c.dims[size_t(tile_axis)];
    int64_t between = 1;  // rows between consecutive tile-axis indices
    for (size_t d = size_t(tile_axis) + 1; d + 1 < rank; ++d) between *= c.dims[d];
    const int64_t groups = rows / (t_dim * between);
    constexpr int64_t kTile = 32;
    const int64_t t_blocks = (t_dim + kTile - 1) / kTile;
    pool.parallel_for(groups * t_blocks * between, [&](int64_t begin, int64_t end) {
      for (int64_t job = begin; job < end; ++job) {
        const int64_t b = job % between, tb = (job / between) % t_blocks, g = job / (between * t_blocks);
        // Input offset of row (g, t = 0, b): decompose g and b over their axes.
        int64_t off = 0, rem = g;
        for (int64_t d = tile_axis - 1; d >= 0; --d) {
          off += (rem % c.dims[size_t(d)]) * c.strides[size_t(d)];
          rem /= c.dims[size_t(d)];
        }
        rem = b;
        for (size_t d = rank - 2; d > size_t(tile_axis); --d) {
          off += (rem % c.dims[d]) * c.strides[d];
          rem /= c.dims[d];
        }
        const int64_t t0 = tb * kTile, t1 = std::min(t_dim, t0 + kTile);
        for (int64_t i0 = 0; i0 < inner; i0 += kTile) {
          const int64_t i1 = std::min(inner, i0 + kTile);
          for (int64_t t = t0; t < t1; ++t) {
            const int64_t row = (g * t_dim + t) * between + b;
            const T* src = in + off + t;  // the tile axis has input stride 1
            T* dst = out + row * inner;
            for (int64_t i = i0; i < i1; ++i) dst[i] = src[i * inner_stride];
          }
        }
      }
    }, std::max<int64_t>(1, grain / kTile));
    return;
  }
  pool.parallel_for(rows, [&](int64_t begin, int64_t end) {
    // The input offset of row `begin`, then an odometer over the outer axes.
    std::vector<int64_t> coord(rank, 0);
    int64_t off = 0, rem = begin;
    for (size_t d = rank - 1; d-- > 0;) {
      coord[d] = rem % c.dims[d];
      off += coord[d] * c.strides[d];
      rem /= c.dims[d];
    }
    for (int64_t r = begin; r < end; ++r) {
      T* dst = out + r * inner;
      if (inner_stride == 1) {
        std::memcpy(dst, in + off, size_t(inner) * sizeof(T));
      } else {
        for (int64_t i = 0; i < inner; ++i) dst[i] = in[off + i * inner_stride];
      }
      for (size_t d = rank - 1; d-- > 0;) {
        off += c.strides[d];
        if (++coord[d] < c.dims[d]) break;
        off -= coord[d] * c.strides[d];
        coord[d] = 0;
      }
    }
  }, grain);
}

bool transpose_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    if (node.inputs.size() != 1 || node.outputs.size() != 1 || node.input(0) == kNoValue) return false;
    const size_t elem = dtype_size(g.value(node.input(0)).dtype);
    return elem == 1 || elem == 2 || elem == 4 || elem == 8;
  });
}

void transpose_fast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::string what = cat("Transpose '", ctx.node().name, "'");
  const PermutedCopy c = permuted_copy(x.shape(), ctx.node().attrs.get_ints("perm"), what);
  Tensor& y = ctx.output(0, x.dtype(), c.out);
  if (y.numel() == 0) return;
  switch (dtype_size(x.dtype())) {
    case 1: return copy_rows(c, static_cast<const uint8_t*>(x.raw()), static_cast<uint8_t*>(y.raw()), ctx.pool());
    case 2: return copy_rows(c, static_cast<const uint16_t*>(x.raw()), static_cast<uint16_t*>(y.raw()), ctx.pool());
    case 4: return copy_rows(c, static_cast<const uint32_t*>(x.raw()), static_cast<uint32_t*>(y.raw()), ctx.pool());
    default: return copy_rows(c, static_cast<const uint64_t*>(x.raw()), static_cast<uint64_t*>(y.raw()), ctx.pool());
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(transpose_fast, {"Transpose", "fast", 10, transpose_supports, transpose_fast});

}  // namespace vx::cpu::fast
