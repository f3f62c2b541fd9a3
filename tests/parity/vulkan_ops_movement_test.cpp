// The Vulkan data-movement ops against the CPU reference kernels on lavapipe, with the validation
// layer on (any message fails): Transpose, Slice (constant operands, and starts/axes/steps computed
// at run time), Concat, Split, Expand, Tile, Pad (constant and run-time pads), Gather,
// GatherElements, GatherND, ScatterElements, ScatterND, ReverseSequence, DepthToSpace, SpaceToDepth,
// Resize/Upsample and the aliases (Reshape, Squeeze, Unsqueeze, Flatten, Identity, Dropout), at odd
// shapes (1x3x5x7, 2x1x9, rank 0, 1, 5, 6 and 7, negative axes, size-1 axes, empty tensors), fp32
// and fp16 storage, and int32, bool and uint8 tensors; and the strided copies in groups of four
// (strided_copy's and split's vec4 variants).
//
// Tolerances: movement is exact at both precisions (the fp16 reference runs on fp16-rounded
// inputs, and moving a value does not change it): Tolerance{0, 0}. Resize with linear or cubic
// weights: fp32 |d| <= 1e-6 + 1e-5 |ref| (weights are fp32 on the GPU, double on the CPU); fp16
// |d| <= 1e-3 + 1e-2 |ref|. Integers exact, except linear Resize of integers: |d| <= 1 (fp32
// weights against double may round a sum near .5 the other way).
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

constexpr Tolerance kExact{0, 0};
const Precision kPrecisions[] = {Precision::fp32, Precision::fp16};

class VulkanMovement : public VulkanOpTest {
 protected:
  // The case at fp32 and fp16 with float data, and once with int64 data when `with_ints`.
  void check_all(const std::string& op, const std::vector<NodeInput>& inputs, Attributes attrs, int64_t opset,
                 const std::string& what, size_t outputs = 1, Tolerance tol = kExact, bool with_ints = true) {
    for (Precision p : kPrecisions)
      expect_matches_cpu(single_node(op, inputs, outputs, attrs, opset), p, tol, false, what);
    if (!with_ints) return;
    // Every float input (the data, Concat's other inputs, Pad's value) as int32 in [-1000, 1000]
    // (int64 results that read nothing on the GPU are shape computations the executor keeps on the CPU).
    std::vector<NodeInput> int_inputs = inputs;
    for (NodeInput& in : int_inputs) {
      if (!in.value.defined() || in.value.dtype() != DType::f32) continue;
      Tensor t(DType::i32, in.value.shape());
      for (int64_t i = 0; i < t.numel(); ++i) t.set(i, std::floor(in.value.get(i) * 1000));
      in.value = t;
    }
    expect_matches_cpu(single_node(op, int_inputs, outputs, attrs, opset), Precision::fp32, kExact, false,
                       what + " (int32)");
  }
};

Attributes attr_ints(const std::string& name, std::vector<int64_t> v) {
  Attributes a;
  a.set(name, std::move(v));
  return a;
}

Attributes attr_int(const std::string& name, int64_t v) {
  Attributes a;
  a.set(name, v);
  return a;
}

TEST_F(VulkanMovement, Transpose) {
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;  // empty: the default (reverse)
  };
  const Case cases[] = {{Shape{1, 3, 5, 7}, {}},          {Shape{1, 3, 5, 7}, {0, 2, 3, 1}},
                        {Shape{2, 1, 9}, {2, 0, 1}},      {Shape{7}, {}},
                        {Shape{2, 3, 1, 4, 5}, {4, 2, 0, 3, 1}}, {Shape{2, 1, 3, 2, 1, 3}, {5, 4, 3, 2, 1, 0}},
                        {Shape{3, 4}, {1, 0}}};
  uint64_t seed = 1;
  for (const Case& c : cases) {
    Attributes a;
    if (!c.perm.empty()) a.set("perm", c.perm);
    check_all("Transpose", {input(random_tensor(c.shape, seed++))}, a, 13, "Transpose " + c.shape.str());
  }
}

