// TfIdfVectorizer on Vulkan (tfidf.comp) for integer pools: the pool's n-grams become a
// constant table (length, output column, tokens) and every output element counts its n-grams in
// its row. Semantics as the CPU reference (unigrams counted once, not per skip distance). String
// pools, tokens beyond int32 and pools that repeat an n-gram stay on the CPU.
#include <algorithm>
#include <limits>
#include <map>

#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct TfIdfPush {
  uint32_t count = 0;
  int32_t cols = 0, width = 0, min_n = 1, max_n = 1, max_skip = 0, mode = 0;
};

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> out(std::max<size_t>(v.size(), 1) * sizeof(T), 0);
  if (!v.empty()) std::memcpy(out.data(), v.data(), v.size() * sizeof(T));
  return out;
}

OpPlan plan_tfidf(const OpInfo& info) {
  require_inputs(info, 1);
  const Attributes& at = info.node.attrs;
  const OpTensor& x = info.inputs[0];
  const OpTensor& y = info.outputs[0];
  VX_CHECK(!at.has("pool_strings") && x.device == DeviceType::i32, Unsupported, label(info),
           ": integer pools only");
  VX_CHECK(x.shape.rank() == 1 || x.shape.rank() == 2, InvalidArgument, label(info), ": X must be 1-D or 2-D");
  const std::vector<int64_t> pool = at.get_ints("pool_int64s");
  const std::vector<int64_t> counts = at.get_ints("ngram_counts");
  const std::vector<int64_t> indexes = at.get_ints("ngram_indexes");
  const std::vector<float> weights = at.get_floats("weights");
  const std::string mode = at.get_string("mode", "TF");
  TfIdfPush push;
  push.min_n = int32_t(at.get_int("min_gram_length", 1));
  push.max_n = int32_t(at.get_int("max_gram_length", 1));
  push.max_skip = int32_t(at.get_int("max_skip_count", 0));
  VX_CHECK(mode == "TF" || mode == "IDF" || mode == "TFIDF", InvalidArgument, label(info), ": mode '", mode, "'");
  push.mode = mode == "TF" ? 0 : mode == "IDF" ? 1 : 2;
  VX_CHECK(push.min_n >= 1 && push.max_n >= push.min_n && push.max_skip >= 0 && !indexes.empty(), InvalidArgument,
           label(info), ": bad gram lengths, skip count or ngram_indexes");
  VX_CHECK(weights.empty() || weights.size() == indexes.size(), InvalidArgument, label(info), ": ",
           weights.size(), " weights for ", indexes.size(), " n-grams");
  std::vector<int32_t> entries, tokens;
  std::map<std::vector<int64_t>, int> seen;
  size_t gram = 0;
  for (size_t level = 0; level < counts.size(); ++level) {
    const int64_t n = int64_t(level) + 1;
    const int64_t begin = counts[level], end = level + 1 < counts.size() ? counts[level + 1] : int64_t(pool.size());
    VX_CHECK(begin >= 0 && begin <= end && end <= int64_t(pool.size()) && (end - begin) % n == 0, InvalidArgument,
             label(info), ": ngram_counts do not fit the pool");
    for (int64_t p = begin; p < end; p += n, ++gram) {
      VX_CHECK(gram < indexes.size() && indexes[gram] >= 0, InvalidArgument, label(info), ": bad ngram_indexes");
      std::vector<int64_t> key(pool.begin() + p, pool.begin() + p + n);
      VX_CHECK(seen.emplace(key, 1).second, Unsupported, label(info), ": the pool repeats an n-gram");
      entries.insert(entries.end(), {int32_t(n), int32_t(indexes[gram]), int32_t(tokens.size())});
      for (int64_t v : key) {
        VX_CHECK(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(), Unsupported,
                 label(info), ": pool token ", v, " exceeds int32");
        tokens.push_back(int32_t(v));
      }
    }
  }
  const int64_t width = *std::max_element(indexes.begin(), indexes.end()) + 1;
  std::vector<float> column_weight(size_t(width), 1.0f);
  for (size_t g = 0; g < weights.size(); ++g) column_weight[size_t(indexes[g])] = weights[g];
  const int64_t rows = x.shape.rank() == 2 ? x.shape[0] : 1;
  push.cols = int32_t(x.shape.rank() == 2 ? x.shape[1] : x.shape[0]);
  push.width = int32_t(width);
  VX_CHECK(y.shape.numel() == rows * width && is_float(y.dtype), InvalidArgument, label(info), ": output shape ",
           y.shape.str());
  push.count = checked_count32(info, rows * width);
  std::vector<int32_t> table = {int32_t(entries.size() / 3)};
  table.insert(table.end(), entries.begin(), entries.end());
  table.insert(table.end(), tokens.begin(), tokens.end());
  OpPlan plan;
  plan.constants.push_back(bytes_of(table));
  plan.constants.push_back(bytes_of(column_weight));
  plan.dispatches.push_back(make_dispatch(shader_variant("tfidf", {y.device}),
                                          {Binding::in(0), Binding::constant_blob(0), Binding::constant_blob(1),
                                           Binding::out(0)},
                                          push, push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(tfidf_vectorizer, {"TfIdfVectorizer", "", 0, plan_tfidf});

}  // namespace vx::vk
