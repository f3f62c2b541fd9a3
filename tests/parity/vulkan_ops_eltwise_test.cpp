// The Vulkan element-wise family against the CPU reference kernels on lavapipe, with the
// validation layer on (any message fails): odd shapes (1x3x5x7 with 3x1x7, scalars, rank 0 and 1,
// rank 6), fp32 and fp16 storage, integer and bool types; Gelu / vx.Gelu, Erf across its range and
// the fast paths of the binary float ops (eltwise_fast.comp).
//
// Tolerances (vulkan_op_test_util.h): fp32 |d| <= 1e-6 + 1e-5 |ref|; fp16 storage (fp32 math)
// |d| <= 1e-3 + 1e-2 |ref| against the CPU on fp16-rounded inputs; integers and bools exact.
// Sin/Cos/Tan: Vulkan allows them an absolute error of 2^-11; lavapipe does far better, and we
// hold them to 1e-5 absolute.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/vulkan/vk_common.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "ops/fused_ops.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanEltwise : public VulkanOpTest {};

Tensor bools(Shape shape, uint64_t seed) { return test::random_int_tensor(shape, seed, 0, 1, DType::boolean); }

TEST_F(VulkanEltwise, AddBroadcastsAtOddShapes) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {Shape{1, 3, 5, 7}, Shape{3, 1, 7}}, {Shape{2, 3, 4}, Shape{}},    {Shape{}, Shape{}},
      {Shape{5}, Shape{1}},                {Shape{4, 1}, Shape{1, 6}},   {Shape{2, 1, 3, 1, 2, 3}, Shape{5, 2, 1}},
      {Shape{1, 1, 1}, Shape{3, 1}},       {Shape{0, 3}, Shape{1, 3}}};
  uint64_t seed = 1;
  for (const auto& [a, b] : shapes)
    for (Precision p : {Precision::fp32, Precision::fp16})
      expect_matches_cpu(single_node("Add", {input(random_tensor(a, seed++)), input(random_tensor(b, seed++))}), p, {-1, -1},
                         false, cat("Add ", a.str(), " + ", b.str()));
}

TEST_F(VulkanEltwise, BinaryFloatOps) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Min", "Max", "Pow", "Mod", "PRelu"}) {
    for (Precision p : {Precision::fp32, Precision::fp16}) {
      Tensor a = random_tensor(Shape{1, 3, 5, 7}, 11, -3, 3);
      Tensor b = random_tensor(Shape{3, 1, 7}, 12, 0.5f, 2);  // positive: Pow of negatives needs integer exponents
      Attributes attrs;
      if (std::string(op) == "Mod") attrs.set("fmod", int64_t(1));
      expect_matches_cpu(single_node(op, {input(a), input(b)}, 1, attrs), p);
      if (std::string(op) != "Pow" && std::string(op) != "PRelu") {
        Tensor c = random_tensor(Shape{7}, 13, -2, 2);
        expect_matches_cpu(single_node(op, {input(a), constant(c)}, 1, attrs), p, {-1, -1}, false, cat(op, " const"));
      }
    }
  }
}

TEST_F(VulkanEltwise, ModFollowsTheDivisorsSign) {
  Tensor a = random_tensor(Shape{4, 9}, 21, -10, 10), b = random_tensor(Shape{9}, 22, -4, 4);
  expect_matches_cpu(single_node("Mod", {input(a), input(b)}), Precision::fp32);
  Tensor ia = test::random_int_tensor(Shape{4, 9}, 23, -20, 20, DType::i32), ib = test::random_int_tensor(Shape{9}, 24, -5, 5, DType::i32);
  for (Attributes attrs : {Attributes{}, [] { Attributes x; x.set("fmod", int64_t(1)); return x; }()})
    expect_matches_cpu(single_node("Mod", {input(ia), input(ib)}, 1, attrs), Precision::fp32);
}

