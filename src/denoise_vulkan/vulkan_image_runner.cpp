#include "denoise_vulkan/vulkan_image_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>

#include "core/error.h"
#include "denoise_vulkan/vulkan_adaptive_tiles.h"
#include "denoise_vulkan/vulkan_device_image.h"

namespace vx::denoise {

namespace {

std::mutex g_hook_mutex;
VulkanFailureHook g_hook;

constexpr uint32_t kMaxDescriptorSets = 64;  // 2 for autoexposure + 2 per network shape in use
constexpr int kMaxSide = 65536;              // bin edges and byte addresses stay in 32 bits

VkDeviceSize round_up_to(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

}  // namespace

void set_vulkan_failure_hook(VulkanFailureHook hook) {
  std::lock_guard<std::mutex> lock(g_hook_mutex);
  g_hook = std::move(hook);
}

// An image as the shaders see it: the bound range and the layout inside it. Host images are
// repacked with tight rows (row by row, pixel stride kept) into the device images buffer.
struct VulkanImageRunner::Slot {
  bool used = false, host = false;
  const ImageView* view = nullptr;
  vk::BufferRange range;
  vk::DenoiseImageDesc desc;
  VkDeviceSize host_offset = 0;  // host images and copies: where in the upload / images buffers
  uint64_t tight_row = 0;
  // A device input that the output overwrites (in-place filtering with several tiles): read from a
  // copy of `copy_source` in the images buffer, as later tiles still need the original pixels.
  bool copy = false;
  vk::BufferRange copy_source;
};

VulkanImageRunner::VulkanImageRunner(const vk::VulkanContext& ctx, Precision precision, std::string device_name)
    : ctx_(ctx), precision_(precision), device_name_(std::move(device_name)) {
  layout_ = std::make_unique<vk::KernelLayout>(ctx_);
  kernels_ = std::make_unique<vk::DenoiseIoKernels>(ctx_, *layout_, precision_);
  params_ = vk::DeviceBuffer(ctx_, sizeof(vk::DenoiseJobParams), vk::MemoryUse::Staging, "denoise job parameters");
  try {
    commands_ = vk::CommandContext(ctx_);
    cmd_ = commands_.allocate();
    descriptor_pool_ = vk::KernelLayout::create_pool(ctx_, kMaxDescriptorSets, vk::kKernelBindings);
    if (ctx_.info().timestamps) device_queries_ = vk::create_timestamp_pool(ctx_, 2);
  } catch (...) {
    release();
    throw;
  }
}

VulkanImageRunner::~VulkanImageRunner() { release(); }

void VulkanImageRunner::release() {
  VkDevice device = ctx_.device();
  vk::destroy_tracked(device, device_queries_, vkDestroyQueryPool, vk::ObjectKind::QueryPool);
  vk::destroy_tracked(device, descriptor_pool_, vkDestroyDescriptorPool, vk::ObjectKind::DescriptorPool);
  commands_ = vk::CommandContext();
}

void VulkanImageRunner::ensure_buffer(vk::DeviceBuffer& buffer, VkDeviceSize size, vk::MemoryUse use,
                                      const char* what) {
  if (buffer.buffer() != VK_NULL_HANDLE && buffer.size() >= size) return;
  buffer = vk::DeviceBuffer();  // free the old one first: the device may not hold both
  buffer = vk::DeviceBuffer(ctx_, std::max<VkDeviceSize>(size, 16), use, what);
}

void VulkanImageRunner::submit() {
  VulkanFailureHook hook;
  {
    std::lock_guard<std::mutex> lock(g_hook_mutex);
    hook = g_hook;
  }
  if (hook) {
    const VkResult injected = hook("vkQueueSubmit");
    if (injected != VK_SUCCESS) vk::check(injected, "vkQueueSubmit (injected by the failure hook)");
  }
  commands_.submit_and_wait(cmd_);
}

bool VulkanImageRunner::run(const ImageJob& job, ImageJobResult& result, const ExecutableFor& executable_for) {
  const ImageView& input = job.input;  // the colour, or the auxiliary image filtered alone
  const int W = input.width, H = input.height;
  const bool interactive = job.target_tile_ms > 0;
  VX_CHECK(job.layout != nullptr, Internal, "an image job needs a tile layout (and its overlap)");
  const bool any_device = job.input_buffer.on_device() || job.output_buffer.on_device() ||
                          job.albedo_buffer.on_device() || job.normal_buffer.on_device();
  auto refuse = [&](const std::string& why) {
    VX_CHECK(!any_device, Unsupported, "images in Vulkan buffers: ", why);
    return false;
  };
  if (W > kMaxSide || H > kMaxSide) return refuse(cat("images larger than ", kMaxSide, " pixels a side are not supported"));

  // ---- the images as bound ----
  const VkDeviceSize alignment = storage_binding_alignment(ctx_);
  const uint64_t max_range = max_storage_binding_bytes(ctx_);
  Slot slots[4];
  const ImageView* views[4] = {&job.input, &job.albedo, &job.normal, &job.output};
  const DeviceImage* refs[4] = {&job.input_buffer, &job.albedo_buffer, &job.normal_buffer, &job.output_buffer};
  const char* names[4] = {job.input_name.c_str(), "albedo", "normal", "output"};
  VkDeviceSize host_bytes = 0, upload_bytes = 0;
  for (int i = 0; i < 4; ++i) {
    Slot& s = slots[i];
    const ImageView& v = *views[i];
    const bool needed = i == 0 || i == 3 || (i == 1 && job.input_channels >= 6) || (i == 2 && job.input_channels >= 9);
    if (!needed) continue;
    VX_CHECK(v.width == W && v.height == H, Internal, "image '", names[i], "' size differs from '", names[0], "'");
    s.used = true;
    s.view = &v;
    if (refs[i]->on_device()) {
      const BoundImage bound = bind_device_image(ctx_, v, *refs[i], names[i]);
      s.range = bound.range;
      s.desc = bound.desc;
    } else {
      if (!image_strides_aligned(v, 0)) return false;  // rows are repacked: only the strides matter
      s.host = true;
      s.desc.pixel_stride = uint32_t(v.pixel_bytes());
      s.desc.channels = v.channels;
      s.desc.half_type = v.type == PixelType::f16 ? 1 : 0;
      s.tight_row = round_up_to(image_row_span_bytes(v), 4);
      s.desc.row_stride = uint32_t(std::min<uint64_t>(s.tight_row, 0xffffffffull));
      const uint64_t size = round_up_to(uint64_t(H - 1) * s.tight_row + image_row_span_bytes(v), 4);
      if (size > max_range) return false;  // the host path streams tiles instead
      s.host_offset = host_bytes;
      s.range.size = size;
      host_bytes = round_up_to(host_bytes + size, alignment);
      if (i != 3) upload_bytes = std::max<VkDeviceSize>(upload_bytes, s.host_offset + size);
    }
  }

  // In-place filtering on device buffers: inputs that share bytes with the output are copied first
  // when several tiles run (a tile's overlap reads pixels that earlier tiles have written).
  const bool several_tiles = interactive || job.layout->tiles.size() > 1;
  for (int i = 0; i < 3 && several_tiles; ++i) {
    Slot& s = slots[i];
    const Slot& o = slots[3];
    if (!s.used || s.host || o.host || s.range.buffer != o.range.buffer) continue;
    if (s.range.offset >= o.range.offset + o.range.size || o.range.offset >= s.range.offset + s.range.size) continue;
    s.copy = true;
    s.copy_source = s.range;
    s.host_offset = host_bytes;
    host_bytes = round_up_to(host_bytes + s.range.size, alignment);
  }

  // ---- tiles ----
  std::optional<AdaptiveTiler> tiler;
  if (interactive) tiler.emplace(W, H, job.layout->overlap, job.target_tile_ms);
  size_t fixed_index = 0;
  auto next_tile = [&]() -> std::optional<AdaptiveTile> {
    if (tiler) return tiler->next();
    if (fixed_index >= job.layout->tiles.size()) return std::nullopt;
    return AdaptiveTile{job.layout->tiles[fixed_index++], job.layout->tile_width, job.layout->tile_height};
  };
  std::optional<AdaptiveTile> tile = next_tile();
  VX_CHECK(tile.has_value(), Internal, "no tiles to run");

  // ---- memory: the network for a tile must fit; the resident images too, else the host path ----
  std::shared_ptr<vk::VulkanGraphExecutable> first = executable_for(tile->buffer_h, tile->buffer_w);
  if (job.max_memory_mb > 0) {
    const double limit = double(job.max_memory_mb) * 1024 * 1024;
    const double network = double(first->weight_bytes() + first->arena_bytes());
    VX_CHECK(network <= limit, OutOfMemory, "maxMemoryMB ", job.max_memory_mb, " is too small: the network needs ",
             int(std::ceil(network / (1024 * 1024))), " MiB on the device for a ", tile->buffer_w, "x",
             tile->buffer_h, " tile (weights ", first->weight_bytes() >> 20, " MiB, activations ",
             first->arena_bytes() >> 20, " MiB); raise maxMemoryMB");
    if (network + double(host_bytes) > limit) return refuse("they do not fit in maxMemoryMB");
  }
  uint64_t device_heap = 0;
  for (const auto& heap : ctx_.info().heaps)
    if (heap.device_local) device_heap = std::max(device_heap, heap.size);
  if (device_heap > 0 && host_bytes > device_heap / 2)
    return refuse(cat("copies of ", host_bytes >> 20, " MiB would take more than half of the device's ",
                      device_heap >> 20, " MiB"));

  // ---- buffers and parameters ----
  const int bins_h = vk::exposure_bins(H), bins_w = vk::exposure_bins(W);
  const bool autoexposure = std::isnan(job.input_scale);
  VX_CHECK(!autoexposure || job.hdr, Internal, "autoexposure is for HDR images");
  try {
    if (host_bytes > 0) ensure_buffer(images_, host_bytes, vk::MemoryUse::DeviceLocal, "device copy of the images");
    if (upload_bytes > 0) ensure_buffer(upload_, upload_bytes, vk::MemoryUse::Staging, "image upload");
    if (slots[3].host) ensure_buffer(download_, slots[3].range.size, vk::MemoryUse::Staging, "image download");
  } catch (const Error& e) {
    if (e.code() != ErrorCode::OutOfMemory || any_device) throw;
    // The whole images do not fit next to the network: the host path moves one tile at a time.
    images_ = vk::DeviceBuffer();
    upload_ = vk::DeviceBuffer();
    download_ = vk::DeviceBuffer();
    return false;
  }
  if (autoexposure) ensure_buffer(bins_, VkDeviceSize(bins_h) * bins_w * 8, vk::MemoryUse::DeviceLocal, "exposure bins");
  for (Slot& s : slots)
    if (s.used && (s.host || s.copy)) s.range = {images_.buffer(), s.host_offset, s.range.size};

  // Host images: rows copied as they are (pixel stride kept), tight row stride.
  for (int i = 0; i < 3; ++i) {
    const Slot& s = slots[i];
    if (!s.used || !s.host) continue;
    const ImageView& v = *s.view;
    const uint64_t row = image_row_span_bytes(v);
    for (int y = 0; y < H; ++y)
      std::memcpy(upload_.mapped() + s.host_offset + uint64_t(y) * s.tight_row,
                  static_cast<const char*>(v.data) + size_t(y) * v.row_bytes(), row);
  }
  if (upload_bytes > 0) upload_.flush();

  vk::DenoiseJobParams params;
  params.input_scale = autoexposure ? 1.0f : job.input_scale;
  params.transfer = job.transfer == TransferKind::srgb  ? 1
                    : job.transfer == TransferKind::pu  ? 2
                    : job.transfer == TransferKind::log ? 3
                                                        : 0;
  params.hdr = job.hdr ? 1 : 0;
  params.snorm = job.snorm ? 1 : 0;
  params.input_channels = job.input_channels;
  params.width = W;
  params.height = H;
  params.bins_h = bins_h;
  params.bins_w = bins_w;
  params.pu_norm = 1.0f / pu_forward(65504.0f);
  params.log_norm = 1.0f / log_curve_max();
  for (int i = 0; i < 4; ++i) params.images[i] = slots[i].desc;
  std::memcpy(params_.mapped(), &params, sizeof params);
  params_.flush();

  // ---- descriptor sets ----
  VX_VK_CHECK(vkResetDescriptorPool(ctx_.device(), descriptor_pool_, 0));
  auto allocate_set = [&]() { return layout_->allocate_set(descriptor_pool_); };
  const vk::BufferRange params_range = params_.range(0, sizeof(vk::DenoiseJobParams));
  const vk::BufferRange input_range = slots[0].range;
  VkDescriptorSet bins_set = VK_NULL_HANDLE, reduce_set = VK_NULL_HANDLE;
  if (autoexposure) {
    const vk::BufferRange bins_range = bins_.range(0, VkDeviceSize(bins_h) * bins_w * 8);
    bins_set = allocate_set();
    kernels_->write_set(bins_set, {input_range, params_range, params_range, params_range, bins_range});
    reduce_set = allocate_set();
    kernels_->write_set(reduce_set, {bins_range, params_range, params_range, params_range, params_range});
  }
  struct Sets {
    std::shared_ptr<vk::VulkanGraphExecutable> exe;
    VkDescriptorSet input = VK_NULL_HANDLE, output = VK_NULL_HANDLE;
  };
  std::map<std::pair<int, int>, Sets> sets_by_shape;
  auto sets_for = [&](int h, int w) -> Sets& {
    Sets& s = sets_by_shape[{h, w}];
    if (!s.exe) {
      VX_CHECK(sets_by_shape.size() * 2 + 2 <= kMaxDescriptorSets, Internal, "too many tile shapes");
      s.exe = executable_for(h, w);
      s.input = allocate_set();
      kernels_->write_set(s.input, {input_range, slots[1].used ? slots[1].range : input_range,
                                    slots[2].used ? slots[2].range : input_range, params_range,
                                    s.exe->input_range()});
      s.output = allocate_set();
      kernels_->write_set(s.output, {s.exe->output_range(), params_range, params_range, params_range, slots[3].range});
    }
    return s;
  };
  sets_for(tile->buffer_h, tile->buffer_w).exe = first;  // keep the one built for the memory check

  // ---- tiles: one submission each, so that progress and cancellation happen between tiles ----
  const int input_blocks = (job.input_channels + 3) / 4;
  const size_t fixed_count = job.layout->tiles.size();
  result = {};
  bool first_tile = true;
  while (tile) {
    const bool last_tile = tiler ? !tiler->has_more() : fixed_index >= fixed_count;
    Sets& s = sets_for(tile->buffer_h, tile->buffer_w);
    const Tile& t = tile->tile;

    vk::begin_recording(cmd_, true);
    if (first_tile) {
      // The user's writes of device images, in earlier submissions on this queue, come first.
      vk::barrier(cmd_, vk::kAnyWrite, vk::kDeviceReadWrite);
      std::vector<VkBufferCopy> copies;
      bool copied = false;
      for (int i = 0; i < 3; ++i) {
        if (slots[i].used && slots[i].host)
          copies.push_back({slots[i].host_offset, slots[i].host_offset, slots[i].range.size});
        if (slots[i].used && slots[i].copy) {
          const VkBufferCopy region{slots[i].copy_source.offset, slots[i].host_offset, slots[i].copy_source.size};
          vkCmdCopyBuffer(cmd_, slots[i].copy_source.buffer, images_.buffer(), 1, &region);
          copied = true;
        }
      }
      if (!copies.empty()) vkCmdCopyBuffer(cmd_, upload_.buffer(), images_.buffer(), uint32_t(copies.size()), copies.data());
      if (!copies.empty() || copied) {
        vk::barrier(cmd_, vk::kTransferWrite, vk::kComputeRead);
      }
    }
    // The tile's device work (autoexposure, input processing, network, output processing) runs
    // between these two timestamps; the host copies in and out stay outside (as with device images).
    if (device_queries_) {
      vkCmdResetQueryPool(cmd_, device_queries_, 0, 2);
      vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, device_queries_, 0);
    }
    if (first_tile) {
      if (autoexposure) {
        kernels_->record_exposure_bins(cmd_, bins_set, bins_h, bins_w);
        vk::barrier(cmd_, vk::kComputeWrite, vk::kComputeRead);
        kernels_->record_exposure_reduce(cmd_, reduce_set);
      }
    }
    // Earlier tiles' reads and writes of the arena and the images come before this one's.
    vk::barrier(cmd_, vk::kDeviceReadWrite, vk::kDeviceReadWrite);
    kernels_->record_input(cmd_, s.input,
                           {t.in_x, t.in_y, t.in_w, t.in_h, t.buffer_x, t.buffer_y, tile->buffer_w, tile->buffer_h},
                           input_blocks);
    vk::barrier(cmd_, vk::kComputeWrite, vk::kComputeReadWrite);
    s.exe->record_network(cmd_);
    vk::barrier(cmd_, vk::kComputeWrite, vk::kComputeReadWrite);
    kernels_->record_output(cmd_, s.output,
                            {t.buffer_x + t.out_offset_x, t.buffer_y + t.out_offset_y, t.out_x, t.out_y, t.out_w,
                             t.out_h, tile->buffer_w},
                            1);
    if (device_queries_) vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, device_queries_, 1);
    if (last_tile) {
      if (slots[3].host) {
        vk::barrier(cmd_, vk::kComputeWrite, vk::kTransferRead);
        VkBufferCopy region{slots[3].host_offset, 0, slots[3].range.size};
        vkCmdCopyBuffer(cmd_, images_.buffer(), download_.buffer(), 1, &region);
      } else {
        // The output in the user's buffer is ready for whatever the user submits next.
        vk::barrier(cmd_, vk::kComputeWrite, vk::kAnyReadWrite);
      }
    }
    // The resolved input scale (params) and the download are read on the host.
    vk::barrier(cmd_, vk::kDeviceWrite, vk::kHostRead);
    vk::end_recording(cmd_);