TEST_F(VulkanMovement, SliceWithInputs) {
  const int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
  struct Case {
    Shape shape;
    Tensor starts, ends, axes, steps;  // axes / steps may be undefined (omitted)
  };
  const Case cases[] = {
      {Shape{1, 3, 5, 7}, test::i64s({0, 1}), test::i64s({2, 6}), test::i64s({1, 3}), test::i64s({1, 2})},
      {Shape{1, 3, 5, 7}, test::i64s({-1, 4}), test::i64s({small, -big}), test::i64s({-1, 2}), test::i64s({-2, -1})},  // negative steps
      {Shape{2, 1, 9}, test::i64s({1}), test::i64s({big}), test::i64s({-1}), Tensor()},
      {Shape{9}, test::i64s({2}), test::i64s({-2}), Tensor(), Tensor()},
      {Shape{9}, test::i64s({8}), test::i64s({0}), test::i64s({0}), test::i64s({-3})},
      {Shape{2, 3, 2, 4, 5}, test::i64s({1, 0, 3}), test::i64s({2, 4, 1}), test::i64s({0, 1, -1}), test::i64s({1, 2, -1})},
      {Shape{4, 5}, test::i64s({3}), test::i64s({1}), test::i64s({0}), test::i64s({1})},  // empty result
      {Shape{4, 5}, test::i64s({0}), test::i64s({10}), test::i64s({1}), test::i64s({7})},  // step past the end
  };
  uint64_t seed = 10;
  for (const Case& c : cases) {
    std::vector<NodeInput> in = {input(random_tensor(c.shape, seed++)), constant(c.starts), constant(c.ends)};
    in.push_back(c.axes.defined() ? constant(c.axes) : omitted());
    if (c.steps.defined()) in.push_back(constant(c.steps));
    check_all("Slice", in, {}, 13, "Slice " + c.shape.str());
  }
}

TEST_F(VulkanMovement, SliceWithAttributes) {
  Attributes a;
  a.set("starts", std::vector<int64_t>{1, -4});
  a.set("ends", std::vector<int64_t>{1000, -1});
  a.set("axes", std::vector<int64_t>{0, 2});
  check_all("Slice", {input(random_tensor(Shape{3, 2, 7}, 20))}, a, 1, "Slice-1");
}

// Starts, axes and steps computed at run time (graph inputs here; int64 extremes arrive saturated to
// int32): the shader reads them, the executor observes the output shape.
TEST_F(VulkanMovement, SliceWithRuntimeOperands) {
  const int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
  Tensor x = random_tensor(Shape{3, 8, 5}, 21);
  check_all("Slice", {input(x), input(test::i64s({1, 2})), constant(test::i64s({3, 7}))}, {}, 13, "Slice runtime starts");
  check_all("Slice", {input(x), input(test::i64s({-1, 6})), input(test::i64s({small, 1})), input(test::i64s({-3, 1})), input(test::i64s({-1, -2}))},
            {}, 13, "Slice runtime everything, negative steps");
  check_all("Slice", {input(x), input(test::i64s({-100})), input(test::i64s({big})), constant(test::i64s({2})), input(test::i64s({2}))}, {}, 13,
            "Slice runtime steps, clamped starts");
  check_all("Slice", {input(x), constant(test::i64s({0})), constant(test::i64s({2})), input(test::i64s({-1}))}, {}, 13,
            "Slice runtime axes");
}

TEST_F(VulkanMovement, Concat) {
  uint64_t seed = 30;
  for (int64_t axis : {0, 1, -1, 3}) {
    std::vector<NodeInput> in;
    for (int64_t extent : {1, 3, 2}) {
      std::vector<int64_t> dims = {2, 3, 5, 7};
      dims[size_t(axis < 0 ? axis + 4 : axis)] = extent;
      in.push_back(input(random_tensor(Shape(dims), seed++)));
    }
    check_all("Concat", in, attr_int("axis", axis), 13, cat("Concat axis ", axis));
  }
  // More inputs than a dispatch has bindings, one of them a constant.
  std::vector<NodeInput> many;
  for (int i = 0; i < 11; ++i) many.push_back(input(random_tensor(Shape{2, i % 3 + 1, 3}, seed++)));
  many[4] = constant(random_tensor(Shape{2, 2, 3}, seed++));
  check_all("Concat", many, attr_int("axis", -2), 13, "Concat 11 inputs");
  check_all("Concat", {input(random_tensor(Shape{5}, seed++)), input(random_tensor(Shape{2}, seed++))},
            attr_int("axis", 0), 13, "Concat rank 1");
}

