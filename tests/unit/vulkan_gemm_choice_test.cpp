// The Vulkan GEMM's kernel, tile and K-split choice (backends/vulkan/kernels/gemm_plan.h) for a
// device with fp16 cooperative matrices, checked without one: planning names shaders and dispatch
// sizes only, so the choice that the H100 / H200 measurements fitted (bench/onnx/results/
// session31_2026-12-05/) is tested here on every machine, lavapipe and CI included. The kernels
// themselves are compared to the CPU reference on such a device (test_parity's VulkanGemm suite).
#include <gtest/gtest.h>

#include <string>

#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/gemm_plan.h"
#include "common/test_util.h"

namespace vx::vk {
namespace {

using test::ScopedEnv;

// Every knob of the GEMM choice unset (measurements set them; the cases set their own on top).
struct DefaultChoiceKnobs {
  ScopedEnv gemm{"VOLVOX_VK_GEMM", nullptr}, tile{"VOLVOX_VK_STAGED_TILE", nullptr}, split{"VOLVOX_VK_SPLITK", nullptr},
      cost{"VOLVOX_VK_STAGED_SPLIT_COST", nullptr}, cap{"VOLVOX_VK_STAGED_MAX_GROUPS", nullptr},
      bound{"VOLVOX_VK_STAGED_UNSPLIT_MAX_K", nullptr}, full{"VOLVOX_VK_STAGED_FULL_GROUPS", nullptr},
      pair{"VOLVOX_VK_PAIR_SPLIT_MIN_CHANNELS", nullptr}, gemv{"VOLVOX_VK_GEMV", nullptr},
      large{"VOLVOX_VK_LARGE_MIN_MACS", nullptr}, lanes{"VOLVOX_VK_REDUCE_LANES_MIN_SPLITS", nullptr},
      ln_quads{"VOLVOX_VK_REDUCE_LN_QUADS", nullptr}, by_last{"VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS", nullptr};
};

// A node planned at fp16 on a device with cooperative matrices and 48 KiB of shared memory (the
// H100's and H200's limit under Vulkan), unless told otherwise.
struct Planning {
  Graph graph;
  Node node;
  DeviceInfo device;
  OpInfo info;
  explicit Planning(bool coopmat = true, Precision precision = Precision::fp16)
      : info{node, graph, 17, precision, device, {}, {}, {}, coopmat} {
    node.op = "MatMul";
    node.name = "product";
    device.max_shared_memory = 48 * 1024;
  }
};

GemmLayout rows_layout(bool b_vec) {
  GemmLayout layout;
  layout.a_vec = true;
  layout.b_vec = b_vec;
  return layout;
}

// Y [M, N] = A [M, K] B [K, N], both row-major, B's rows `b_stride` apart (N unless padded).
GemmDesc product(int64_t m, int64_t n, int64_t k, int64_t b_stride = 0) {
  GemmDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.sam = k;
  d.sbk = b_stride ? b_stride : n;
  d.b_rows_padded = b_stride != 0 && b_stride != n;
  d.a = Binding::in(0);
  d.b = Binding::in(1);
  d.y = Binding::out(0);
  return d;
}

std::string plan_variant(const GemmDesc& d, DeviceType storage = DeviceType::f16) {
  Planning p;
  OpPlan plan;
  return add_gemm(plan, p.info, d, storage);
}

TEST(VulkanGemmChoice, StagedTileByWorkgroupsAndHowBLoads) {
  const DefaultChoiceKnobs knobs;
  Planning p;
  auto choose = [&](int64_t m, int64_t n, int64_t k, bool b_vec) {
    return choose_gemm_kernel(p.info, DeviceType::f16, m, n, k, rows_layout(b_vec));
  };
  // A transformer's products at 128 tokens: fewer than 128 tiles of 64 x 64, so 32 x 64.
  EXPECT_EQ(choose(128, 1536, 512, true), GemmKernel::staged_m32n64);
  EXPECT_EQ(choose(128, 2048, 512, true), GemmKernel::staged_m32n64);
  EXPECT_EQ(choose(128, 512, 512, true), GemmKernel::staged_m32n64);  // 2^25: staged since session 31
  // >= 128 tiles of 64 x 64, and >= 256 of 128 x 128.
  EXPECT_EQ(choose(1024, 2048, 64, true), GemmKernel::staged_n64);
  EXPECT_EQ(choose(2048, 2048, 2048, true), GemmKernel::staged_large);
  // B gathered element by element: over long rows 64 x 64 (DeepLabV3's 1x1 layers at 33 x 33
  // pixels), over short ones 32 x 64 (ResNet-50's at 14 x 14).
  EXPECT_EQ(choose(256, 1089, 960, false), GemmKernel::staged_n64);
  EXPECT_EQ(choose(256, 196, 1024, false), GemmKernel::staged_m32n64);
  // >= 2^30 multiply-adds over K >= 2048, B's rows on words: 128 x 128 (DeepLabV3's ASPP product);
  // gathered rows, or fewer multiply-adds, or a shorter K: not.
  EXPECT_EQ(choose(256, 1089, 8640, true), GemmKernel::staged_large);
  EXPECT_EQ(choose(256, 1089, 8640, false), GemmKernel::staged_n64);
  EXPECT_EQ(choose(256, 1024, 4095, true), GemmKernel::staged_n64);  // 2^30 - 2^18
  EXPECT_EQ(choose(256, 1024, 4096, true), GemmKernel::staged_large);
  EXPECT_EQ(choose(2048, 512, 1024, true), GemmKernel::staged_n64);  // 2^30 at K 1024
  // K > 512 split so far that 64 x 64 tiles make >= 384 workgroups (sqrt(8000 K / (M N)) splits):
  // 64 x 64 (DeepLabV3's 3x3 classifier, 72 tiles x 8); short of that 32 x 64 (ResNet-50's 3x3
  // layers at 14 x 14, 16 x 19; the encoder's feed-forward down-projection, 16 x 15).
  EXPECT_EQ(choose(256, 1089, 2304, true), GemmKernel::staged_n64);
  EXPECT_EQ(choose(256, 196, 2304, true), GemmKernel::staged_m32n64);
  EXPECT_EQ(choose(128, 512, 2048, true), GemmKernel::staged_m32n64);
  {
    // The bound of session 47, 256 (a measurement knob): ResNet-50's 3x3 layers at 14 x 14 (304
    // groups) take 64 x 64 tiles too.
    ScopedEnv full("VOLVOX_VK_STAGED_FULL_GROUPS", "256");
    EXPECT_EQ(choose(256, 196, 2304, true), GemmKernel::staged_n64);
    EXPECT_EQ(choose(256, 1089, 2304, true), GemmKernel::staged_n64);
  }
  ScopedEnv forced("VOLVOX_VK_STAGED_TILE", "64x128");
  EXPECT_EQ(choose(128, 1536, 512, true), GemmKernel::staged);
  EXPECT_EQ(choose(2048, 2048, 2048, true), GemmKernel::staged_large);  // by tile count still
}

TEST(VulkanGemmChoice, SmallNarrowAndFp32ProductsStayOnTheOtherKernels) {
  const DefaultChoiceKnobs knobs;
  Planning p;
  const GemmLayout layout = rows_layout(true);
  // Below 2^22 multiply-adds: the 64 x 64 FMA kernel.
  EXPECT_EQ(choose_gemm_kernel(p.info, DeviceType::f16, 64, 256, 255, layout), GemmKernel::tiled);
  EXPECT_EQ(choose_gemm_kernel(p.info, DeviceType::f16, 64, 256, 256, layout), GemmKernel::staged_m32n64);
  // At most 32 rows over >= 4096 columns: the 32 x 128 FMA tile, not 128 x 128 staged tiles.
  EXPECT_EQ(choose_gemm_kernel(p.info, DeviceType::f16, 16, 67600, 16, layout), GemmKernel::tiled_m32);
  // A classifier head at batch 1: the gemv kernel where B's rows load as words (any K), else the
  // rows kernel up to K 1536; VOLVOX_VK_GEMV=0 leaves it to the rows kernel.
  EXPECT_EQ(choose_gemm_kernel(p.info, DeviceType::f16, 1, 1000, 1280, layout), GemmKernel::gemv);
  EXPECT_EQ(choose_gemm_kernel(p.info, DeviceType::f16, 4, 1000, 2048, layout), GemmKernel::gemv);
  EXPECT_EQ(choose_gemm_kernel(p.info, DeviceType::f16, 1, 1001, 1280, rows_layout(false)), GemmKernel::rows);
  EXPECT_EQ(choose_gemm_kernel(p.info, DeviceType::f16, 5, 1000, 64, layout), GemmKernel::tiled);  // 5 rows: no longer few
  {
    ScopedEnv off("VOLVOX_VK_GEMV", "0");
    EXPECT_EQ(choose_gemm_kernel(p.info, DeviceType::f16, 1, 1000, 1280, layout), GemmKernel::rows);
  }
  // fp32 storage, or no cooperative matrices: never staged.
  EXPECT_EQ(choose_gemm_kernel(p.info, DeviceType::f32, 128, 1536, 512, layout), GemmKernel::tiled);
  Planning plain(false);
  EXPECT_EQ(choose_gemm_kernel(plain.info, DeviceType::f16, 128, 1536, 512, layout), GemmKernel::tiled);
}

TEST(VulkanGemmChoice, KSplitsAndPaddedRowsInThePlan) {
  const DefaultChoiceKnobs knobs;
  // Split counts: each product's reduce as a pass (SplitsOfFewWaysAreAddedByTheLastSplitOfEachTile).
  const ScopedEnv as_pass{"VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS", "0"};
  // 128 tiles of 32 x 64 and K 512 (> 256): split, sqrt(11000 * 512 / (128 * 2048)) = 4.63 ways; at
  // K 256 whole.
  EXPECT_EQ(plan_variant(product(128, 2048, 512)), "coopmat_splitk4+vecA+vecB@staged32x64");
  EXPECT_EQ(plan_variant(product(128, 2048, 256)), "coopmat+vecA+vecB@staged32x64");
  // DeepLabV3's ASPP product over its padded im2col rows (1089 pixels, rows of 1096): 16-byte B
  // loads, 18 tiles of 128 x 128, K split 7 ways: 126 workgroups, one wave (18 by the formula).
  EXPECT_EQ(plan_variant(product(256, 1089, 8640, 1096)), "coopmat_splitk7+vecA+vecB@staged128x128");
  // The same rows unpadded: gathered, on 64 x 64 tiles, whose 72 tiles x 18 splits
  // (sqrt(11000 K / (M N))) make >= 384 workgroups, split 7 ways: no more than 512 workgroups.
  EXPECT_EQ(plan_variant(product(256, 1089, 8640)), "coopmat_splitk7+vecA@staged64x64");
  // The encoder's feed-forward down-projection: 32 tiles of 32 x 64, 18 splits by the formula, 16
  // by the cap of 512 workgroups, as K chunks of 128.
  EXPECT_EQ(plan_variant(product(128, 512, 2048)), "coopmat_splitk16+vecA+vecB@staged32x64");
  {
    ScopedEnv cap_256("VOLVOX_VK_STAGED_MAX_GROUPS", "256");  // session 45's cap: 8
    EXPECT_EQ(plan_variant(product(128, 512, 2048)), "coopmat_splitk8+vecA+vecB@staged32x64");
  }
  {
    ScopedEnv bound_512("VOLVOX_VK_STAGED_UNSPLIT_MAX_K", "512");  // session 45's bound: whole
    EXPECT_EQ(plan_variant(product(128, 2048, 512)), "coopmat+vecA+vecB@staged32x64");
  }
  // Padded rows load as vectors only on the staged kernel: the FMA kernel clamps its loads to N - 8.
  EXPECT_EQ(plan_variant(product(32, 1089, 64, 1096)), "tiled+vecA");
  // fp32: the FMA kernel with K split over more workgroups, as before; its rows are not quads (fp16's
  // 16-byte words), so the reduce pass adds the 8 splits on lanes.
  EXPECT_EQ(plan_variant(product(128, 512, 512), DeviceType::f32), "tiled_splitk8+reduceLanes+vecA+vecB");
}

TEST(VulkanGemmChoice, ManySplitsOverRowsNotOfQuadsReduceOnLanes) {
  const DefaultChoiceKnobs knobs;
  // ResNet-50's layer-4 3x3 product (512 channels of 49 pixels, K 4608): 16 tiles, K split in 29
  // chunks of 160.
  Planning p;
  OpPlan plan;
  EXPECT_EQ(add_gemm(plan, p.info, product(512, 49, 4608), DeviceType::f16), "coopmat_splitk29+reduceLanes+vecA@staged32x64");
  ASSERT_EQ(plan.dispatches.size(), 2u);
  EXPECT_EQ(plan.dispatches[1].shader, "gemm_reduce.f16_lanes");
  const std::array<uint32_t, 3> g = plan.dispatches[1].groups;
  EXPECT_EQ(uint64_t(g[0]) * g[1] * g[2], 512u * 49u * 8u / 256u);  // 8 invocations an element
  // Rows of quads keep the reduce pass that loads 4 values at a time (layer 3: 196 pixels, 15 splits).
  EXPECT_EQ(plan_variant(product(256, 196, 2304)), "coopmat_splitk15+vecA+halfVecB@staged32x64");
  // A deferred reduce pass (a vx.ConvPair's first conv) stays plain: it may become another pass.
  Dispatch deferred;
  OpPlan pair;
  EXPECT_EQ(add_gemm(pair, p.info, product(512, 49, 2048), DeviceType::f16, &deferred).find("+reduceLanes"),
            std::string::npos);
  EXPECT_EQ(deferred.shader, "gemm_reduce.f16");
  {
    ScopedEnv few("VOLVOX_VK_REDUCE_LANES_MIN_SPLITS", "30");
    EXPECT_EQ(plan_variant(product(512, 49, 4608)), "coopmat_splitk29+vecA@staged32x64");
  }
  ScopedEnv off("VOLVOX_VK_REDUCE_LANES_MIN_SPLITS", "0");
  EXPECT_EQ(plan_variant(product(512, 49, 4608)), "coopmat_splitk29+vecA@staged32x64");
}

TEST(VulkanGemmChoice, SplitsOfFewWaysAreAddedByTheLastSplitOfEachTileWhereAllowed) {
  const DefaultChoiceKnobs knobs;
  // fp32 on the 64 x 64 FMA kernel: 8 splits over 2 x 8 tiles. Not by default (never, until measured).
  Planning p;
  EXPECT_EQ(plan_variant(product(128, 512, 512), DeviceType::f32), "tiled_splitk8+reduceLanes+vecA+vecB");
  ScopedEnv allowed("VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS", "8");
  // One dispatch whose last split of a tile adds them (spec constant 40), counting at its tile's
  // word (binding 7).
  OpPlan plan;
  EXPECT_EQ(add_gemm(plan, p.info, product(128, 512, 512), DeviceType::f32), "tiled_splitk8+reduceByLastSplit+vecA+vecB");
  ASSERT_EQ(plan.dispatches.size(), 1u);
  const Dispatch& d = plan.dispatches[0];
  ASSERT_EQ(d.spec_constants.size(), 41u);
  EXPECT_EQ(d.spec_constants[40], 1);
  ASSERT_EQ(d.bindings.size(), 8u);
  EXPECT_EQ(d.bindings[7].kind, Binding::Kind::counters);
  EXPECT_EQ(plan.counter_words, std::vector<uint64_t>{8 * 2});
  EXPECT_EQ(d.groups[2], 8u);
  // More splits than allowed: the reduce pass.
  OpPlan many;
  EXPECT_EQ(add_gemm(many, p.info, product(40, 24, 640), DeviceType::f32), "tiled_splitk10+reduceLanes+vecA+vecB");
  EXPECT_EQ(many.dispatches.size(), 2u);
  EXPECT_TRUE(many.counter_words.empty());
  // Not on the tensor-core kernels (the staged kernel's version awaits a device:
  // bench/onnx/results/session52_2026-12-08/), nor for a deferred reduce pass (a vx.ConvPair's first
  // conv's may become its im2col pass).
  EXPECT_EQ(plan_variant(product(128, 2048, 512)), "coopmat_splitk4+vecA+vecB@staged32x64");
  Dispatch deferred;
  OpPlan pair;
  EXPECT_EQ(add_gemm(pair, p.info, product(128, 100, 512), DeviceType::f32, &deferred), "tiled_splitk8+vecA+vecB");
  EXPECT_EQ(deferred.shader, "gemm_reduce.f32");
}

TEST(VulkanGemmChoice, AConvPairsFirstConvOverFewChannelsStaysWhole) {
  const DefaultChoiceKnobs knobs;
  // Split counts: each product's reduce as a pass (SplitsOfFewWaysAreAddedByTheLastSplitOfEachTile).
  const ScopedEnv as_pass{"VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS", "0"};
  // The first 1x1 conv of a pair (its reduce pass deferred into the second conv's im2col pass):
  // ResNet-50's layer-1 (64 channels of 3136 pixels, K 256) whole, its layer-2 (128 of 784, K 512)
  // split; the same layer-1 product outside a pair split as any product.
  auto pair_first = [](int64_t m, int64_t n, int64_t k) {
    Planning p;
    OpPlan plan;
    Dispatch deferred;
    return add_gemm(plan, p.info, product(m, n, k), DeviceType::f16, &deferred);
  };
  EXPECT_EQ(pair_first(64, 3136, 256), "coopmat+vecA+vecB@staged32x64");
  EXPECT_EQ(pair_first(128, 784, 512), "coopmat_splitk6+vecA+vecB@staged32x64");  // 6.4 by the formula
  EXPECT_EQ(plan_variant(product(64, 3136, 256)), "coopmat_splitk3+vecA+vecB@staged32x64");
  ScopedEnv off("VOLVOX_VK_PAIR_SPLIT_MIN_CHANNELS", "1");
  EXPECT_EQ(pair_first(64, 3136, 256), "coopmat_splitk3+vecA+vecB@staged32x64");
}

TEST(VulkanGemmChoice, StagedSplitCostSetsHowFarKSplits) {
  const DefaultChoiceKnobs knobs;
  // Split counts: each product's reduce as a pass (SplitsOfFewWaysAreAddedByTheLastSplitOfEachTile).
  const ScopedEnv as_pass{"VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS", "0"};
  // The encoder's QKV product: 96 tiles of 32 x 64, sqrt(8000 * 512 / (128 * 1536)) = 4.6 splits.
  {
    ScopedEnv cost("VOLVOX_VK_STAGED_SPLIT_COST", nullptr);
    EXPECT_EQ(plan_variant(product(128, 1536, 512)), "coopmat_splitk4+vecA+vecB@staged32x64");
  }
  {
    ScopedEnv cost("VOLVOX_VK_STAGED_SPLIT_COST", "0");  // not positive: the default
    EXPECT_EQ(plan_variant(product(128, 1536, 512)), "coopmat_splitk4+vecA+vecB@staged32x64");
  }
  {
    ScopedEnv cost("VOLVOX_VK_STAGED_SPLIT_COST", "5648");  // sessions 46-47: sqrt(14.7)
    EXPECT_EQ(plan_variant(product(128, 1536, 512)), "coopmat_splitk3+vecA+vecB@staged32x64");
  }
  {
    ScopedEnv cost("VOLVOX_VK_STAGED_SPLIT_COST", "2824");  // before session 46: sqrt(7.4)
    EXPECT_EQ(plan_variant(product(128, 1536, 512)), "coopmat_splitk2+vecA+vecB@staged32x64");
  }
  {
    ScopedEnv cost("VOLVOX_VK_STAGED_SPLIT_COST", "700");  // sqrt(1.8): whole
    EXPECT_EQ(plan_variant(product(128, 1536, 512)), "coopmat+vecA+vecB@staged32x64");
  }
  {
    // The feed-forward down-projection: 13 splits by the default, sqrt(700 * 2048 / (128 * 512)) = 4.6.
    ScopedEnv cost("VOLVOX_VK_STAGED_SPLIT_COST", "700");
    EXPECT_EQ(plan_variant(product(128, 512, 2048)), "coopmat_splitk4+vecA+vecB@staged32x64");
  }
}

}  // namespace
}  // namespace vx::vk