TEST_F(VulkanEltwise, PowWithNegativeBasesAndIntegerExponents) {
  Tensor a = random_tensor(Shape{3, 4}, 31, -3, 3);
  Tensor e = Tensor::from<float>({4}, {2.0f, 3.0f, -1.0f, 0.0f});
  expect_matches_cpu(single_node("Pow", {input(a), input(e)}), Precision::fp32);
  expect_matches_cpu(single_node("Pow", {input(a), input(test::random_int_tensor(Shape{4}, 32, -2, 3, DType::i32))}), Precision::fp32, {-1, -1}, false,
                     "Pow float^int");
  expect_matches_cpu(single_node("Pow", {input(test::random_int_tensor(Shape{3, 4}, 33, -4, 4, DType::i32)), input(test::random_int_tensor(Shape{4}, 34, 0, 4, DType::i32))}),
                     Precision::fp32, {-1, -1}, false, "Pow int^int");
}

TEST_F(VulkanEltwise, IntegerArithmeticIsExact) {
  Tensor a = test::random_int_tensor(Shape{2, 3, 5}, 41, -1000, 1000, DType::i32), b = test::random_int_tensor(Shape{3, 1}, 42, -9, 9, DType::i32);
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Min", "Max"}) {
    expect_matches_cpu(single_node(op, {input(a), input(b)}), Precision::fp32);
    // int64 arithmetic on host inputs is a shape computation: on the CPU by design, still correct.
    expect_matches_cpu(single_node(op, {input(a.to(DType::i64)), input(b.to(DType::i64))}), Precision::fp32, {-1, -1},
                       true, cat(op, " i64"));
  }
  // uint8 wraps at 8 bits.
  Tensor u = test::random_int_tensor(Shape{17}, 43, 0, 255, DType::u8), v = test::random_int_tensor(Shape{17}, 44, 0, 255, DType::u8);
  for (const char* op : {"Add", "Sub", "Mul"}) expect_matches_cpu(single_node(op, {input(u), input(v)}), Precision::fp32);
}

TEST_F(VulkanEltwise, ComparisonsAndLogic) {
  Tensor a = random_tensor(Shape{2, 3, 4}, 51, -2, 2), b = random_tensor(Shape{3, 1}, 52, -2, 2);
  Tensor ia = test::random_int_tensor(Shape{2, 3, 4}, 53, -3, 3, DType::i32), ib = test::random_int_tensor(Shape{4}, 54, -3, 3, DType::i32);
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) {
    for (Precision p : {Precision::fp32, Precision::fp16}) expect_matches_cpu(single_node(op, {input(a), input(b)}), p);
    expect_matches_cpu(single_node(op, {input(ia), input(ib)}), Precision::fp32, {-1, -1}, false, cat(op, " int"));
  }
  for (const char* op : {"And", "Or", "Xor"})
    expect_matches_cpu(single_node(op, {input(bools(Shape{5, 1, 3}, 55)), input(bools(Shape{4, 1}, 56))}),
                       Precision::fp32);
  expect_matches_cpu(single_node("Not", {input(bools(Shape{3, 7}, 57))}), Precision::fp32);
}

TEST_F(VulkanEltwise, VariadicSumMeanMaxMin) {
  for (const char* op : {"Sum", "Mean", "Max", "Min"})
    for (Precision p : {Precision::fp32, Precision::fp16}) {
      expect_matches_cpu(single_node(op, {input(random_tensor(Shape{3, 1, 5}, 61)), input(random_tensor(Shape{4, 1}, 62)),
                                          input(random_tensor(Shape{5}, 63))}),
                         p, {-1, -1}, false, cat(op, " of 3"));
      expect_matches_cpu(single_node(op, {input(random_tensor(Shape{2, 3}, 64))}), p, {-1, -1}, false, cat(op, " of 1"));
    }
}

