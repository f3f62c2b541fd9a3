#include "ops/matmul_shape.h"

#include <algorithm>

#include "core/error.h"

namespace vx {

MatMulShape matmul_shape(const Shape& a_shape, const Shape& b_shape, const std::string& what) {
  VX_CHECK(a_shape.rank() >= 1 && b_shape.rank() >= 1, InvalidArgument, what, ": operands must have rank >= 1, got ",
           a_shape.str(), " and ", b_shape.str());
  std::vector<int64_t> a = a_shape.dims(), b = b_shape.dims();
  const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), 1);
  if (b_vector) b.push_back(1);
  MatMulShape s;
  s.m = a[a.size() - 2];
  s.k = a.back();
  s.n = b.back();
  VX_CHECK(b[b.size() - 2] == s.k, InvalidArgument, what, ": inner extents differ in ", a_shape.str(), " x ",
           b_shape.str());
  const size_t rank = std::max(a.size(), b.size()) - 2;
  std::vector<int64_t> da(rank, 1), db(rank, 1), batch(rank);
  std::copy(a.begin(), a.end() - 2, da.end() - std::ptrdiff_t(a.size() - 2));
  std::copy(b.begin(), b.end() - 2, db.end() - std::ptrdiff_t(b.size() - 2));
  for (size_t d = 0; d < rank; ++d) {
    VX_CHECK(da[d] == db[d] || da[d] == 1 || db[d] == 1, InvalidArgument, what, ": batch extents of ", a_shape.str(),
             " and ", b_shape.str(), " do not broadcast");
    batch[d] = da[d] == 1 ? db[d] : da[d];  // not max: 1 against 0 is 0
  }
  std::vector<int64_t> out = batch;
  if (!a_vector) out.push_back(s.m);
  if (!b_vector) out.push_back(s.n);
  s.a_batch = Shape(std::move(da));
  s.b_batch = Shape(std::move(db));
  s.batch = Shape(std::move(batch));
  s.out = Shape(std::move(out));
  return s;
}

std::vector<std::array<int64_t, 2>> matmul_batch_offsets(const MatMulShape& s) {
  const int64_t batches = s.batch.numel();
  const size_t rank = s.batch.rank();
  std::vector<std::array<int64_t, 2>> offsets;
  offsets.reserve(size_t(batches));
  for (int64_t i = 0; i < batches; ++i) {
    int64_t rest = i, oa = 0, ob = 0, sa = 1, sb = 1;  // sa, sb: batch strides in matrices
    for (size_t d = rank; d-- > 0;) {
      const int64_t c = rest % s.batch[d];
      rest /= s.batch[d];
      if (s.a_batch[d] != 1) oa += c * sa;
      if (s.b_batch[d] != 1) ob += c * sb;
      sa *= s.a_batch[d];
      sb *= s.b_batch[d];
    }
    offsets.push_back({oa * s.m * s.k, ob * s.k * s.n});
  }
  return offsets;
}

GemmShape gemm_shape(const Shape& a, const Shape& b, const Attributes& attrs, const std::string& what) {
  VX_CHECK(a.rank() == 2 && b.rank() == 2, InvalidArgument, what, ": operands must be matrices, got ", a.str(), " and ",
           b.str());
  GemmShape s;
  s.trans_a = attrs.get_int("transA", 0) != 0;
  s.trans_b = attrs.get_int("transB", 0) != 0;
  s.m = s.trans_a ? a[1] : a[0];
  s.k = s.trans_a ? a[0] : a[1];
  const int64_t kb = s.trans_b ? b[1] : b[0];
  s.n = s.trans_b ? b[0] : b[1];
  VX_CHECK(s.k == kb, InvalidArgument, what, ": inner extents of A ", a.str(), " and B ", b.str(), " differ (", s.k,
           " vs ", kb, ")");
  return s;
}

}  // namespace vx
