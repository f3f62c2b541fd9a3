// What one K step of the staged tensor-core GEMM costs, part by part (gemm_step_probe.comp: its
// 32 x 64 tile's K loop with the global loads, the shared-memory stores, the barrier, the
// fragments' loads and the MMAs each switched on or off, two kinds of barrier, global loads one or
// two steps ahead, and B read from the L2 cache or streamed from memory). A step's cost is the
// difference of one dispatch's GPU time at K = 4096 and K = 128 over the 124 steps between, median
// of the runs after a warm-up by time, at 1, 132 and 528 workgroups. The full modes' products are
// checked against the CPU's (exact: the operands are multiples of 1/8). Then a dispatch's fixed
// cost: chains of 32 dependent dispatches of two steps each, the tile stored as fp32 fragments or
// through the GEMM kernels' epilogue (bias, residual, ReLU, fp16; the shader's kEpilogue), whose
// values are checked too.
// A probe for the GEMM kernel, not used by the executor.
//
//   gemm_step_probe [--runs 15] [--warmup-ms 200] [--chain-only 1] [--spv-dir DIR (default: the executable's folder)]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "backends/vulkan/command_context.h"
#include "backends/vulkan/context.h"
#include "backends/vulkan/memory.h"
#include "backends/vulkan/pipeline.h"
#include "backends/vulkan/shader_registry.h"
#include "backends/vulkan/vk_common.h"
#include "core/half.h"
#include "probe_util.h"

using namespace vx::vk;
using vx::probe::median;
using vx::probe::read_spirv;