TEST_F(VulkanEltwise, WhereBroadcastsThreeWays) {
  for (Precision p : {Precision::fp32, Precision::fp16})
    expect_matches_cpu(single_node("Where", {input(bools(Shape{1, 3, 1, 7}, 71)), input(random_tensor(Shape{5, 1}, 72)),
                                             input(random_tensor(Shape{2, 1, 1, 1}, 73))}),
                       p);
  expect_matches_cpu(single_node("Where", {input(bools(Shape{4}, 74)), input(test::random_int_tensor(Shape{4}, 75, -9, 9, DType::i32)),
                                           input(test::random_int_tensor(Shape{}, 76, -9, 9, DType::i32))}),
                     Precision::fp32, {-1, -1}, false, "Where int32");
}

struct UnaryCase {
  const char* op;
  float lo, hi;
  Attributes attrs;
  double abs_tol = -1;  // fp32 atol override
};

TEST_F(VulkanEltwise, UnaryOps) {
  auto attr = [](const char* name, float v) {
    Attributes a;
    a.set(name, v);
    return a;
  };
  const std::vector<UnaryCase> cases = {
      {"Relu", -3, 3, {}},          {"LeakyRelu", -3, 3, attr("alpha", 0.2f)}, {"Elu", -3, 3, attr("alpha", 0.7f)},
      {"Sigmoid", -20, 20, {}},     {"HardSigmoid", -5, 5, {}},                {"HardSwish", -5, 5, {}},
      {"Tanh", -12, 12, {}},        {"Erf", -4, 4, {}},                        {"Softplus", -20, 20, {}},
      {"Sqrt", 0, 9, {}},           {"Reciprocal", 0.1f, 4, {}},               {"Exp", -10, 10, {}},
      {"Log", 0.01f, 50, {}},       {"Neg", -3, 3, {}},                        {"Abs", -3, 3, {}},
      {"Floor", -5, 5, {}},         {"Ceil", -5, 5, {}},                       {"Round", -5, 5, {}},
      {"Sign", -2, 2, {}},          {"Sin", -6, 6, {}, 1e-5},                  {"Cos", -6, 6, {}, 1e-5},
      {"Tan", -1.2f, 1.2f, {}, 1e-5}, {"Selu", -3, 3, {}},                     {"Celu", -3, 3, attr("alpha", 1.5f)},
      {"ThresholdedRelu", -3, 3, attr("alpha", 0.5f)}, {"Softsign", -5, 5, {}}, {"Asin", -0.99f, 0.99f, {}},
      {"Acos", -0.99f, 0.99f, {}},  {"Atan", -5, 5, {}},                       {"Sinh", -4, 4, {}},
      {"Cosh", -4, 4, {}},          {"Asinh", -5, 5, {}},                      {"Acosh", 1.01f, 5, {}},
      {"Atanh", -0.9f, 0.9f, {}},   {"Shrink", -2, 2, attr("lambd", 0.7f)},    {"Gelu", -4, 4, {}},
      {"Identity", -3, 3, {}},
  };
  uint64_t seed = 100;
  for (const UnaryCase& c : cases) {
    Tensor x = random_tensor(Shape{1, 3, 5, 7}, seed++, c.lo, c.hi);
    if (std::string(c.op) == "Round") x.data<float>()[0] = 2.5f, x.data<float>()[1] = -0.5f;  // halves to even
    auto sc = single_node(c.op, {input(x)}, 1, c.attrs);
    Tolerance t32 = default_tolerance(Precision::fp32);
    if (c.abs_tol > 0) t32.atol = c.abs_tol;
    expect_matches_cpu(sc, Precision::fp32, t32);
    expect_matches_cpu(sc, Precision::fp16);
  }
  Attributes tanh_form;
  tanh_form.set("approximate", std::string("tanh"));
  expect_matches_cpu(single_node("Gelu", {input(random_tensor(Shape{9}, 7, -4, 4))}, 1, tanh_form), Precision::fp32,
                     {-1, -1}, false, "Gelu tanh");
  // Integer unary ops.
  for (const char* op : {"Neg", "Abs", "Sign"})
    expect_matches_cpu(single_node(op, {input(test::random_int_tensor(Shape{4, 5}, seed++, -9, 9, DType::i32))}), Precision::fp32, {-1, -1}, false,
                       cat(op, " int"));
  // Scalars and rank 1.
  expect_matches_cpu(single_node("Exp", {input(Tensor::from<float>({}, {0.5f}))}), Precision::fp32, {-1, -1}, false, "Exp scalar");
  expect_matches_cpu(single_node("Sigmoid", {input(random_tensor(Shape{1}, 8))}), Precision::fp32);
}