TEST_F(VulkanMovement, Split) {
  Tensor x = random_tensor(Shape{2, 9, 4}, 40);
  // opset 13: sizes as an input; opset 11: as an attribute; equal parts; opset 18 num_outputs.
  check_all("Split", {input(x), constant(test::i64s({2, 3, 4}))}, attr_int("axis", 1), 13, "Split-13 sizes", 3);
  check_all("Split", {input(x)}, [] {
    Attributes a = attr_ints("split", {1, 3});
    a.set("axis", int64_t(-1));
    return a;
  }(), 11, "Split-11 attribute", 2);
  check_all("Split", {input(x)}, attr_int("axis", -2), 13, "Split equal", 3);
  check_all("Split", {input(random_tensor(Shape{7, 3}, 41))}, attr_int("num_outputs", 3), 18, "Split-18 num_outputs", 3);
  check_all("Split", {input(random_tensor(Shape{5}, 42)), constant(test::i64s({0, 5}))}, {}, 13, "Split empty part", 2);
}

TEST_F(VulkanMovement, Expand) {
  struct Case {
    Shape in;
    std::vector<int64_t> shape;
  };
  const Case cases[] = {{Shape{3, 1}, {2, 3, 4}}, {Shape{1}, {2, 1, 3, 1, 2}}, {Shape{1, 5, 1}, {4, 1, 1}},
                        {Shape{}, {3, 2}}, {Shape{2, 1, 3}, {1, 2, 4, 3}}};
  uint64_t seed = 50;
  for (const Case& c : cases) {
    Tensor shape(DType::i64, Shape{int64_t(c.shape.size())});
    for (size_t i = 0; i < c.shape.size(); ++i) shape.set(int64_t(i), double(c.shape[i]));
    check_all("Expand", {input(random_tensor(c.in, seed++)), constant(shape)}, {}, 13, "Expand " + c.in.str());
  }
}

TEST_F(VulkanMovement, Tile) {
  check_all("Tile", {input(random_tensor(Shape{2, 1, 3}, 60)), constant(test::i64s({2, 3, 1}))}, {}, 13, "Tile 2x1x3");
  check_all("Tile", {input(random_tensor(Shape{5}, 61)), constant(test::i64s({3}))}, {}, 13, "Tile rank 1");
  check_all("Tile", {input(random_tensor(Shape{1, 3, 5, 7}, 62)), constant(test::i64s({2, 1, 2, 1}))}, {}, 13, "Tile 4-D");
}

TEST_F(VulkanMovement, Pad) {
  Tensor x = random_tensor(Shape{1, 3, 5, 7}, 70);
  Tensor pads = test::i64s({0, 1, 2, 3, 0, 2, 1, 4});
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    Attributes a;
    a.set("mode", std::string(mode));
    check_all("Pad", {input(x), constant(pads), constant(Tensor::from<float>(Shape{}, {1.5f}))}, a, 19,
              cat("Pad ", mode));
  }
  // Negative pads crop; opset 2 attributes; opset 18 axes (negative); rank 1; reflect wider than the input.
  check_all("Pad", {input(x), constant(test::i64s({0, -1, 1, -2, 0, 0, -1, 3}))}, {}, 13, "Pad negative");
  Attributes old;
  old.set("pads", std::vector<int64_t>{1, 0, 2, 2});
  old.set("value", 2.0f);
  check_all("Pad", {input(random_tensor(Shape{2, 9}, 71))}, old, 2, "Pad-2 attribute");
  check_all("Pad", {input(x), constant(test::i64s({2, 1, 0, 3})), omitted(), constant(test::i64s({-1, 1}))},
            [] {
              Attributes a;
              a.set("mode", std::string("edge"));
              return a;
            }(),
            18, "Pad-18 axes");
  Attributes reflect;
  reflect.set("mode", std::string("reflect"));
  check_all("Pad", {input(random_tensor(Shape{3}, 72)), constant(test::i64s({5, 6}))}, reflect, 13, "Pad reflect wide");
  check_all("Pad", {input(random_tensor(Shape{1, 4}, 73)), constant(test::i64s({0, 2, 0, 1}))}, reflect, 13,
            "Pad reflect size-1");
}

// Pads and the fill value computed at run time (graph inputs here): the shader reads them.
TEST_F(VulkanMovement, PadWithRuntimeOperands) {
  Tensor x = random_tensor(Shape{1, 3, 5, 7}, 74);
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    Attributes a;
    a.set("mode", std::string(mode));
    check_all("Pad", {input(x), input(test::i64s({0, 1, 2, -3, 0, 2, -1, 4})), input(Tensor::from<float>(Shape{}, {1.5f}))},
              a, 19, cat("Pad runtime pads and value ", mode));
  }
  check_all("Pad", {input(x), input(test::i64s({2, 0, 1, 3})), constant(Tensor::from<float>(Shape{}, {-2.0f})),
                    constant(test::i64s({-1, 1}))},
            {}, 18, "Pad runtime pads, constant value and axes");
}

