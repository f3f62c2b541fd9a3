// What a dependent dispatch costs when the dependency is a pipeline barrier, and when it is a
// counter in memory instead (dispatch_chain_probe.comp: the previous step's workgroups increment
// it, the next step's spin on it; no barrier, so the dispatches may overlap). A chain of `steps`
// dispatches each adds 1 to every element of the previous one's output, so the result says whether
// the ordering held; GPU time by timestamps around the chain, after a warm-up by time; wall clock
// per submit. "wrong elements" and "spins run out" are summed over every run of a row, the
// warm-up's included. A probe for the executor's recording, not used by it; measured on an H100 in
// bench/onnx/results/session40_2026-12-06/ (counters: slower, and the chain's result did not hold).
//
//   dispatch_chain_probe [--steps 200] [--runs 15] [--warmup-ms 300] [--spin-limit 65536]
//                        [--spv-dir DIR (default: the executable's folder)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backends/vulkan/command_context.h"
#include "backends/vulkan/context.h"
#include "backends/vulkan/memory.h"
#include "backends/vulkan/pipeline.h"
#include "backends/vulkan/shader_registry.h"
#include "backends/vulkan/vk_common.h"
#include "probe_util.h"

using namespace vx::vk;
using vx::probe::median;
using vx::probe::read_spirv;