namespace {

constexpr int kRowsA = 256, kColsB = 512, kTileM = 32, kTileN = 64, kMaxK = 4096, kMinK = 128;
constexpr uint32_t kMaxWorkgroups = 528;
constexpr uint32_t kWorkgroups[] = {1, 132, kMaxWorkgroups};
constexpr int kChain = 32;  // dependent dispatches a chain
constexpr uint32_t kChainWorkgroups = 132;

// Small multiples of 1/8, so that every fp32 sum of their products is exact.
float operand(size_t i, int salt) { return float(int((i * 7 + size_t(salt)) % 9) - 4) / 8.0f; }

struct Mode {
  const char* name;
  int parts, barrier_kind, prefetch, private_b, epilogue = 0;
};

// The first row and column of workgroup w's tile of Y (gemm_step_probe.comp's m0, n0).
std::pair<int, int> tile_origin(uint32_t w) {
  return {int(w % (kRowsA / kTileM)) * kTileM, int((w / (kRowsA / kTileM)) % (kColsB / kTileN)) * kTileN};
}

// B's element (k, n0 + n) for workgroup w (gemm_step_probe.comp's b_index): one K x 512 matrix, or
// with private_b the workgroup's own K x 64 slab.
size_t b_index(bool private_b, uint32_t w, int k_total, int n0, int k, int n) {
  return private_b ? (size_t(w) * k_total + k) * kTileN + n : size_t(k) * kColsB + n0 + n;
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t runs = 15, warmup_ms = 200, chain_only = 0;
  std::string spv_dir;
  if (!vx::probe::parse_flags(argc, argv, {{"runs", &runs, 1, 1000}, {"warmup-ms", &warmup_ms, 0, 60000}, {"chain-only", &chain_only, 0, 1}}, spv_dir))
    return 1;
  try {
    VulkanContext ctx;
    const DeviceInfo& info = ctx.info();
    std::printf("device: %s (%s), runs %u after %u ms\n", info.name.c_str(), info.driver_version.c_str(), runs, warmup_ms);
    if (!info.coopmat_nv || !info.timestamps) {
      std::fprintf(stderr, "error: the device lacks VK_NV_cooperative_matrix or timestamps\n");
      return 1;
    }
    VkDevice device = ctx.device();
    KernelLayout layout(ctx, 3, 4 * sizeof(int32_t));
    register_shader("gemm_step_probe", read_spirv(spv_dir + "/gemm_step_probe.spv"));

    // A (256 x K) and B (K x 512, or a K x 64 slab a workgroup) are refilled per K; B's element i
    // is operand(i, 3) in both layouts.
    const VkDeviceSize a_bytes = VkDeviceSize(kRowsA) * kMaxK * 2, b_bytes = VkDeviceSize(kMaxK) * kTileN * kMaxWorkgroups * 2;
    const VkDeviceSize y_bytes = VkDeviceSize(kMaxWorkgroups) * kTileM * kTileN * 4;
    DeviceBuffer a(ctx, a_bytes, MemoryUse::DeviceLocal, "probe a");
    DeviceBuffer b(ctx, b_bytes, MemoryUse::DeviceLocal, "probe b");
    DeviceBuffer y(ctx, y_bytes, MemoryUse::DeviceLocal, "probe y");
    DeviceBuffer staging(ctx, std::max(a_bytes + b_bytes, y_bytes), MemoryUse::Staging, "probe staging");
    VkDescriptorPool pool = KernelLayout::create_pool(ctx, 1, 3);
    VkDescriptorSet set = layout.allocate_set(pool);
    VkDescriptorBufferInfo bound[3] = {{a.buffer(), 0, a_bytes}, {b.buffer(), 0, b_bytes}, {y.buffer(), 0, y_bytes}};
    KernelLayout::write_set(device, set, bound);
    VkQueryPool queries = create_timestamp_pool(ctx, 2);
    CommandContext commands(ctx);
    VkCommandBuffer cmd = commands.allocate();
    const double tick_us = double(ctx.properties().limits.timestampPeriod) * 1e-3;

    auto upload = [&](int k) {
      uint16_t* words = reinterpret_cast<uint16_t*>(staging.mapped());
      for (size_t i = 0; i < size_t(kRowsA) * k; ++i) words[i] = vx::float_to_half(operand(i, 0));
      for (size_t i = 0; i < size_t(k) * kTileN * kMaxWorkgroups; ++i) words[a_bytes / 2 + i] = vx::float_to_half(operand(i, 3));
      staging.flush();
      begin_recording(cmd);
      VkBufferCopy ca{0, 0, a_bytes}, cb{a_bytes, 0, b_bytes};
      vkCmdCopyBuffer(cmd, staging.buffer(), a.buffer(), 1, &ca);
      vkCmdCopyBuffer(cmd, staging.buffer(), b.buffer(), 1, &cb);
      barrier(cmd, kTransferWrite, kComputeRead);
      end_recording(cmd);
      commands.submit_and_wait(cmd);
    };
    // Y copied to the staging buffer, and mapped.
    auto read_y = [&] {
      begin_recording(cmd);
      VkBufferCopy cy{0, 0, y_bytes};
      vkCmdCopyBuffer(cmd, y.buffer(), staging.buffer(), 1, &cy);
      barrier(cmd, kTransferWrite, kHostRead);
      end_recording(cmd);
      commands.submit_and_wait(cmd);
      staging.invalidate();
      return staging.mapped();
    };
    // The CPU's A B at (m0 + m, n0 + n) for workgroup w's tile.
    auto product = [](int k, uint32_t w, bool private_b, int m0, int n0, int m, int n) {
      float sum = 0;
      for (int kk = 0; kk < k; ++kk) sum += operand(size_t(m0 + m) * k + kk, 0) * operand(b_index(private_b, w, k, n0, kk, n), 3);
      return sum;
    };
    // Elements of Y that differ from the CPU's product, over the first `workgroups` blocks.
    auto wrong_elements = [&](int k, uint32_t workgroups, bool private_b) {
      const float* values = reinterpret_cast<const float*>(read_y());
      uint64_t wrong = 0;
      for (uint32_t w = 0; w < workgroups; ++w) {
        const auto [m0, n0] = tile_origin(w);
        for (int m = 0; m < kTileM; ++m)
          for (int n = 0; n < kTileN; ++n)
            wrong += values[(size_t(w) * kTileM + m) * kTileN + n] != product(k, w, private_b, m0, n0, m, n);
      }
      return wrong;
    };

    auto pipeline_for = [&](const Mode& m) {
      return ComputePipeline(ctx, layout, "gemm_step_probe", {m.parts, m.barrier_kind, m.prefetch, m.private_b, m.epilogue});
    };
    // GPU us between timestamps around `dispatches` dispatches of `workgroups` at K k (a barrier
    // between each two where asked): median and minimum of `runs` runs after the warm-up.
    auto time_gpu = [&](const ComputePipeline& pipeline, int32_t k, uint32_t workgroups, int dispatches, bool barriers) {
      begin_recording(cmd);
      vkCmdResetQueryPool(cmd, queries, 0, 2);
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 0);
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline());
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout.pipeline_layout(), 0, 1, &set, 0, nullptr);
      const int32_t push[4] = {k, kRowsA, kColsB, 5};  // gemm_step_probe.comp's Push
      vkCmdPushConstants(cmd, layout.pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
      for (int i = 0; i < dispatches; ++i) {
        if (i > 0 && barriers) barrier(cmd, kComputeWrite, kComputeReadWrite);
        vkCmdDispatch(cmd, workgroups, 1, 1);
      }
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
      end_recording(cmd);
      std::vector<double> gpu;
      const auto start = std::chrono::steady_clock::now();
      while (gpu.size() < runs) {
        const auto t0 = std::chrono::steady_clock::now();
        commands.submit_and_wait(cmd);
        uint64_t ts[2];
        VX_VK_CHECK(vkGetQueryPoolResults(device, queries, 0, 2, sizeof ts, ts, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        if (std::chrono::duration<double, std::milli>(t0 - start).count() >= warmup_ms)
          gpu.push_back(double(ts[1] - ts[0]) * tick_us);
      }
      return std::pair{median(gpu), *std::min_element(gpu.begin(), gpu.end())};
    };

    if (chain_only == 0) {  // the step table
      const Mode modes[] = {
          {"full (barrier())", 31, 0, 1, 0},
          {"full (execution barrier only)", 31, 1, 1, 0},
          {"full, loads two steps ahead", 31, 0, 2, 0},
          {"full, B streamed", 31, 0, 1, 1},
          {"full, B streamed, loads two steps ahead", 31, 0, 2, 1},
          {"no global loads", 30, 0, 1, 0},
          {"no shared stores (loads kept)", 29, 0, 1, 0},
          {"no barrier", 27, 0, 1, 0},
          {"no fragment loads", 23, 0, 1, 0},
          {"global loads + stores + barrier", 7, 0, 1, 0},
          {"fragment loads + MMAs", 24, 0, 1, 0},
          {"MMAs only", 16, 0, 1, 0},
          {"global loads only", 1, 0, 1, 0},
          {"global loads only, B streamed", 1, 0, 1, 1},
      };
      constexpr size_t kModes = sizeof modes / sizeof modes[0], kCounts = sizeof kWorkgroups / sizeof kWorkgroups[0];
      double at_k[2][kModes][kCounts][2];  // [K 128, K 4096][mode][workgroups][median, min] us
      uint64_t wrong[kModes][kCounts] = {};
      for (int ki = 0; ki < 2; ++ki) {
        const int32_t k = ki == 0 ? kMinK : kMaxK;
        upload(k);
        for (size_t mi = 0; mi < kModes; ++mi) {
          const Mode& mode = modes[mi];
          const ComputePipeline pipeline = pipeline_for(mode);
          for (size_t wi = 0; wi < kCounts; ++wi) {
            const uint32_t workgroups = kWorkgroups[wi];
            const auto [med, min] = time_gpu(pipeline, k, workgroups, 1, false);
            at_k[ki][mi][wi][0] = med;
            at_k[ki][mi][wi][1] = min;
            if (mode.parts == 31 && workgroups != kMaxWorkgroups) wrong[mi][wi] += wrong_elements(k, workgroups, mode.private_b);
          }
        }
      }
      std::printf("\n| mode | workgroups | us a step, median / min | dispatch at K 128 / 4096, us | wrong elements |\n"
                  "| --- | ---: | ---: | ---: | ---: |\n");
      const double steps = double(kMaxK - kMinK) / 32;
      for (size_t mi = 0; mi < kModes; ++mi)
        for (size_t wi = 0; wi < kCounts; ++wi) {
          const bool checked = modes[mi].parts == 31 && kWorkgroups[wi] != kMaxWorkgroups;
          std::printf("| %s | %u | %.3f / %.3f | %.1f / %.1f | %s |\n", modes[mi].name, kWorkgroups[wi],
                      (at_k[1][mi][wi][0] - at_k[0][mi][wi][0]) / steps, (at_k[1][mi][wi][1] - at_k[0][mi][wi][1]) / steps,
                      at_k[0][mi][wi][0], at_k[1][mi][wi][0], checked ? std::to_string(wrong[mi][wi]).c_str() : "-");
        }
    }

    // A dispatch's own fixed cost: chains of 32 dependent dispatches at K 64 (two steps), 132
    // workgroups, with a barrier between them or none (the floor; the result is then undefined).
    const Mode chain_modes[] = {{"full", 31, 0, 1, 0},
                                {"full, the kernels' epilogue (bias, residual, ReLU, fp16)", 31, 0, 1, 0, 1},
                                {"full, that epilogue with a lane's loads first", 31, 0, 1, 0, 2},
                                {"full, the kernels' epilogue as they write it (bias per column, bounds, flags)", 31, 0, 1, 0, 3},
                                {"full, that with a lane's loads first (branch s41-epilogue-loads-first)", 31, 0, 1, 0, 4},
                                {"full, the kernels' form with no branch around its loads, a lane's loads first", 31, 0, 1, 0, 5},
                                {"full, that with both fragments' loads before the K loop", 31, 0, 1, 0, 6},
                                {"MMAs only", 16, 0, 1, 0},
                                {"prologue only (first tile staged, zeros stored)", 0, 0, 1, 0}};
    // Elements of the epilogue's fp16 Y off relu(A B + bias + C) by more than fp16 rounding.
    auto wrong_epilogue = [&](int k, int epilogue) {
      const uint16_t* halves = reinterpret_cast<const uint16_t*>(read_y());
      uint64_t wrong = 0;
      for (uint32_t w = 0; w < kChainWorkgroups; ++w) {
        const auto [m0, n0] = tile_origin(w);
        for (int m = 0; m < kTileM; ++m)
          for (int n = 0; n < kTileN; ++n) {
            const float bias = operand(size_t(epilogue >= 3 ? n0 + n : m0 + m), 0);  // per column / row
            const float c = operand(size_t(m0 + m) * kColsB + n0 + n, 3);
            const float want = std::max(product(k, w, false, m0, n0, m, n) + bias + c, 0.0f);
            const float got = vx::half_to_float(halves[(size_t(w) * kTileM + m) * kTileN + n]);
            wrong += std::fabs(got - want) > 1e-3f * std::max(1.0f, std::fabs(want));
          }
      }
      return wrong;
    };
    const int32_t chain_k = 64;
    upload(chain_k);
    std::printf("\n| chain of %d dispatches, K %d, %u workgroups | us a dispatch with barriers, median / min | without | wrong elements |\n"
                "| --- | ---: | ---: | ---: |\n", kChain, chain_k, kChainWorkgroups);
    for (const Mode& mode : chain_modes) {
      const ComputePipeline pipeline = pipeline_for(mode);
      double per[2][2];
      for (int with_barriers = 1; with_barriers >= 0; --with_barriers) {
        const auto [med, min] = time_gpu(pipeline, chain_k, kChainWorkgroups, kChain, with_barriers != 0);
        per[with_barriers][0] = med / kChain;
        per[with_barriers][1] = min / kChain;
      }
      // The runs without barriers came last: their result is undefined only in order, each
      // dispatch writing the same values.
      const std::string wrong = mode.epilogue != 0 ? std::to_string(wrong_epilogue(chain_k, mode.epilogue)) : "-";
      std::printf("| %s | %.2f / %.2f | %.2f / %.2f | %s |\n", mode.name, per[1][0], per[1][1], per[0][0], per[0][1], wrong.c_str());
    }
    vkDeviceWaitIdle(device);
    destroy_tracked(device, queries, vkDestroyQueryPool, ObjectKind::QueryPool);
    destroy_tracked(device, pool, vkDestroyDescriptorPool, ObjectKind::DescriptorPool);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
