// Reference kernel for Einsum: one generic contraction. Every label (a letter, or one axis of an
// ellipsis) gets an extent; the output's labels are iterated, and for each output element the
// product of the inputs is summed over the remaining labels. Repeated labels within one operand
// (diagonals), ellipsis broadcasting and the implicit output form (labels seen once, sorted, after
// the ellipsis) follow NumPy. Accumulates in double.
#include <algorithm>
#include <map>
#include <string>

#include "backends/cpu/reference/onnx_math_util.h"

namespace vx::cpu::math {
namespace {

constexpr int kEllipsisBase = 1000;  // label ids for ellipsis axes: kEllipsisBase + position

struct Term {
  std::vector<int> labels;  // letters as their char code; ellipsis axes as kEllipsisBase + k
  bool has_ellipsis = false;
  size_t ellipsis_at = 0;  // index in `labels` where the ellipsis starts (parsing only)
};

// Parses one operand's subscripts; the ellipsis is expanded once the operand's rank is known.
Term parse_term(const std::string& s, const KernelContext& ctx) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      VX_CHECK(!t.has_ellipsis && s.compare(i, 3, "...") == 0, InvalidArgument, label(ctx),
               ": malformed ellipsis in '", s, "'");
      t.has_ellipsis = true;
      t.ellipsis_at = t.labels.size();
      i += 2;
    } else {
      VX_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'), InvalidArgument, label(ctx), ": bad label '", c,
               "' in the equation");
      t.labels.push_back(c);
    }
  }
  return t;
}

// Replaces the ellipsis by `count` labels for the last `count` of the `total` broadcast axes.
void expand_ellipsis(Term& t, size_t count, size_t total) {
  if (!t.has_ellipsis) return;
  std::vector<int> e;
  for (size_t k = total - count; k < total; ++k) e.push_back(kEllipsisBase + int(k));
  t.labels.insert(t.labels.begin() + std::ptrdiff_t(t.ellipsis_at), e.begin(), e.end());
}

void einsum_kernel(KernelContext& ctx) {
  std::string eq;
  for (char c : ctx.node().attrs.get_string("equation", "")) if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t begin = 0;;) {
    size_t comma = lhs.find(',', begin);
    terms.push_back(parse_term(lhs.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin), ctx));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  VX_CHECK(terms.size() == ctx.num_inputs(), InvalidArgument, label(ctx), ": the equation '", eq, "' names ",
           terms.size(), " operands but the node has ", ctx.num_inputs(), " inputs");
  const DType dtype = ctx.input(0).dtype();

  // Ellipsis extents: right-aligned broadcast across operands.
  size_t ellipsis_rank = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const size_t rank = ctx.input(i).rank();
    VX_CHECK(ctx.input(i).dtype() == dtype, InvalidArgument, label(ctx), ": operands differ in type");
    VX_CHECK(terms[i].has_ellipsis ? rank >= terms[i].labels.size() : rank == terms[i].labels.size(),
             InvalidArgument, label(ctx), ": operand ", i, " has rank ", rank, ", which does not fit the equation '",
             eq, "'");
    if (terms[i].has_ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - terms[i].labels.size());
  }
  std::map<int, int64_t> extent;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Tensor& x = ctx.input(i);
    expand_ellipsis(terms[i], x.rank() - terms[i].labels.size(), ellipsis_rank);
    for (size_t d = 0; d < x.rank(); ++d) {
      int l = terms[i].labels[d];
      auto [it, fresh] = extent.emplace(l, x.dim(d));
      if (fresh || it->second == x.dim(d)) continue;
      // Ellipsis axes broadcast; letters must agree.
      VX_CHECK(l >= kEllipsisBase && (it->second == 1 || x.dim(d) == 1), InvalidArgument, label(ctx),
               ": label extents disagree (", it->second, " vs ", x.dim(d), ")");
      it->second = std::max(it->second, x.dim(d));
    }
  }

  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    Term out = parse_term(eq.substr(arrow + 2), ctx);
    expand_ellipsis(out, ellipsis_rank, ellipsis_rank);
    out_labels = out.labels;
  } else {  // implicit: ellipsis axes, then letters that occur once, in alphabetical order
    for (size_t k = 0; k < ellipsis_rank; ++k) out_labels.push_back(kEllipsisBase + int(k));
    std::map<int, int> count;
    for (const Term& t : terms)
      for (int l : t.labels) if (l < kEllipsisBase) ++count[l];
    for (auto [l, c] : count) if (c == 1) out_labels.push_back(l);
  }
  for (int l : out_labels)
    VX_CHECK(extent.count(l), InvalidArgument, label(ctx), ": output label '", char(l), "' is in no operand");

  // All labels: output first, then the summed ones.
  std::vector<int> all = out_labels;
  for (auto [l, e] : extent)
    if (std::find(all.begin(), all.end(), l) == all.end()) all.push_back(l);
  std::vector<int64_t> dims;
  for (int l : all) dims.push_back(extent[l]);
  std::vector<int64_t> out_dims(dims.begin(), dims.begin() + std::ptrdiff_t(out_labels.size()));
  int64_t summed = 1;
  for (size_t k = out_labels.size(); k < all.size(); ++k) summed *= dims[k];

  // Per operand, the element stride of each label (summed over repeats; 0 where broadcast).
  std::vector<std::vector<int64_t>> strides(terms.size(), std::vector<int64_t>(all.size(), 0));
  for (size_t i = 0; i < terms.size(); ++i) {
    std::vector<int64_t> s = contiguous_strides(ctx.input(i).shape());
    for (size_t d = 0; d < terms[i].labels.size(); ++d) {
      if (ctx.input(i).dim(d) == 1 && extent[terms[i].labels[d]] != 1) continue;
      size_t k = size_t(std::find(all.begin(), all.end(), terms[i].labels[d]) - all.begin());
      strides[i][k] += s[d];
    }
  }

  Tensor& y = ctx.output(0, dtype, Shape(out_dims));
  const int64_t total = Shape(dims).numel();
  std::vector<double> acc(size_t(y.numel()), 0.0);
  std::vector<const Tensor*> in;
  for (size_t i = 0; i < terms.size(); ++i) in.push_back(&ctx.input(i));
  dispatch<kNumeric>(dtype, ctx, [&](auto t) {
    using T = decltype(t);
    std::vector<const T*> p;
    for (const Tensor* x : in) p.push_back(x->data<T>());
    std::vector<int64_t> index(all.size(), 0), offset(terms.size(), 0);
    for (int64_t linear = 0; linear < total; ++linear) {
      double prod = 1;
      for (size_t i = 0; i < p.size(); ++i) prod *= double(p[i][offset[i]]);
      acc[size_t(linear / summed)] += prod;
      for (size_t k = all.size(); k-- > 0;) {  // odometer
        ++index[k];
        for (size_t i = 0; i < p.size(); ++i) offset[i] += strides[i][k];
        if (index[k] < dims[k]) break;
        for (size_t i = 0; i < p.size(); ++i) offset[i] -= strides[i][k] * index[k];
        index[k] = 0;
      }
    }
    T* out = y.data<T>();
    for (size_t i = 0; i < acc.size(); ++i) out[i] = T(acc[i]);
  });
}

}  // namespace

VX_REGISTER_CPU_KERNEL(einsum, {"Einsum", "reference", 0, nullptr, with_f16_as_f32(einsum_kernel)});

}  // namespace vx::cpu::math