namespace {

struct Push {
  uint32_t n, step, producer_workgroups, work, spin_limit, fail_index;
};

// How the steps are ordered.
enum class Order { Barrier, Counter, CounterCoherent, None };
const char* order_name(Order o) {
  switch (o) {
    case Order::Barrier: return "barrier";
    case Order::Counter: return "counter";
    case Order::CounterCoherent: return "counter, coherent buffers";
    case Order::None: return "none (undefined)";
  }
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t steps = 200, runs = 15, warmup_ms = 300, spin_limit = 1u << 16;
  std::string spv_dir;
  if (!vx::probe::parse_flags(argc, argv,
                              {{"steps", &steps, 2, 10000}, {"runs", &runs, 1, 1000}, {"warmup-ms", &warmup_ms, 0, 60000},
                               {"spin-limit", &spin_limit, 1, 1ul << 30}},
                              spv_dir))
    return 1;
  try {
    VulkanContext ctx;
    const DeviceInfo& info = ctx.info();
    std::printf("device: %s (%s), vulkanMemoryModel %d, steps %u, runs %u after %u ms, spin limit %u\n",
                info.name.c_str(), info.driver_version.c_str(), int(info.vulkan_memory_model), steps, runs,
                warmup_ms, spin_limit);
    if (!info.vulkan_memory_model || !info.timestamps) {
      std::fprintf(stderr, "error: the device lacks vulkanMemoryModel or timestamps\n");
      return 1;
    }
    VkDevice device = ctx.device();
    KernelLayout layout(ctx, 3, sizeof(Push));
    register_shader("dispatch_chain_probe", read_spirv(spv_dir + "/dispatch_chain_probe.spv"));
    register_shader("dispatch_chain_probe.coherent", read_spirv(spv_dir + "/dispatch_chain_probe.coherent.spv"));

    const uint32_t max_workgroups = 4224;
    const VkDeviceSize bytes = VkDeviceSize(max_workgroups) * 256 * 4;
    DeviceBuffer a(ctx, bytes, MemoryUse::DeviceLocal, "probe a");
    DeviceBuffer b(ctx, bytes, MemoryUse::DeviceLocal, "probe b");
    DeviceBuffer counters(ctx, VkDeviceSize(steps + 1) * 4, MemoryUse::DeviceLocal, "probe counters");
    DeviceBuffer readback(ctx, bytes + VkDeviceSize(steps + 1) * 4, MemoryUse::Staging, "probe readback");
    VkDescriptorPool pool = KernelLayout::create_pool(ctx, 2, 3);
    VkDescriptorSet sets[2] = {layout.allocate_set(pool), layout.allocate_set(pool)};
    VkDescriptorBufferInfo ab[3] = {{a.buffer(), 0, bytes}, {b.buffer(), 0, bytes}, {counters.buffer(), 0, VK_WHOLE_SIZE}};
    VkDescriptorBufferInfo ba[3] = {{b.buffer(), 0, bytes}, {a.buffer(), 0, bytes}, {counters.buffer(), 0, VK_WHOLE_SIZE}};
    KernelLayout::write_set(device, sets[0], ab);
    KernelLayout::write_set(device, sets[1], ba);
    VkQueryPool queries = create_timestamp_pool(ctx, 2);
    CommandContext commands(ctx);
    VkCommandBuffer cmd = commands.allocate();
    const double tick_us = double(ctx.properties().limits.timestampPeriod) * 1e-3;

    std::printf("\n| workgroups | extra work | shared KB | order | GPU us a step, median / min | wall us a step, median | "
                "wrong elements | spins run out |\n| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |\n");
    for (uint32_t workgroups : {1u, 132u, 1056u, 4224u}) {
      for (uint32_t work : {0u, 256u}) {
        for (uint32_t shared_floats : {1u, 10240u}) {
          for (Order order : {Order::Barrier, Order::Counter, Order::CounterCoherent, Order::None}) {
            const uint32_t n = workgroups * 256;
            const int32_t counter_wait = order == Order::Counter || order == Order::CounterCoherent;
            const ComputePipeline pipeline(ctx, layout,
                                           order == Order::CounterCoherent ? "dispatch_chain_probe.coherent"
                                                                           : "dispatch_chain_probe",
                                           {counter_wait, int32_t(shared_floats)});
            begin_recording(cmd);
            vkCmdResetQueryPool(cmd, queries, 0, 2);
            vkCmdFillBuffer(cmd, a.buffer(), 0, bytes, 0);
            vkCmdFillBuffer(cmd, counters.buffer(), 0, VK_WHOLE_SIZE, 0);
            barrier(cmd, kTransferWrite, kComputeReadWrite);
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 0);
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline());
            for (uint32_t s = 0; s < steps; ++s) {
              if (s > 0 && order == Order::Barrier) barrier(cmd, kComputeWrite, kComputeRead);
              vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout.pipeline_layout(), 0, 1,
                                      &sets[s % 2], 0, nullptr);
              Push push{n, s, workgroups, work, spin_limit, steps};
              vkCmdPushConstants(cmd, layout.pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
              vkCmdDispatch(cmd, workgroups, 1, 1);
          }
          vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
          barrier(cmd, kComputeWrite, kTransferRead);
          VkBufferCopy out{0, 0, VkDeviceSize(n) * 4};
          vkCmdCopyBuffer(cmd, steps % 2 == 0 ? a.buffer() : b.buffer(), readback.buffer(), 1, &out);
          VkBufferCopy fails{0, bytes, VkDeviceSize(steps + 1) * 4};
          vkCmdCopyBuffer(cmd, counters.buffer(), readback.buffer(), 1, &fails);
          barrier(cmd, kTransferWrite, kHostRead);
          end_recording(cmd);

          std::vector<double> gpu, wall;
          auto start = std::chrono::steady_clock::now();
          uint64_t wrong = 0, ran_out = 0;
          for (uint32_t r = 0;; ++r) {
            auto t0 = std::chrono::steady_clock::now();
            commands.submit_and_wait(cmd);
            auto t1 = std::chrono::steady_clock::now();
            uint64_t ts[2];
            VX_VK_CHECK(vkGetQueryPoolResults(device, queries, 0, 2, sizeof ts, ts, 8,
                                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
            readback.invalidate();
            const float* values = reinterpret_cast<const float*>(readback.mapped());
            for (uint32_t i = 0; i < n; ++i) wrong += values[i] != float(steps);
            uint32_t fail_count;
            std::memcpy(&fail_count, readback.mapped() + bytes + VkDeviceSize(steps) * 4, 4);
            ran_out += fail_count;
            bool warm = std::chrono::duration<double, std::milli>(t0 - start).count() >= warmup_ms;
            if (warm || ran_out > 0) {  // a wait that ran out: one row, no more runs of it
              gpu.push_back(double(ts[1] - ts[0]) * tick_us / steps);
              wall.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / steps);
              if (gpu.size() == runs || ran_out > 0) break;
            }
          }
          std::printf("| %u | %u | %u | %s | %.2f / %.2f | %.2f | %llu | %llu |\n", workgroups, work,
                      shared_floats * 4 / 1024, order_name(order), median(gpu), *std::min_element(gpu.begin(), gpu.end()), median(wall),
                      (unsigned long long)wrong, (unsigned long long)ran_out);
          std::fflush(stdout);
          }
        }
      }
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
