#include "denoise_vulkan/vulkan_temporal_stage.h"

#include <array>
#include <cstring>

#include "core/error.h"
#include "denoise_vulkan/vulkan_device_image.h"

namespace vx::denoise {

namespace {

// The bindings of shaders/temporal_stabilize.comp.
enum TemporalBinding : uint32_t {
  kOutputBinding, kMotionBinding, kDepthBinding, kNormalBinding, kLayoutsBinding,
  kPreviousHistoryBinding, kPreviousGuidesBinding, kNextHistoryBinding, kNextGuidesBinding,
  kTemporalBindings
};

// The shader's push constants (Frame).
struct TemporalFramePush {
  int32_t width = 0, height = 0;
  float blend = 0;
  int32_t history_valid = 0;
  int32_t use_normals = 0;
};
constexpr uint32_t kTemporalPushBytes = 32;
static_assert(sizeof(TemporalFramePush) <= kTemporalPushBytes);

constexpr VkDeviceSize kBytesPerPixelVec4 = 16;  // one vec4 per pixel in history and guides

}  // namespace

VulkanTemporalStage::VulkanTemporalStage(const vk::VulkanContext& ctx, std::string device_name)
    : ctx_(ctx), device_name_(std::move(device_name)) {
  layout_ = std::make_unique<vk::KernelLayout>(ctx_, kTemporalBindings, kTemporalPushBytes);
  stabilize_ = std::make_unique<vk::ComputePipeline>(ctx_, *layout_, "temporal_stabilize.stabilize");
  store_ = std::make_unique<vk::ComputePipeline>(ctx_, *layout_, "temporal_stabilize.store");
  image_layouts_ = vk::DeviceBuffer(ctx_, 4 * sizeof(vk::DenoiseImageDesc), vk::MemoryUse::Staging,
                                    "temporal stage image layouts");
  try {
    commands_ = vk::CommandContext(ctx_);
    cmd_ = commands_.allocate();
    descriptor_pool_ = vk::KernelLayout::create_pool(ctx_, 1, kTemporalBindings);
    set_ = layout_->allocate_set(descriptor_pool_);
    if (ctx_.info().timestamps) queries_ = vk::create_timestamp_pool(ctx_, 2);
  } catch (...) {
    release();
    throw;
  }
}

VulkanTemporalStage::~VulkanTemporalStage() { release(); }

void VulkanTemporalStage::release() {
  vk::destroy_tracked(ctx_.device(), queries_, vkDestroyQueryPool, vk::ObjectKind::QueryPool);
  vk::destroy_tracked(ctx_.device(), descriptor_pool_, vkDestroyDescriptorPool, vk::ObjectKind::DescriptorPool);
  commands_ = vk::CommandContext();
}

void VulkanTemporalStage::ensure_frame_buffers(int width, int height) {
  if (width == width_ && height == height_) return;
  history_valid_ = false;  // another size: a new history
  width_ = height_ = 0;
  for (int k = 0; k < 2; ++k) history_[k] = vk::DeviceBuffer(), guides_[k] = vk::DeviceBuffer();  // free the old first
  const VkDeviceSize bytes = VkDeviceSize(width) * VkDeviceSize(height) * kBytesPerPixelVec4;
  VX_CHECK(bytes <= max_storage_binding_bytes(ctx_), Unsupported, "the temporal stage's history of a ", width, "x",
           height, " image needs ", bytes, " bytes in one storage buffer, more than the device's largest range (",
           max_storage_binding_bytes(ctx_), " bytes)");
  for (int k = 0; k < 2; ++k) {
    history_[k] = vk::DeviceBuffer(ctx_, bytes, vk::MemoryUse::DeviceLocal, "temporal history");
    guides_[k] = vk::DeviceBuffer(ctx_, bytes, vk::MemoryUse::DeviceLocal, "temporal guides (depth, normal)");
  }
  width_ = width, height_ = height;
}

double VulkanTemporalStage::run(const TemporalJob& job) {
  // A cut holds even if this frame fails. Otherwise an error leaves the history as it was: only the
  // other ping-pong side is written before the run succeeds (as on the host, where a refused frame
  // never reaches the stage).
  if (job.reset) history_valid_ = false;
  const ImageView& out = job.output;
  const int w = out.width, h = out.height;
  const bool normals = job.normal.valid();
  VX_CHECK(out.channels >= 3, InvalidArgument, "the temporal stage needs a colour output (3 channels), not ",
           out.channels, " channel", out.channels == 1 ? "" : "s");
  VX_CHECK(job.motion.channels >= 2, InvalidArgument, "image 'motion' has ", job.motion.channels,
           " channel; it needs 2 (dx, dy in pixels)");
  for (const ImageView* v : {&job.motion, &job.depth, normals ? &job.normal : &job.depth})
    VX_CHECK(v->width == w && v->height == h, Internal, "the temporal stage's guides differ in size from the output");
  VX_CHECK(job.output_buffer.on_device() && job.motion_buffer.on_device() && job.depth_buffer.on_device() &&
               (!normals || job.normal_buffer.on_device()),
           Internal, "the device's temporal stage takes images in device buffers only");
  const BoundImage output = bind_device_image(ctx_, out, job.output_buffer, "output");
  const BoundImage motion = bind_device_image(ctx_, job.motion, job.motion_buffer, "motion");
  const BoundImage depth = bind_device_image(ctx_, job.depth, job.depth_buffer, "depth");
  const BoundImage normal = normals ? bind_device_image(ctx_, job.normal, job.normal_buffer, "normal") : depth;

  ensure_frame_buffers(w, h);
  const bool continues = history_valid_ && history_has_normals_ == normals;
  const int next = 1 - previous_;

  const vk::DenoiseImageDesc layouts[4] = {output.desc, motion.desc, depth.desc, normal.desc};
  std::memcpy(image_layouts_.mapped(), layouts, sizeof layouts);
  image_layouts_.flush();

  const VkDeviceSize frame_bytes = VkDeviceSize(w) * VkDeviceSize(h) * kBytesPerPixelVec4;
  // (A first frame does not read the previous side; it is bound all the same.)
  const std::array<vk::BufferRange, kTemporalBindings> ranges = {
      output.range, motion.range, depth.range, normal.range, image_layouts_.range(0, sizeof layouts),
      history_[previous_].range(0, frame_bytes), guides_[previous_].range(0, frame_bytes),
      history_[next].range(0, frame_bytes), guides_[next].range(0, frame_bytes)};
  VkDescriptorBufferInfo infos[kTemporalBindings];
  for (uint32_t k = 0; k < kTemporalBindings; ++k) infos[k] = {ranges[k].buffer, ranges[k].offset, ranges[k].size};
  vk::KernelLayout::write_set(ctx_.device(), set_, infos);

  TemporalFramePush push;
  push.width = w, push.height = h, push.blend = job.blend;
  push.history_valid = continues ? 1 : 0;
  push.use_normals = normals ? 1 : 0;
  const uint32_t groups_x = uint32_t((w + 7) / 8), groups_y = uint32_t((h + 7) / 8);
  auto dispatch = [&](const vk::ComputePipeline& pipeline) {
    vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline());
    vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, layout_->pipeline_layout(), 0, 1, &set_, 0, nullptr);
    vkCmdPushConstants(cmd_, layout_->pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    vkCmdDispatch(cmd_, groups_x, groups_y, 1);
  };

