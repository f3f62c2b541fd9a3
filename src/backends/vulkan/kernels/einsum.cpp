// Einsum on Vulkan (einsum.comp): the equation is parsed when planning into a label table
// (extents, per-operand strides); the shader runs one invocation per output element and sums the
// product of the operands over the remaining labels. NumPy semantics as the CPU reference:
// repeated labels in one operand walk diagonals, ellipses broadcast right-aligned, the implicit
// output is the ellipsis axes then the letters seen once, sorted. Floats only, up to 4 operands.
#include <algorithm>
#include <cstring>
#include <map>

#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

constexpr int kEllipsisBase = 1000;  // label ids of ellipsis axes: kEllipsisBase + position
constexpr size_t kMaxOperands = 4;

struct EinsumPush {
  uint32_t count = 0;
  int32_t operands = 0, out_labels = 0, labels = 0;
  uint32_t summed = 1;
};

struct Term {
  std::vector<int> labels;
  bool has_ellipsis = false;
  size_t ellipsis_at = 0;
};

Term parse_term(const OpInfo& info, const std::string& s) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      VX_CHECK(!t.has_ellipsis && s.compare(i, 3, "...") == 0, InvalidArgument, label(info),
               ": malformed ellipsis in '", s, "'");
      t.has_ellipsis = true;
      t.ellipsis_at = t.labels.size();
      i += 2;
    } else {
      VX_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'), InvalidArgument, label(info), ": bad label '",
               c, "'");
      t.labels.push_back(c);
    }
  }
  return t;
}

void expand_ellipsis(Term& t, size_t count, size_t total) {
  if (!t.has_ellipsis) return;
  std::vector<int> e;
  for (size_t k = total - count; k < total; ++k) e.push_back(kEllipsisBase + int(k));
  t.labels.insert(t.labels.begin() + std::ptrdiff_t(t.ellipsis_at), e.begin(), e.end());
}

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.rank(), 1);
  for (size_t d = s.rank(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

OpPlan plan_einsum(const OpInfo& info) {
  std::string eq;
  for (char c : info.node.attrs.get_string("equation", "")) if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t begin = 0;;) {
    const size_t comma = lhs.find(',', begin);
    terms.push_back(parse_term(info, lhs.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin)));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  const size_t n = terms.size();
  VX_CHECK(n == info.inputs.size(), InvalidArgument, label(info), ": the equation names ", n,
           " operands for ", info.inputs.size(), " inputs");
  VX_CHECK(n <= kMaxOperands, Unsupported, label(info), ": ", n, " operands (at most ", kMaxOperands, ")");
  require_inputs(info, n);
  const OpTensor& y = info.outputs[0];
  size_t ellipsis_rank = 0;
  for (size_t i = 0; i < n; ++i) {
    const OpTensor& x = info.inputs[i];
    VX_CHECK(is_float(x.dtype) && x.device == y.device, Unsupported, label(info), ": floats only");
    const size_t rank = x.shape.rank();
    VX_CHECK(terms[i].has_ellipsis ? rank >= terms[i].labels.size() : rank == terms[i].labels.size(), InvalidArgument,
             label(info), ": operand ", i, " of rank ", rank, " does not fit '", eq, "'");
    if (terms[i].has_ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - terms[i].labels.size());
  }
  std::map<int, int64_t> extent;
  for (size_t i = 0; i < n; ++i) {
    const Shape& s = info.inputs[i].shape;
    expand_ellipsis(terms[i], s.rank() - terms[i].labels.size(), ellipsis_rank);
    for (size_t d = 0; d < s.rank(); ++d) {
      auto [it, fresh] = extent.emplace(terms[i].labels[d], s[d]);
      if (fresh || it->second == s[d]) continue;
      VX_CHECK(terms[i].labels[d] >= kEllipsisBase && (it->second == 1 || s[d] == 1), InvalidArgument,
               label(info), ": label extents disagree (", it->second, " vs ", s[d], ")");
      it->second = std::max(it->second, s[d]);
    }
  }
  std::vector<int> all;
  if (arrow != std::string::npos) {
    Term out = parse_term(info, eq.substr(arrow + 2));
    expand_ellipsis(out, ellipsis_rank, ellipsis_rank);
    all = out.labels;
  } else {
    for (size_t k = 0; k < ellipsis_rank; ++k) all.push_back(kEllipsisBase + int(k));
    std::map<int, int> seen;
    for (const Term& t : terms)
      for (int l : t.labels) if (l < kEllipsisBase) ++seen[l];
    for (auto [l, c] : seen) if (c == 1) all.push_back(l);
  }
  const size_t out_labels = all.size();
  for (int l : all) VX_CHECK(extent.count(l), InvalidArgument, label(info), ": an output label is in no operand");
  for (auto [l, e] : extent)
    if (std::find(all.begin(), all.end(), l) == all.end()) all.push_back(l);
  const size_t labels = all.size();

  std::vector<int32_t> table(labels * (1 + n), 0);
  int64_t out_count = 1, summed = 1;
  for (size_t k = 0; k < labels; ++k) {
    const int64_t e = extent[all[k]];
    table[k] = int32_t(std::max<int64_t>(e, 1));
    (k < out_labels ? out_count : summed) *= e;
  }
  VX_CHECK(out_count == y.shape.numel(), InvalidArgument, label(info), ": output shape ", y.shape.str(),
           " does not match the equation");
  for (size_t i = 0; i < n; ++i) {
    const Shape& s = info.inputs[i].shape;
    checked_count32(info, s.numel());
    const std::vector<int64_t> st = strides_of(s);
    for (size_t d = 0; d < s.rank(); ++d) {
      if (s[d] == 1 && extent[terms[i].labels[d]] != 1) continue;
      const size_t k = size_t(std::find(all.begin(), all.end(), terms[i].labels[d]) - all.begin());
      table[labels * (1 + i) + k] += int32_t(st[d]);
    }
  }
  EinsumPush push;
  push.count = checked_count32(info, out_count);
  push.operands = int32_t(n);
  push.out_labels = int32_t(out_labels);
  push.labels = int32_t(labels);
  push.summed = checked_count32(info, summed);
  OpPlan plan;
  std::vector<uint8_t> blob(std::max<size_t>(table.size(), 1) * sizeof(int32_t), 0);
  std::memcpy(blob.data(), table.data(), blob.size());
  plan.constants.push_back(std::move(blob));
  std::vector<Binding> bindings;
  for (size_t i = 0; i < kMaxOperands; ++i) bindings.push_back(Binding::in(int(i < n ? i : 0)));
  bindings.push_back(Binding::constant_blob(0));
  bindings.push_back(Binding::out(0));
  plan.dispatches.push_back(make_dispatch(cat("einsum.", letter(y.device)), bindings, push, push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(einsum, {"Einsum", "", 0, plan_einsum});

}  // namespace vx::vk