TEST_F(VulkanMovement, Gather) {
  Tensor x = random_tensor(Shape{1, 3, 5, 7}, 80);
  Tensor idx = Tensor::from<int64_t>(Shape{2, 2}, {0, -1, 2, -3});
  for (int64_t axis : {0, 1, -1, 2}) {
    Tensor ix = idx.clone();
    if (axis == 0)
      for (int64_t i = 0; i < 4; ++i) ix.set(i, i % 2 == 0 ? 0 : -1);
    check_all("Gather", {input(x), constant(ix)}, attr_int("axis", axis), 13, cat("Gather const axis ", axis));
    check_all("Gather", {input(x), input(ix)}, attr_int("axis", axis), 13, cat("Gather runtime axis ", axis));
  }
  check_all("Gather", {input(random_tensor(Shape{9}, 81)), input(Tensor::from<int64_t>(Shape{}, {-2}))}, {}, 13,
            "Gather scalar index");
  check_all("Gather", {input(random_tensor(Shape{2, 1, 9}, 82)), constant(Tensor::from<int32_t>(Shape{3}, {8, 0, 4}))},
            attr_int("axis", 2), 13, "Gather int32 indices");
}

TEST_F(VulkanMovement, GatherElements) {
  Tensor x = random_tensor(Shape{3, 4, 5}, 90);
  Tensor idx(DType::i64, Shape{3, 2, 5});
  for (int64_t i = 0; i < idx.numel(); ++i) idx.set(i, double(int64_t(i * 7 % 8) - 4));  // in [-4, 4)
  check_all("GatherElements", {input(x), input(idx)}, attr_int("axis", 1), 13, "GatherElements axis 1");
  check_all("GatherElements", {input(x), constant(idx)}, attr_int("axis", -2), 13, "GatherElements const");
  Tensor idx0(DType::i64, Shape{2, 4, 5});
  for (int64_t i = 0; i < idx0.numel(); ++i) idx0.set(i, double(int64_t(i * 5 % 6) - 3));
  check_all("GatherElements", {input(x), input(idx0)}, attr_int("axis", 0), 13, "GatherElements axis 0");
  // Rank 7: axes the indices span fully merge, so it fits the shader's rank 6.
  Tensor x7 = random_tensor(Shape{2, 3, 1, 2, 2, 3, 2}, 91);
  Tensor idx7(DType::i64, Shape{1, 2, 1, 2, 2, 3, 2});
  for (int64_t i = 0; i < idx7.numel(); ++i) idx7.set(i, double(i % 3) - 1);
  check_all("GatherElements", {input(x7), input(idx7)}, attr_int("axis", 1), 13, "GatherElements rank 7");
}

TEST_F(VulkanMovement, DepthToSpaceAndSpaceToDepth) {
  Tensor x = random_tensor(Shape{2, 8, 3, 5}, 100);
  for (const char* mode : {"DCR", "CRD"}) {
    Attributes a = attr_int("blocksize", 2);
    a.set("mode", std::string(mode));
    check_all("DepthToSpace", {input(x)}, a, 13, cat("DepthToSpace ", mode));
  }
  check_all("DepthToSpace", {input(random_tensor(Shape{1, 9, 2, 3}, 101))}, attr_int("blocksize", 3), 13,
            "DepthToSpace b3");
  check_all("SpaceToDepth", {input(random_tensor(Shape{1, 3, 6, 4}, 102))}, attr_int("blocksize", 2), 13,
            "SpaceToDepth");
}