TEST_F(VulkanEltwise, ClipWithAttributesConstantsAndRuntimeBounds) {
  Tensor x = random_tensor(Shape{2, 3, 5}, 81, -3, 3);
  Attributes old;
  old.set("min", -1.0f);
  old.set("max", 0.5f);
  expect_matches_cpu(single_node("Clip", {input(x)}, 1, old, 6), Precision::fp32, {-1, -1}, false, "Clip opset 6");
  expect_matches_cpu(single_node("Clip", {input(x), constant(Tensor::from<float>({}, {-0.5f})), omitted()}),
                     Precision::fp32, {-1, -1}, false, "Clip min only");
  for (Precision p : {Precision::fp32, Precision::fp16})
    expect_matches_cpu(single_node("Clip", {input(x), input(Tensor::from<float>({}, {-0.5f})),
                                            input(Tensor::from<float>({}, {1.0f}))}),
                       p, {-1, -1}, false, "Clip runtime bounds");
  expect_matches_cpu(single_node("Clip", {input(test::random_int_tensor(Shape{11}, 82, -9, 9, DType::i32)), constant(Tensor::from<int32_t>({}, {-3})),
                                          constant(Tensor::from<int32_t>({}, {4}))}),
                     Precision::fp32, {-1, -1}, false, "Clip int");
}

TEST_F(VulkanEltwise, CastBetweenFloatsIntsAndBools) {
  Tensor x = random_tensor(Shape{3, 7}, 91, -300, 300);
  x.data<float>()[0] = 0.0f;
  const std::vector<std::pair<DType, int64_t>> targets = {{DType::i32, 6}, {DType::i64, 7}, {DType::boolean, 9},
                                                          {DType::u8, 2},  {DType::i8, 3},  {DType::f16, 10}};
  for (auto [dtype, onnx] : targets) {
    Attributes a;
    a.set("to", onnx);
    expect_matches_cpu(single_node("Cast", {input(x)}, 1, a), Precision::fp32, {1e-3, 1e-6}, false,
                       cat("Cast f32 -> ", dtype_name(dtype)));
  }
  Attributes to_float;
  to_float.set("to", int64_t(1));
  expect_matches_cpu(single_node("Cast", {input(test::random_int_tensor(Shape{9}, 92, -50, 50, DType::i64))}, 1, to_float), Precision::fp32,
                     {-1, -1}, false, "Cast i64 -> f32");
  expect_matches_cpu(single_node("Cast", {input(bools(Shape{9}, 93))}, 1, to_float), Precision::fp16, {-1, -1}, false,
                     "Cast bool -> f32 at fp16");
}

TEST_F(VulkanEltwise, EyeLikeOnAndOffTheDiagonal) {
  for (int64_t k : {0, 2, -1, 9}) {
    Attributes a;
    a.set("k", k);
    expect_matches_cpu(single_node("EyeLike", {input(random_tensor(Shape{4, 6}, 5))}, 1, a), Precision::fp32, {-1, -1},
                       false, cat("EyeLike k=", k));
  }
  Attributes as_int;
  as_int.set("dtype", int64_t(6));
  expect_matches_cpu(single_node("EyeLike", {input(random_tensor(Shape{5, 3}, 6))}, 1, as_int), Precision::fp16,
                     {-1, -1}, false, "EyeLike int32");
}

