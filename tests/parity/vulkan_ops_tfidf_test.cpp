// The Vulkan TfIdfVectorizer against the CPU reference kernel on lavapipe with validation on:
// TF / IDF / TFIDF, unigrams and bigrams, skips, 1-D and 2-D inputs, int32 and int64 tokens.
// Counts are exact; weighted outputs fp32 |d| <= 1e-6 + 1e-5 |ref|, fp16 |d| <= 1e-3 + 1e-2 |ref|.
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanTfIdf : public VulkanOpTest {};

Tensor tokens(Shape shape, uint64_t seed, DType dtype) {
  Tensor f = random_tensor(shape, seed, 1.0f, 8.999f);
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, std::floor(f.get(i)));
  return t;
}

TEST_F(VulkanTfIdf, ModesGramsAndSkips) {
  uint64_t seed = 1;
  for (const char* mode : {"TF", "IDF", "TFIDF"})
    for (int64_t min_n : {1, 2})
      for (int64_t max_skip : {0, 3})
        for (Shape s : {Shape{17}, Shape{3, 11}}) {
          Attributes a;
          a.set("mode", std::string(mode));
          a.set("min_gram_length", min_n);
          a.set("max_gram_length", int64_t(2));
          a.set("max_skip_count", max_skip);
          a.set("ngram_counts", std::vector<int64_t>{0, 4});
          a.set("ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6});
          a.set("pool_int64s", std::vector<int64_t>{2, 3, 5, 4, 5, 6, 7, 8, 6, 7});
          if (std::string(mode) != "TF") a.set("weights", std::vector<float>{0.5f, 1.5f, 2.0f, 0.25f, 3.0f, 1.0f, 0.75f});
          const DType token_type = seed % 2 ? DType::i32 : DType::i64;  // both index types
          auto c = single_node("TfIdfVectorizer", {input(tokens(s, seed, token_type))}, 1, a, 9);
          ++seed;
          const std::string what = cat("TfIdf ", mode, " min ", min_n, " skip ", max_skip, " ", s.str());
          expect_matches_cpu(c, Precision::fp32, {-1, -1}, false, what);
          expect_matches_cpu(c, Precision::fp16, {-1, -1}, false, what);
        }
}

}  // namespace
}  // namespace vx::test