// Resize with scales or sizes as constants, every mode that matters for images.
TEST_F(VulkanMovement, Resize) {
  Tensor x = random_tensor(Shape{1, 2, 5, 7}, 110);
  Tensor scales = Tensor::from<float>(Shape{4}, {1, 1, 2.0f, 1.5f});
  Tensor down = Tensor::from<float>(Shape{4}, {1, 1, 0.6f, 0.5f});
  Tensor sizes = test::i64s({1, 2, 9, 4});
  struct Case {
    std::string mode, transform, nearest;
  };
  const Case cases[] = {{"nearest", "asymmetric", "floor"},
                        {"nearest", "half_pixel", "round_prefer_floor"},
                        {"nearest", "align_corners", "round_prefer_ceil"},
                        {"nearest", "tf_half_pixel_for_nn", "ceil"},
                        {"nearest", "pytorch_half_pixel", "round_prefer_floor"},
                        {"linear", "half_pixel", ""},
                        {"linear", "align_corners", ""},
                        {"linear", "asymmetric", ""},
                        {"linear", "pytorch_half_pixel", ""},
                        {"linear", "half_pixel_symmetric", ""},
                        {"cubic", "half_pixel", ""},
                        {"cubic", "align_corners", ""}};
  for (const Case& c : cases) {
    Attributes a;
    a.set("mode", c.mode);
    a.set("coordinate_transformation_mode", c.transform);
    if (!c.nearest.empty()) a.set("nearest_mode", c.nearest);
    const Tolerance tol[] = {c.mode == "nearest" ? kExact : Tolerance{1e-5, 1e-6}, Tolerance{1e-2, 1e-3}};
    const bool ints = c.mode != "cubic";
    const std::string what = cat("Resize ", c.mode, " ", c.transform, " ", c.nearest);
    for (const Tensor* s : {&scales, &down}) {
      for (int k = 0; k < 2; ++k)
        expect_matches_cpu(single_node("Resize", {input(x), omitted(), constant(*s)}, 1, a, 13), kPrecisions[k],
                           tol[k], false, what + " scales");
      if (ints) {
        Tensor xi(DType::i32, x.shape());
        for (int64_t i = 0; i < xi.numel(); ++i) xi.set(i, std::floor(x.get(i) * 1000));
        // Linear weights are fp32 on the GPU and double on the CPU: a sum that lands within
        // rounding of .5 may round the other way, so integers may differ by 1 (nearest is exact).
        SingleNodeCase ic = single_node("Resize", {input(xi), omitted(), constant(*s)}, 1, a, 13);
        if (c.mode == "nearest") {
          expect_matches_cpu(ic, Precision::fp32, kExact, false, what + " int32");
        } else {
          std::vector<Tensor> expected = run_cpu_reference(ic.graph, ic.inputs);
          VulkanRun run = run_on_vulkan(ctx(), ic.graph, ic.inputs, Precision::fp32);
          EXPECT_TRUE(run.all_on_gpu) << what;
          ASSERT_EQ(run.outputs.at(0).shape(), expected.at(0).shape()) << what;
          EXPECT_LE(max_abs_diff(run.outputs[0], expected[0]), 1.0) << what << " int32";
        }
      }
    }
    for (int k = 0; k < 2; ++k)
      expect_matches_cpu(single_node("Resize", {input(x), omitted(), omitted(), constant(sizes)}, 1, a, 13),
                         kPrecisions[k], tol[k], false, what + " sizes");
  }
  // tf_crop_and_resize with an roi and extrapolation; cubic with exclude_outside; axes (opset 18).
  Attributes crop;
  crop.set("mode", std::string("linear"));
  crop.set("coordinate_transformation_mode", std::string("tf_crop_and_resize"));
  crop.set("extrapolation_value", 0.25f);
  Tensor roi = Tensor::from<float>(Shape{8}, {0, 0, -0.2f, 0.1f, 1, 1, 0.9f, 1.3f});
  for (int k = 0; k < 2; ++k)
    expect_matches_cpu(single_node("Resize", {input(x), constant(roi), constant(scales)}, 1, crop, 13), kPrecisions[k],
                       k == 0 ? Tolerance{1e-5, 1e-6} : Tolerance{1e-2, 1e-3}, false, "Resize tf_crop_and_resize");
  // Cubic with exclude_outside and another coefficient. (Resize-18's `axes` attribute is handled
  // here and by the CPU kernel, but shape inference does not know it yet.)
  Attributes cubic;
  cubic.set("mode", std::string("cubic"));
  cubic.set("exclude_outside", int64_t(1));
  cubic.set("cubic_coeff_a", -0.5f);
  for (int k = 0; k < 2; ++k)
    expect_matches_cpu(single_node("Resize", {input(x), omitted(), constant(Tensor::from<float>(Shape{4}, {1, 1, 1.7f, 0.8f}))},
                                   1, cubic, 18),
                       kPrecisions[k], k == 0 ? Tolerance{1e-5, 1e-6} : Tolerance{1e-2, 1e-3}, false,
                       "Resize-18 cubic exclude_outside");
}

