// Reference Pad (constant, reflect, edge and wrap; pads, value and axes as inputs or attributes)
// and Tile. They move bytes, so they work for every dtype.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"
#include "backends/cpu/reference/pad_geometry.h"

namespace vx::cpu::ref {
namespace {

void tile_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> repeats = read_ints(ctx.input(1));
  VX_CHECK(repeats.size() == x.rank(), InvalidArgument, node_label(ctx), ": ", repeats.size(),
           " repeats for rank ", x.rank());
  // The output seen as [r0, d0, r1, d1, ...]: the repeat coordinates read with stride 0.
  std::vector<int64_t> in_strides = strides_of(x.shape()), view_dims, view_strides, dims;
  for (size_t i = 0; i < x.rank(); ++i) {
    VX_CHECK(repeats[i] >= 0, InvalidArgument, node_label(ctx), ": negative repeat ", repeats[i]);
    view_dims.insert(view_dims.end(), {repeats[i], x.dim(i)});
    view_strides.insert(view_strides.end(), {0, in_strides[i]});
    dims.push_back(repeats[i] * x.dim(i));
  }
  Tensor& y = ctx.output(0, x.dtype(), Shape(dims));
  strided_copy(x.raw(), 0, view_strides, y.raw(), view_dims, dtype_size(x.dtype()));
}

void pad_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const PadGeometry g = read_pad_geometry(ctx);
  const int64_t rank = int64_t(x.rank());
  const size_t elem = dtype_size(x.dtype());
  Tensor& y = ctx.output(0, x.dtype(), Shape(g.dims));
  std::vector<int64_t> in_strides = strides_of(x.shape()), out_strides = strides_of(g.dims);
  std::vector<int64_t> coord(static_cast<size_t>(rank));
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(y.raw());
  for (int64_t o = 0; o < y.numel(); ++o) {
    unravel(o, out_strides, coord);
    int64_t offset = 0;
    for (size_t d = 0; d < size_t(rank) && offset >= 0; ++d) {
      int64_t s = pad_source(coord[d], g.begin[d], x.dim(d), g.mode);
      offset = s < 0 ? -1 : offset + s * in_strides[d];
    }
    std::memcpy(dst + o * int64_t(elem), offset < 0 ? static_cast<const char*>(g.fill.raw()) : src + offset * int64_t(elem),
                elem);
  }
}

}  // namespace

int64_t pad_source(int64_t o, int64_t b, int64_t d, const std::string& mode) {
  int64_t i = o - b;
  if (i >= 0 && i < d) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return std::clamp<int64_t>(i, 0, d - 1);
  if (mode == "wrap") return ((i % d) + d) % d;
  // reflect: mirror without repeating the edge; period 2(d-1)
  if (d == 1) return 0;
  int64_t period = 2 * (d - 1);
  i = ((i % period) + period) % period;
  return i < d ? i : period - i;
}

PadGeometry read_pad_geometry(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Attributes& attrs = ctx.node().attrs;
  const int64_t rank = int64_t(x.rank());
  PadGeometry g;
  g.mode = attrs.get_string("mode", "constant");
  VX_CHECK(g.mode == "constant" || g.mode == "reflect" || g.mode == "edge" || g.mode == "wrap", Unsupported,
           node_label(ctx), ": unknown mode '", g.mode, "'");
  const size_t elem = dtype_size(x.dtype());
  std::vector<int64_t> pads;
  g.fill = Tensor(x.dtype(), Shape{});
  if (ctx.has_input(1)) {  // opset 11+
    pads = read_ints(ctx.input(1));
    if (ctx.has_input(2) && ctx.input(2).numel() > 0) g.fill.set(0, ctx.input(2).get(0));
    if (ctx.has_input(2) && ctx.input(2).numel() > 0 && ctx.input(2).dtype() == x.dtype())
      std::memcpy(g.fill.raw(), ctx.input(2).raw(), elem);  // exact, whatever the dtype
  } else {
    pads = attrs.has("pads") ? attrs.get_ints("pads") : attrs.get_ints("paddings");
    g.fill.set(0, attrs.get_float("value", 0.0f));
  }
  std::vector<int64_t> axes;
  if (ctx.has_input(3)) {  // opset 18
    for (int64_t a : read_ints(ctx.input(3))) axes.push_back(normalize_axis(a, rank, ctx));
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  VX_CHECK(pads.size() == 2 * axes.size(), InvalidArgument, node_label(ctx), ": ", pads.size(), " pads for ",
           axes.size(), " axes");
  g.begin.assign(size_t(rank), 0);
  g.dims = x.shape().dims();
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = size_t(axes[i]);
    g.begin[a] = pads[i];
    g.dims[a] = x.dim(a) + pads[i] + pads[i + axes.size()];
    VX_CHECK(g.dims[a] >= 0, InvalidArgument, node_label(ctx), ": pads make axis ", a, " negative");
    VX_CHECK(g.mode == "constant" || x.dim(a) > 0 || g.dims[a] == 0, InvalidArgument, node_label(ctx),
             ": cannot pad an empty axis in mode ", g.mode);
  }
  return g;
}

VX_REGISTER_CPU_KERNEL(tile, {"Tile", "reference", 0, nullptr, tile_kernel});
VX_REGISTER_CPU_KERNEL(pad, {"Pad", "reference", 0, nullptr, pad_kernel});

}  // namespace vx::cpu::ref
