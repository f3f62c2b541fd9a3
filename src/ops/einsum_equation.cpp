#include "ops/einsum_equation.h"

#include <algorithm>
#include <map>

#include "core/error.h"

namespace vx {

namespace {

// One operand's (or the output's) subscripts; the ellipsis is expanded once the ranks are known.
struct EinsumTerm {
  std::vector<int> labels;
  bool has_ellipsis = false;
  size_t ellipsis_at = 0;  // index in `labels` where the ellipsis starts
};

EinsumTerm parse_einsum_term(const std::string& s, const std::string& what) {
  EinsumTerm t;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      VX_CHECK(!t.has_ellipsis && s.compare(i, 3, "...") == 0, InvalidArgument, what, ": malformed ellipsis in '", s,
               "'");
      t.has_ellipsis = true;
      t.ellipsis_at = t.labels.size();
      i += 2;
    } else {
      VX_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'), InvalidArgument, what, ": bad label '", c,
               "' in the equation");
      t.labels.push_back(c);
    }
  }
  return t;
}

// Replaces the ellipsis by `count` labels for the last `count` of the `total` broadcast axes.
void expand_einsum_ellipsis(EinsumTerm& t, size_t count, size_t total) {
  if (!t.has_ellipsis) return;
  std::vector<int> e;
  for (size_t k = total - count; k < total; ++k) e.push_back(kEinsumEllipsis + int(k));
  t.labels.insert(t.labels.begin() + std::ptrdiff_t(t.ellipsis_at), e.begin(), e.end());
}

}  // namespace

Shape EinsumEquation::output_shape() const {
  return Shape(std::vector<int64_t>(extents.begin(), extents.begin() + std::ptrdiff_t(output_rank)));
}

int64_t EinsumEquation::summed_count() const {
  int64_t n = 1;
  for (size_t k = output_rank; k < extents.size(); ++k) n *= extents[k];
  return n;
}

EinsumEquation parse_einsum_equation(const std::string& equation, const std::vector<Shape>& operands,
                                     const std::string& what) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<EinsumTerm> terms;
  for (size_t begin = 0;;) {
    const size_t comma = lhs.find(',', begin);
    terms.push_back(
        parse_einsum_term(lhs.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin), what));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  VX_CHECK(terms.size() == operands.size(), InvalidArgument, what, ": the equation '", eq, "' names ", terms.size(),
           " operands but the node has ", operands.size(), " inputs");

  // Ellipsis extents: right-aligned broadcast across operands.
  size_t ellipsis_rank = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const size_t rank = operands[i].rank();
    VX_CHECK(terms[i].has_ellipsis ? rank >= terms[i].labels.size() : rank == terms[i].labels.size(),
             InvalidArgument, what, ": operand ", i, " has rank ", rank, ", which does not fit the equation '", eq,
             "'");
    if (terms[i].has_ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - terms[i].labels.size());
  }
  std::map<int, int64_t> extent;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Shape& s = operands[i];
    expand_einsum_ellipsis(terms[i], s.rank() - terms[i].labels.size(), ellipsis_rank);
    for (size_t d = 0; d < s.rank(); ++d) {
      const int l = terms[i].labels[d];
      auto [it, fresh] = extent.emplace(l, s[d]);
      if (fresh || it->second == s[d]) continue;
      // Ellipsis axes broadcast; letters must agree.
      VX_CHECK(l >= kEinsumEllipsis && (it->second == 1 || s[d] == 1), InvalidArgument, what,
               ": label extents disagree (", it->second, " vs ", s[d], ")");
      it->second = std::max(it->second, s[d]);
    }
  }

  EinsumEquation r;
  if (arrow != std::string::npos) {
    EinsumTerm out = parse_einsum_term(eq.substr(arrow + 2), what);
    expand_einsum_ellipsis(out, ellipsis_rank, ellipsis_rank);
    r.labels = out.labels;
  } else {  // implicit: ellipsis axes, then letters that occur once, in alphabetical order
    for (size_t k = 0; k < ellipsis_rank; ++k) r.labels.push_back(kEinsumEllipsis + int(k));
    std::map<int, int> count;
    for (const EinsumTerm& t : terms)
      for (int l : t.labels)
        if (l < kEinsumEllipsis) ++count[l];
    for (auto [l, c] : count)
      if (c == 1) r.labels.push_back(l);
  }
  for (int l : r.labels)
    VX_CHECK(extent.count(l), InvalidArgument, what, ": output label '", char(l), "' is in no operand");
  r.output_rank = r.labels.size();
  for (auto [l, e] : extent)
    if (std::find(r.labels.begin(), r.labels.end(), l) == r.labels.end()) r.labels.push_back(l);
  for (int l : r.labels) r.extents.push_back(extent[l]);

  r.strides.assign(terms.size(), std::vector<int64_t>(r.labels.size(), 0));
  for (size_t i = 0; i < terms.size(); ++i) {
    const Shape& s = operands[i];
    int64_t stride = 1;
    for (size_t d = s.rank(); d-- > 0; stride *= s[d]) {
      if (s[d] == 1 && extent[terms[i].labels[d]] != 1) continue;  // broadcast
      const size_t k = size_t(std::find(r.labels.begin(), r.labels.end(), terms[i].labels[d]) - r.labels.begin());
      r.strides[i][k] += stride;
    }
  }
  return r;
}

}  // namespace vx