// Sizes computed at run time (a graph input here): the executor observes the output shape.
TEST_F(VulkanMovement, ResizeWithRuntimeSizes) {
  Tensor x = random_tensor(Shape{1, 2, 5, 7}, 115);
  for (const char* mode : {"nearest", "linear"}) {
    Attributes a;
    a.set("mode", std::string(mode));
    const Tolerance tol = std::string(mode) == "nearest" ? kExact : Tolerance{1e-5, 1e-6};
    expect_matches_cpu(single_node("Resize", {input(x), omitted(), omitted(), input(test::i64s({1, 2, 8, 3}))}, 1, a, 13),
                       Precision::fp32, tol, false, cat("Resize runtime sizes ", mode));
  }
  Attributes policy;
  policy.set("keep_aspect_ratio_policy", std::string("not_larger"));
  SingleNodeCase c = single_node("Resize", {input(x), omitted(), omitted(), input(test::i64s({1, 2, 8, 3}))}, 1, policy, 18);
  VulkanRun run = run_on_vulkan(ctx(), c.graph, c.inputs, Precision::fp32);
  EXPECT_FALSE(run.all_on_gpu) << "not_larger needs the sizes' values";
  EXPECT_TRUE(outputs_match(run_cpu_reference(c.graph, c.inputs), run.outputs, kExact));
}

TEST_F(VulkanMovement, ResizeLegacyAndUpsample) {
  Tensor x = random_tensor(Shape{1, 3, 4, 5}, 120);
  Tensor scales = Tensor::from<float>(Shape{4}, {1, 1, 2, 3});
  for (const char* mode : {"nearest", "linear"}) {
    Attributes a;
    a.set("mode", std::string(mode));
    const Tolerance tol = std::string(mode) == "nearest" ? kExact : Tolerance{1e-5, 1e-6};
    expect_matches_cpu(single_node("Resize", {input(x), constant(scales)}, 1, a, 10), Precision::fp32, tol, false,
                       cat("Resize-10 ", mode));
    expect_matches_cpu(single_node("Upsample", {input(x), constant(scales)}, 1, a, 9), Precision::fp32, tol, false,
                       cat("Upsample-9 ", mode));
    a.set("scales", std::vector<float>{1, 1, 2, 3});
    expect_matches_cpu(single_node("Upsample", {input(x)}, 1, a, 7), Precision::fp16, Tolerance{1e-2, 1e-3}, false,
                       cat("Upsample-7 ", mode));
  }
  Attributes bilinear;
  bilinear.set("mode", std::string("bilinear"));
  bilinear.set("scales", std::vector<float>{1, 1, 2, 2});
  expect_matches_cpu(single_node("Upsample", {input(x)}, 1, bilinear, 7), Precision::fp32, Tolerance{1e-5, 1e-6},
                     false, "Upsample-7 bilinear");
}

TEST_F(VulkanMovement, AliasesCopyNothing) {
  Tensor x = random_tensor(Shape{2, 1, 3, 1}, 130);
  check_all("Reshape", {input(x), constant(test::i64s({3, -1}))}, {}, 14, "Reshape");
  check_all("Squeeze", {input(x), constant(test::i64s({-1, 1}))}, {}, 13, "Squeeze-13");
  check_all("Squeeze", {input(x)}, attr_ints("axes", {1}), 11, "Squeeze-11");
  check_all("Unsqueeze", {input(x), constant(test::i64s({0, -1}))}, {}, 13, "Unsqueeze");
  check_all("Flatten", {input(x)}, attr_int("axis", -2), 13, "Flatten");
  check_all("Identity", {input(x)}, {}, 13, "Identity");
  check_all("Dropout", {input(x)}, {}, 13, "Dropout");
  // The mask (all true at inference) filled on the GPU. The mask's type and shape are declared as an
  // imported model does (single_node's outputs start as f32 scalars).
  for (Precision p : kPrecisions) {
    SingleNodeCase c = single_node("Dropout", {input(x), constant(Tensor::from<float>(Shape{}, {0.3f})),
                                               constant(Tensor::from<bool>(Shape{}, {false}))},
                                   2, {}, 13);
    c.graph.value(c.graph.outputs[1]).dtype = DType::boolean;
    c.graph.value(c.graph.outputs[1]).shape = x.shape();
    expect_matches_cpu(c, p, kExact, false, "Dropout with its mask");
  }
  // Aliases chain: the graph's output is a view of its input.
  SingleNodeCase c = single_node("Reshape", {input(x), constant(test::i64s({6}))}, 1, {}, 14);
  VulkanRun run = run_on_vulkan(ctx(), c.graph, c.inputs, Precision::fp32);
  ASSERT_TRUE(run.all_on_gpu);
  EXPECT_EQ(run.placements[0].variant, "alias");
}

