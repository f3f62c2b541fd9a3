// TfIdfVectorizer: every mode, unigrams and bigrams, skips, 1-D and 2-D token tensors of int32 and
// int64.
#include <cmath>

#include "common/test_util.h"
#include "ops/op_table.h"

namespace vx::optable {

VX_OP_CASES(tfidf) {
  // Tokens 1..8: most n-grams of the pool occur, some repeatedly.
  const auto tokens = [](Shape shape, DType dtype) {
    return custom(std::move(shape), dtype, [](const Shape& sh, DType dt, uint64_t seed) {
      Tensor f = test::random_tensor(sh, seed, 1.0f, 8.999f);
      Tensor t(dt, sh);
      for (int64_t i = 0; i < t.numel(); ++i) t.set(i, std::floor(f.get(i)));
      return t;
    });
  };
  std::vector<Variant> inputs;
  for (DType t : {DType::i32, DType::i64})
    for (Shape s : {Shape{17}, Shape{3, 11}})
      inputs.push_back(inputs_variant(cat(s.str(), "_", dtype_name(t)), {tokens(s, t)}));
  cases.add(OpCase("TfIdfVectorizer", "modes_grams_skips")
                .opset(9)
                .attr("max_gram_length", int64_t(2))
                .attr("ngram_counts", std::vector<int64_t>{0, 4})
                .attr("ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6})
                .attr("pool_int64s", std::vector<int64_t>{2, 3, 5, 4, 5, 6, 7, 8, 6, 7})
                .variants({{"TF", [](OpCase& v) { v.attr("mode", std::string("TF")); }},
                           {"IDF", [](OpCase& v) {
                              v.attr("mode", std::string("IDF")).attr("weights", std::vector<float>{0.5f, 1.5f, 2.0f, 0.25f, 3.0f, 1.0f, 0.75f});
                            }},
                           {"TFIDF", [](OpCase& v) {
                              v.attr("mode", std::string("TFIDF")).attr("weights", std::vector<float>{0.5f, 1.5f, 2.0f, 0.25f, 3.0f, 1.0f, 0.75f});
                            }}})
                .sweep("min_gram_length", {int64_t(1), int64_t(2)})
                .sweep("max_skip_count", {int64_t(0), int64_t(3)})
                .variants(std::move(inputs)));
}

}  // namespace vx::optable
