// Reference Gather, GatherElements, GatherND and ReverseSequence. They move bytes, so they work for
// every dtype; indices outside [-extent, extent) are errors.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"

namespace vx::cpu::ref {
namespace {

void gather_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  size_t axis = size_t(normalize_axis(ctx.node().attrs.get_int("axis", 0), int64_t(x.rank()), ctx));
  std::vector<int64_t> idx = read_ints(indices);
  const auto& xd = x.shape().dims();
  std::vector<int64_t> dims(xd.begin(), xd.begin() + ptrdiff_t(axis));
  dims.insert(dims.end(), indices.shape().begin(), indices.shape().end());
  dims.insert(dims.end(), xd.begin() + ptrdiff_t(axis) + 1, xd.end());
  Tensor& y = ctx.output(0, x.dtype(), Shape(dims));
  size_t elem = dtype_size(x.dtype());
  int64_t outer = product(xd, 0, axis), extent = xd[axis];
  size_t inner = size_t(product(xd, axis + 1, xd.size())) * elem;
  for (int64_t& i : idx) i = checked_index(i, extent, ctx);
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(y.raw());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : idx) {
      std::memcpy(dst, src + (o * extent + i) * int64_t(inner), inner);
      dst += inner;
    }
}

void gather_elements_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  int64_t rank = int64_t(x.rank());
  size_t axis = size_t(normalize_axis(ctx.node().attrs.get_int("axis", 0), rank, ctx));
  VX_CHECK(int64_t(indices.rank()) == rank, InvalidArgument, node_label(ctx), ": indices rank ", indices.rank(),
           " differs from data rank ", rank);
  std::vector<int64_t> idx = read_ints(indices);
  Tensor& y = ctx.output(0, x.dtype(), indices.shape());
  std::vector<int64_t> x_strides = strides_of(x.shape()), i_strides = strides_of(indices.shape());
  std::vector<int64_t> coord(static_cast<size_t>(rank));
  size_t elem = dtype_size(x.dtype());
  for (int64_t i = 0; i < int64_t(idx.size()); ++i) {
    unravel(i, i_strides, coord);
    coord[axis] = checked_index(idx[size_t(i)], x.dim(axis), ctx);
    int64_t src = 0;
    for (size_t d = 0; d < size_t(rank); ++d) {
      VX_CHECK(coord[d] < x.dim(d), InvalidArgument, node_label(ctx), ": indices shape ", indices.shape().str(),
               " exceeds data shape ", x.shape().str());
      src += coord[d] * x_strides[d];
    }
    std::memcpy(static_cast<char*>(y.raw()) + i * int64_t(elem), static_cast<const char*>(x.raw()) + src * int64_t(elem),
                elem);
  }
}

void gather_nd_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  int64_t batch = ctx.node().attrs.get_int("batch_dims", 0);
  int64_t r = int64_t(x.rank()), q = int64_t(indices.rank());
  VX_CHECK(q >= 1 && batch >= 0 && batch < std::min(r, q), InvalidArgument, node_label(ctx),
           ": bad batch_dims ", batch, " for ranks ", r, " and ", q);
  int64_t k = indices.dim(size_t(q - 1));
  VX_CHECK(k >= 1 && batch + k <= r, InvalidArgument, node_label(ctx), ": index tuples of length ", k,
           " do not fit data of rank ", r);
  const auto& xd = x.shape().dims();
  const auto& id = indices.shape().dims();
  for (int64_t b = 0; b < batch; ++b)
    VX_CHECK(xd[size_t(b)] == id[size_t(b)], InvalidArgument, node_label(ctx), ": batch extents differ");
  std::vector<int64_t> dims(id.begin(), id.end() - 1);
  dims.insert(dims.end(), xd.begin() + ptrdiff_t(batch + k), xd.end());
  Tensor& y = ctx.output(0, x.dtype(), Shape(dims));
  std::vector<int64_t> idx = read_ints(indices);
  std::vector<int64_t> x_strides = strides_of(x.shape());
  size_t elem = dtype_size(x.dtype());
  int64_t batches = product(xd, 0, size_t(batch));
  int64_t tuples_per_batch = product(id, size_t(batch), id.size() - 1);
  int64_t slice = product(xd, size_t(batch + k), xd.size());
  int64_t batch_stride = batch > 0 ? x_strides[size_t(batch - 1)] : 0;
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(y.raw());
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t t = 0; t < tuples_per_batch; ++t) {
      const int64_t* tuple = idx.data() + (b * tuples_per_batch + t) * k;
      int64_t offset = b * batch_stride;
      for (int64_t j = 0; j < k; ++j)
        offset += checked_index(tuple[j], xd[size_t(batch + j)], ctx) * x_strides[size_t(batch + j)];
      std::memcpy(dst, src + offset * int64_t(elem), size_t(slice) * elem);
      dst += slice * int64_t(elem);
    }
}

void reverse_sequence_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> lens = read_ints(ctx.input(1));
  const Attributes& attrs = ctx.node().attrs;
  int64_t rank = int64_t(x.rank());
  VX_CHECK(rank >= 2, InvalidArgument, node_label(ctx), ": input must have rank >= 2");
  size_t batch_axis = size_t(normalize_axis(attrs.get_int("batch_axis", 1), rank, ctx));
  size_t time_axis = size_t(normalize_axis(attrs.get_int("time_axis", 0), rank, ctx));
  VX_CHECK(batch_axis != time_axis && (batch_axis <= 1 && time_axis <= 1), InvalidArgument, node_label(ctx),
           ": batch_axis and time_axis must be 0 and 1 in some order");
  VX_CHECK(int64_t(lens.size()) == x.dim(batch_axis), InvalidArgument, node_label(ctx), ": ", lens.size(),
           " sequence lengths for a batch of ", x.dim(batch_axis));
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  std::vector<int64_t> strides = strides_of(x.shape());
  size_t block = size_t(strides[1]) * dtype_size(x.dtype());  // everything after the two leading axes
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(y.raw());
  for (int64_t b = 0; b < x.dim(batch_axis); ++b) {
    int64_t len = lens[size_t(b)];
    VX_CHECK(len >= 0 && len <= x.dim(time_axis), InvalidArgument, node_label(ctx), ": sequence length ", len,
             " is out of range");
    for (int64_t t = 0; t < x.dim(time_axis); ++t) {
      int64_t from = t < len ? len - 1 - t : t;
      auto offset = [&](int64_t time) {
        return (batch_axis == 0 ? b * strides[0] + time * strides[1] : time * strides[0] + b * strides[1]) *
               int64_t(dtype_size(x.dtype()));
      };
      std::memcpy(dst + offset(t), src + offset(from), block);
    }
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(gather, {"Gather", "reference", 0, nullptr, gather_kernel});
VX_REGISTER_CPU_KERNEL(gather_elements, {"GatherElements", "reference", 0, nullptr, gather_elements_kernel});
VX_REGISTER_CPU_KERNEL(gather_nd, {"GatherND", "reference", 0, nullptr, gather_nd_kernel});
VX_REGISTER_CPU_KERNEL(reverse_sequence, {"ReverseSequence", "reference", 0, nullptr, reverse_sequence_kernel});

}  // namespace vx::cpu::ref