TEST_F(VulkanMovement, EdgeShapes) {
  uint64_t seed = 140;
  // Rank 0, an empty input among Concat's, empty Gather indices, a size-0 output.
  check_all("Transpose", {input(Tensor::from<float>(Shape{}, {1.25f}))}, {}, 13, "Transpose scalar");
  check_all("Concat", {input(random_tensor(Shape{2, 3}, seed++)), input(Tensor(DType::f32, Shape{2, 0})),
                       input(random_tensor(Shape{2, 1}, seed++))},
            attr_int("axis", 1), 13, "Concat with an empty input");
  check_all("Gather", {input(random_tensor(Shape{4, 3}, seed++)), constant(Tensor(DType::i64, Shape{2, 0}))},
            attr_int("axis", 0), 13, "Gather no indices");
  check_all("Slice", {input(random_tensor(Shape{4, 3}, seed++)), constant(test::i64s({2})), constant(test::i64s({2}))}, {}, 13,
            "Slice to nothing");
}

// Bools and small integer types are int32 on the device; moving them must round-trip exactly.
TEST_F(VulkanMovement, BoolAndByteTensors) {
  Tensor mask(DType::boolean, Shape{2, 3, 5});
  Tensor bytes(DType::u8, Shape{2, 3, 5});
  for (int64_t i = 0; i < mask.numel(); ++i) {
    mask.set(i, double((i * 7) % 3 == 0));
    bytes.set(i, double((i * 37) % 256));
  }
  for (const Tensor& t : {mask, bytes}) {
    const std::string type(dtype_name(t.dtype()));
    expect_matches_cpu(single_node("Transpose", {input(t)}, 1, attr_ints("perm", {2, 0, 1}), 13), Precision::fp32,
                       kExact, false, "Transpose " + type);
    expect_matches_cpu(single_node("Concat", {input(t), input(t)}, 1, attr_int("axis", -1), 13), Precision::fp16,
                       kExact, false, "Concat " + type);
    expect_matches_cpu(single_node("Gather", {input(t), constant(test::i64s({2, 0}))}, 1, attr_int("axis", 1), 13),
                       Precision::fp32, kExact, false, "Gather " + type);
    expect_matches_cpu(single_node("Pad", {input(t), constant(test::i64s({0, 1, 0, 0, 2, 1}))}, 1, {}, 13), Precision::fp32,
                       kExact, false, "Pad " + type);
  }
  Attributes nearest;
  nearest.set("mode", std::string("nearest"));
  expect_matches_cpu(single_node("Resize", {input(bytes.reshaped(Shape{1, 2, 3, 5})), omitted(),
                                            constant(Tensor::from<float>(Shape{4}, {1, 1, 2, 1.5f}))},
                                 1, nearest, 13),
                     Precision::fp32, kExact, false, "Resize u8");
}

TEST_F(VulkanMovement, GatherND) {
  Tensor x = random_tensor(Shape{2, 3, 4, 5}, 150);
  // batch_dims 0 with tuples of 2 (negative entries), batch_dims 1 with tuples of 1 and 3.
  Tensor idx2 = Tensor::from<int64_t>(Shape{3, 2}, {0, 2, 1, -1, -2, 0});
  check_all("GatherND", {input(x), constant(idx2)}, {}, 13, "GatherND k=2 const");
  check_all("GatherND", {input(x), input(idx2)}, {}, 13, "GatherND k=2 runtime");
  Tensor idx1 = Tensor::from<int64_t>(Shape{2, 2, 1}, {2, 0, -1, 1});
  check_all("GatherND", {input(x), input(idx1)}, attr_int("batch_dims", 1), 13, "GatherND batch 1, k=1");
  Tensor idx3 = Tensor::from<int64_t>(Shape{2, 3}, {1, 3, 4, 0, 0, -5});
  check_all("GatherND", {input(x), constant(idx3)}, attr_int("batch_dims", 1), 13, "GatherND batch 1, k=3");
}