// Every Vulkan object the executable created is gone after destruction.
TEST_F(VulkanEltwise, ReleasesEveryObject) {
  const int before = vk::live_objects();
  {
    auto c = single_node("Add", {input(random_tensor(Shape{4, 4}, 1)), input(random_tensor(Shape{4}, 2))});
    std::map<std::string, Shape> shapes{{"x0", Shape{4, 4}}, {"x1", Shape{4}}};
    vk::ModelExecOptions o;
    o.timestamps = true;
    vk::VulkanModelExecutable exe(ctx(), c.graph, shapes, o);
    Profile profile;
    exe.run(c.inputs, &profile);
    ASSERT_EQ(profile.entries.size(), 1u);
    EXPECT_GT(vk::live_objects(), before);
  }
  EXPECT_EQ(vk::live_objects(), before);
}

TEST_F(VulkanEltwise, GeluBothForms) {
  for (const char* form : {"none", "tanh"}) {
    Attributes a;
    a.set("approximate", std::string(form));
    auto c = single_node(kGelu, {input(test::random_tensor({7, 33}, 9, -6.0f, 6.0f))}, 1, a);
    expect_matches_cpu(c, Precision::fp32, {-1, -1}, false, form);
    expect_matches_cpu(c, Precision::fp16, {-1, -1}, false, form);
  }
}

TEST_F(VulkanEltwise, ErfAcrossItsRange) {
  // erf's two approximation intervals meet at 0.9277; large arguments saturate to +-1.
  std::vector<float> x;
  for (int i = -3000; i <= 3000; ++i) x.push_back(float(i) * 0.003f);
  for (float big : {5.0f, 9.0f, 1e10f, -1e10f, 1e-30f, -1e-20f, 0.0f}) x.push_back(big);
  Tensor t = Tensor(DType::f32, Shape{int64_t(x.size())});
  std::copy(x.begin(), x.end(), t.data<float>());
  expect_matches_cpu(single_node("Erf", {input(t)}), Precision::fp32, {2e-6, 2e-7});
}

TEST_F(VulkanEltwise, BinaryFastPaths) {
  struct Case {
    const char* op;
    Shape a, b;
  };
  const Case cases[] = {
      {"Add", {5, 7, 3}, {5, 7, 3}},     // same shape, 105 elements (a partial group of 4)
      {"Add", {128, 24}, {24}},          // bias row, vector loads
      {"Sub", {6, 7}, {7}},              // bias row of odd length
      {"Mul", {3}, {4, 5, 3}},           // the row on the left
      {"Div", {4, 5, 9}, {4, 5, 1}},     // a column
      {"Div", {4, 5, 8}, {4, 5, 1}},     // a column of rows of 8 (one value per group)
      {"Mul", {2, 3, 4, 5}, {3, 1, 1}},  // a middle axis
      {"Add", {2, 3, 4, 5}, {}},         // a scalar
      {"Sub", {1}, {2, 9}},              // a scalar on the left
      {"Max", {2, 1, 4}, {2, 3, 4}},     // two broadcast blocks: the generic kernel
      {"Min", {9, 11}, {11}},
      {"Add", {1, 1}, {1, 1}},
  };
  for (const Case& c : cases) {
    auto node = single_node(c.op, {input(test::random_tensor(c.a, 31, -2.0f, 2.0f)),
                                   input(test::random_tensor(c.b, 32, 0.5f, 2.0f))});
    const std::string what = cat(c.op, " ", c.a.str(), " ", c.b.str());
    expect_matches_cpu(node, Precision::fp32, {-1, -1}, false, what);
    expect_matches_cpu(node, Precision::fp16, {-1, -1}, false, what);
  }
  // NaN propagation of Min / Max and PRelu's slope row.
  Tensor a = test::random_tensor({3, 8}, 40);
  a.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  expect_matches_cpu(single_node("Max", {input(a), input(test::random_tensor({8}, 41))}), Precision::fp32);
  expect_matches_cpu(single_node("PRelu", {input(test::random_tensor({4, 6, 10}, 42)), input(test::random_tensor({10}, 43))}),
                     Precision::fp32);
}

}  // namespace
}  // namespace vx::test
