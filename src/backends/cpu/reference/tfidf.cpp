// TfIdfVectorizer (opset 9): counts the n-grams of the pool (pool_int64s; strings are not
// supported) in each row of X, with skips of up to max_skip_count between items, and weighs them
// (TF: counts, IDF: weight when present, TFIDF: count * weight). Unigrams are counted once, not
// once per skip distance, as in ONNX Runtime and the reference implementation.
#include <algorithm>
#include <map>
#include <vector>

#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::ref {
namespace {

void tfidf_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "TfIdfVectorizer '" + node.name + "'";
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() == 1 || x.rank() == 2, InvalidArgument, what, ": X must be 1-D or 2-D, not ", x.shape().str());
  VX_CHECK(!node.attrs.has("pool_strings"), Unsupported, what, ": string pools are not supported");
  const std::vector<int64_t> pool = node.attrs.get_ints("pool_int64s");
  const std::vector<int64_t> counts = node.attrs.get_ints("ngram_counts");
  const std::vector<int64_t> indexes = node.attrs.get_ints("ngram_indexes");
  const std::vector<float> weights = node.attrs.get_floats("weights");
  const std::string mode = node.attrs.get_string("mode", "TF");
  const int64_t min_n = node.attrs.get_int("min_gram_length", 1), max_n = node.attrs.get_int("max_gram_length", 1);
  const int64_t max_skip = node.attrs.get_int("max_skip_count", 0);
  VX_CHECK(mode == "TF" || mode == "IDF" || mode == "TFIDF", InvalidArgument, what, ": mode '", mode, "'");
  VX_CHECK(min_n >= 1 && max_n >= min_n && max_skip >= 0 && !indexes.empty(), InvalidArgument, what,
           ": bad gram lengths, skip count or ngram_indexes");
  VX_CHECK(weights.empty() || weights.size() == indexes.size(), InvalidArgument, what, ": ", weights.size(),
           " weights for ", indexes.size(), " n-grams");
  // The pool's n-grams of each length -> output column.
  std::map<std::vector<int64_t>, int64_t> column;
  size_t gram = 0;
  for (size_t level = 0; level < counts.size(); ++level) {
    const int64_t n = int64_t(level) + 1;
    const int64_t begin = counts[level], end = level + 1 < counts.size() ? counts[level + 1] : int64_t(pool.size());
    VX_CHECK(begin >= 0 && begin <= end && end <= int64_t(pool.size()) && (end - begin) % n == 0, InvalidArgument,
             what, ": ngram_counts do not fit the pool");
    for (int64_t p = begin; p < end; p += n, ++gram) {
      VX_CHECK(gram < indexes.size(), InvalidArgument, what, ": more pool n-grams than ngram_indexes");
      column[std::vector<int64_t>(pool.begin() + p, pool.begin() + p + n)] = indexes[gram];
    }
  }
  const int64_t width = *std::max_element(indexes.begin(), indexes.end()) + 1;
  std::vector<float> gram_weight(static_cast<size_t>(width), 1.0f);
  for (size_t g = 0; g < weights.size(); ++g) gram_weight[size_t(indexes[g])] = weights[g];
  const int64_t rows = x.rank() == 2 ? x.dim(0) : 1, cols = x.rank() == 2 ? x.dim(1) : x.dim(0);
  Tensor& y = ctx.output(0, DType::f32, x.rank() == 2 ? Shape({rows, width}) : Shape({width}));
  float* out = y.data<float>();
  std::fill_n(out, y.numel(), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> tf(static_cast<size_t>(width), 0.0);
    for (int64_t distance = 1; distance <= max_skip + 1; ++distance)
      for (int64_t s = 0; s < cols; ++s)
        for (int64_t n = std::max<int64_t>(min_n, distance > 1 ? 2 : 1); n <= max_n; ++n) {
          if (s + (n - 1) * distance >= cols) break;
          std::vector<int64_t> key;
          for (int64_t k = 0; k < n; ++k) key.push_back(int64_t(x.get(r * cols + s + k * distance)));
          auto it = column.find(key);
          if (it != column.end()) tf[size_t(it->second)] += 1;
        }
    for (int64_t c = 0; c < width; ++c) {
      const double t = tf[size_t(c)];
      out[r * width + c] = float(mode == "TF" ? t : mode == "IDF" ? (t > 0 ? gram_weight[size_t(c)] : 0.0)
                                                                  : t * gram_weight[size_t(c)]);
    }
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(tfidf_reference, {"TfIdfVectorizer", "reference", 0, nullptr, tfidf_kernel});

}  // namespace vx::cpu::ref