TEST_F(VulkanMovement, ScatterElementsAndScatterND) {
  Tensor x = random_tensor(Shape{3, 4, 5}, 160);
  // Distinct targets per column (ONNX leaves duplicates undefined).
  Tensor idx(DType::i64, Shape{3, 2, 5});
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t c = 0; c < 5; ++c) idx.set((a * 2 + b) * 5 + c, double(b == 0 ? (c % 2) : -1 - (c % 2)));
  Tensor upd = random_tensor(Shape{3, 2, 5}, 161);
  check_all("ScatterElements", {input(x), constant(idx), input(upd)}, attr_int("axis", 1), 13, "ScatterElements const");
  check_all("ScatterElements", {input(x), input(idx), input(upd)}, attr_int("axis", -2), 13, "ScatterElements runtime");
  check_all("Scatter", {input(x), input(idx), input(upd)}, attr_int("axis", 1), 10, "Scatter-10");
  Tensor nd = Tensor::from<int64_t>(Shape{2, 2}, {0, 1, -1, -2});
  check_all("ScatterND", {input(x), constant(nd), input(random_tensor(Shape{2, 5}, 162))}, {}, 13, "ScatterND k=2");
  Tensor nd1 = Tensor::from<int64_t>(Shape{2, 1}, {2, 0});
  check_all("ScatterND", {input(x), input(nd1), input(random_tensor(Shape{2, 4, 5}, 163))}, {}, 13, "ScatterND k=1");
}

TEST_F(VulkanMovement, ReverseSequence) {
  Tensor x = random_tensor(Shape{4, 3, 2, 5}, 170);
  check_all("ReverseSequence", {input(x), input(test::i64s({4, 0, 2}))}, {}, 13, "ReverseSequence time 0, runtime lengths");
  Attributes swapped;
  swapped.set("batch_axis", int64_t(0));
  swapped.set("time_axis", int64_t(1));
  check_all("ReverseSequence", {input(random_tensor(Shape{3, 4}, 171)), constant(test::i64s({1, 4, 3}))}, swapped, 13,
            "ReverseSequence time 1, constant lengths");
}

TEST_F(VulkanMovement, CopiesInGroupsOfFour) {
  // Innermost axes contiguous in both tensors with extents and offsets that are multiples of 4 take
  // strided_copy's vec4 variants; the others (extent 6, offset 4 + 6) the element-wise copy.
  Attributes heads;
  heads.set("perm", std::vector<int64_t>{0, 2, 1, 3});
  auto transpose = single_node("Transpose", {input(test::random_tensor({2, 6, 3, 8}, 1))}, 1, heads);
  expect_matches_cpu(transpose, Precision::fp32, {0, 0}, false, "transpose heads");
  expect_matches_cpu(transpose, Precision::fp16, {0, 0}, false, "transpose heads");
  Attributes last;
  last.set("axis", int64_t(-1));
  // Split (one split dispatch for up to 7 outputs): along the last axis with ranges of multiples
  // of 4 (vec4) or not, along a middle axis with an inner extent of 4 (vec4) or 3, 9 outputs
  // (per-output copies), an empty output.
  struct SplitCase {
    Shape x;
    int64_t axis;
    std::vector<int64_t> parts;
  };
  const SplitCase splits[] = {{{5, 36}, -1, {8, 16, 12}},
                              {{5, 36}, -1, {4, 6, 26}},
                              {{2, 9, 4}, 1, {2, 3, 4}},
                              {{2, 9, 3}, 1, {5, 1, 3}},
                              {{3, 9}, 1, {1, 1, 1, 1, 1, 1, 1, 1, 1}},
                              {{4, 6}, 0, {1, 0, 3}}};
  for (const SplitCase& sc : splits) {
    Tensor split(DType::i64, Shape{int64_t(sc.parts.size())});
    std::copy(sc.parts.begin(), sc.parts.end(), split.data<int64_t>());
    Attributes axis;
    axis.set("axis", sc.axis);
    auto c = single_node("Split", {input(test::random_tensor(sc.x, 2)), constant(split)}, sc.parts.size(), axis);
    const std::string what = cat("split ", sc.x.str(), " axis ", sc.axis, " into ", sc.parts.size());
    expect_matches_cpu(c, Precision::fp32, {0, 0}, false, what);
    expect_matches_cpu(c, Precision::fp16, {0, 0}, false, what);
  }
  auto concat = single_node("Concat", {input(test::random_tensor({3, 4, 8}, 3)), input(test::random_tensor({3, 4, 12}, 4))},
                            1, last);
  expect_matches_cpu(concat, Precision::fp32, {0, 0}, false, "concat");
  expect_matches_cpu(concat, Precision::fp16, {0, 0}, false, "concat");
}

}  // namespace
}  // namespace vx::test