  vk::begin_recording(cmd_, true);
  // The network's output, the user's writes of the guides (earlier submissions on this queue) and
  // the previous run's use of the history buffers come first.
  vk::barrier(cmd_, vk::kAnyWrite, vk::kComputeReadWrite);
  if (queries_) {
    vkCmdResetQueryPool(cmd_, queries_, 0, 2);
    vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 0);
  }
  dispatch(*stabilize_);
  // A first frame passes through: the output already holds what the store pass would write.
  if (continues) {
    // The next history is complete, and every read of the output is done, before the output is written.
    vk::barrier(cmd_, vk::kComputeWrite, vk::kComputeReadWrite);
    dispatch(*store_);
  }
  if (queries_) vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
  // The output in the user's buffer is ready for whatever the user submits next.
  vk::barrier(cmd_, vk::kComputeWrite, vk::kAnyReadWrite);
  vk::end_recording(cmd_);
  try {
    commands_.submit_and_wait(cmd_);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::DeviceLost)
      throw e.with_context(cat("the Vulkan device ", device_name_, " was lost in the temporal stage (a driver reset, "
                               "crash or timeout); the device, with its filters, must be created again"));
    throw e.with_context(cat("the temporal stage on the Vulkan device ", device_name_));
  }
  previous_ = next;
  history_valid_ = true;
  history_has_normals_ = normals;
  if (!queries_) return 0;
  uint64_t ticks[2] = {0, 0};
  VX_VK_CHECK(vkGetQueryPoolResults(ctx_.device(), queries_, 0, 2, sizeof(ticks), ticks, sizeof(uint64_t),
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  return double(ticks[1] - ticks[0]) * ctx_.info().timestamp_period_ns * 1e-6;
}

}  // namespace vx::denoise