    const auto t0 = std::chrono::steady_clock::now();
    try {
      submit();
    } catch (const Error& e) {
      if (e.code() == ErrorCode::DeviceLost)
        throw e.with_context(cat("the Vulkan device ", device_name_, " was lost while denoising tile ",
                                 result.tiles + 1, " (a driver reset, crash or timeout); the output is incomplete "
                                 "and the device, with its filters, must be created again"));
      throw e.with_context(cat("denoising tile ", result.tiles + 1, " on the Vulkan device ", device_name_));
    }
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    s.exe->collect_timings();
    const double gpu_ms = s.exe->last_gpu_ms() > 0 ? s.exe->last_gpu_ms() : wall_ms;
    result.ms_network += gpu_ms;
    if (device_queries_) {
      uint64_t ticks[2] = {0, 0};
      VX_VK_CHECK(vkGetQueryPoolResults(ctx_.device(), device_queries_, 0, 2, sizeof(ticks), ticks, sizeof(uint64_t),
                                        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
      result.ms_device += double(ticks[1] - ticks[0]) * ctx_.info().timestamp_period_ns * 1e-6;
    }
    ++result.tiles;
    if (int64_t(tile->buffer_w) * tile->buffer_h > int64_t(result.tile_width) * result.tile_height) {
      result.tile_width = tile->buffer_w;  // the largest network input used (its arena is the peak)
      result.tile_height = tile->buffer_h;
    }
    if (job.profile) {
      const auto& timings = s.exe->last_timings();
      const auto& layers = s.exe->layers();
      if (result.layers.empty())
        for (size_t k = 0; k < layers.size(); ++k) result.layers.push_back({layers[k].name, "vx.FusedConv", layers[k].kernel, 0.0});
      for (size_t k = 0; k < std::min(result.layers.size(), timings.size()); ++k) result.layers[k].ms += timings[k].ms;
    }
    if (tiler) tiler->report(job.tile_time ? job.tile_time(tile->buffer_w, tile->buffer_h, gpu_ms) : gpu_ms);
    first_tile = false;
    const double progress = tiler ? tiler->covered_fraction() : double(result.tiles) / double(fixed_count);
    // After the last tile the callback is asked once the output is written (below).
    if (job.progress && !last_tile && !job.progress(progress))
      fail(ErrorCode::Cancelled, cat("denoising cancelled by the progress callback after tile ", result.tiles));
    tile = next_tile();
  }

  params_.invalidate();
  std::memcpy(&result.input_scale, params_.mapped(), sizeof(float));
  if (slots[3].host) {
    // Only the output's channels are written back: extra channels (alpha) keep their value.
    download_.invalidate();
    const ImageView& out = job.output;
    const size_t pixel = size_t(out.channels) * out.element_size();
    for (int y = 0; y < H; ++y) {
      const uint8_t* src = download_.mapped() + uint64_t(y) * slots[3].tight_row;
      char* dst = static_cast<char*>(out.data) + size_t(y) * out.row_bytes();
      if (out.pixel_bytes() == pixel) {
        std::memcpy(dst, src, pixel * size_t(W));
      } else {
        for (int x = 0; x < W; ++x) std::memcpy(dst + size_t(x) * out.pixel_bytes(), src + size_t(x) * out.pixel_bytes(), pixel);
      }
    }
  }
  if (job.progress && !job.progress(1.0))
    fail(ErrorCode::Cancelled, cat("denoising cancelled by the progress callback after the last tile (", result.tiles,
                                   "); the output is complete"));
  return true;
}

}  // namespace vx::denoise
