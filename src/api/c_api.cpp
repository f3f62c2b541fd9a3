// The C API over denoise::Device and denoise::Filter. Every entry point catches everything: an
// error is stored on the device (first one wins until read) and never crosses the C boundary.
#include <cmath>
#include <mutex>
#include <string>

#include "api/c_api_internal.h"
#include "core/error.h"
#include "denoise_vulkan/vulkan_device.h"

struct VXFilterImpl {
  VXDeviceImpl* owner;
  vx::denoise::Filter filter;
};

namespace vx::api {

VXDeviceImpl& no_device() {
  static VXDeviceImpl d;
  return d;
}

VXError to_c(vx::ErrorCode code) {
  switch (code) {
    case vx::ErrorCode::InvalidArgument: return VX_ERROR_INVALID_ARGUMENT;
    case vx::ErrorCode::InvalidFile: return VX_ERROR_INVALID_FILE;
    case vx::ErrorCode::Unsupported: return VX_ERROR_UNSUPPORTED;
    case vx::ErrorCode::Io: return VX_ERROR_IO;
    case vx::ErrorCode::OutOfMemory: return VX_ERROR_OUT_OF_MEMORY;
    case vx::ErrorCode::DeviceLost: return VX_ERROR_DEVICE_LOST;
    case vx::ErrorCode::Cancelled: return VX_ERROR_CANCELLED;
    case vx::ErrorCode::Internal: return VX_ERROR_INTERNAL;
  }
  return VX_ERROR_INTERNAL;
}

void record(VXDeviceImpl* d, VXError e, const std::string& message) {
  if (!d) d = &no_device();
  std::lock_guard<std::mutex> lock(d->mutex);
  if (d->error == VX_ERROR_NONE) {
    d->error = e;
    d->message = message;
  }
}

std::optional<Precision> precision_from_c(int value) {
  VX_CHECK(value >= 0 && value <= 2, InvalidArgument, "precision ", value, " (expected 0 auto, 1 fp32, 2 fp16)");
  if (value == 0) return std::nullopt;
  return value == 1 ? Precision::fp32 : Precision::fp16;
}

}  // namespace vx::api

namespace {

using vx::api::guarded;
using vx::api::record;

VXDeviceImpl* owner_of(VXFilter f) { return f ? f->owner : nullptr; }

#define VX_REQUIRE_FILTER(f)                                                   \
  if (!(f)) {                                                                  \
    record(nullptr, VX_ERROR_INVALID_ARGUMENT, "null filter handle");          \
    return;                                                                    \
  }

}  // namespace

extern "C" {

VXDevice vxNewDevice(const char* kind, int num_threads) {
  VXDevice result = nullptr;
  guarded(nullptr, [&] {
    auto d = std::make_unique<VXDeviceImpl>();
    d->device = vx::denoise::Device::create(kind ? kind : "auto", num_threads);
    result = d.release();
  });
  return result;
}

void vxReleaseDevice(VXDevice device) { delete device; }

VXDevice vxNewVulkanDevice(const VXVulkanDeviceDesc* desc) {
  VXDevice result = nullptr;
  guarded(nullptr, [&] {
    VX_CHECK(desc != nullptr, InvalidArgument, "null Vulkan device description");
    vx::denoise::VulkanExternalDevice e;
    e.instance = desc->instance;
    e.physical_device = desc->physical_device;
    e.device = desc->device;
    e.queue_family = desc->queue_family;
    e.queue_index = desc->queue_index;
    e.fp16_features_enabled = desc->fp16_features_enabled;
    auto d = std::make_unique<VXDeviceImpl>();
    d->device = vx::denoise::make_vulkan_device(e);
    result = d.release();
  });
  return result;
}

VXError vxGetDeviceError(VXDevice device, const char** message) {
  VXDeviceImpl* d = device ? device : &vx::api::no_device();
  std::lock_guard<std::mutex> lock(d->mutex);
  VXError e = d->error;
  static thread_local std::string last;
  last = d->message;
  if (message) *message = e == VX_ERROR_NONE ? nullptr : last.c_str();
  d->error = VX_ERROR_NONE;
  d->message.clear();
  return e;
}

VXFilter vxNewFilter(VXDevice device, const char* type) {
  VXFilter result = nullptr;
  guarded(device, [&] {
    VX_CHECK(device != nullptr, InvalidArgument, "null device handle");
    VX_CHECK(type && std::string(type) == "RT", Unsupported, "unknown filter type '", type ? type : "(null)",
             "' (supported: RT)");
    result = new VXFilterImpl{device, vx::denoise::Filter(device->device)};
  });
  return result;
}

void vxReleaseFilter(VXFilter filter) { delete filter; }

}  // extern "C"

namespace {
vx::denoise::ImageView image_layout(const char* name, void* ptr, VXFormat format, size_t width, size_t height,
                                    size_t pixel_byte_stride, size_t row_byte_stride) {
  vx::denoise::ImageView v;
  v.data = ptr;
  v.type = int(format) >= VX_FORMAT_HALF ? vx::denoise::PixelType::f16 : vx::denoise::PixelType::f32;
  v.channels = int(format) % 10;
  VX_CHECK(v.channels >= 1 && v.channels <= 3, InvalidArgument, "unknown image format ", int(format));
  VX_CHECK(width <= (1u << 20) && height <= (1u << 20), InvalidArgument, "image '", name, "' is too large");
  v.width = int(width);
  v.height = int(height);
  v.pixel_stride = pixel_byte_stride;
  v.row_stride = row_byte_stride;
  return v;
}
}  // namespace

extern "C" {

void vxSetFilterImage(VXFilter filter, const char* name, void* ptr, VXFormat format, size_t width, size_t height,
                      size_t pixel_byte_stride, size_t row_byte_stride) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] {
    filter->filter.set_image(name ? name : "",
                             image_layout(name, ptr, format, width, height, pixel_byte_stride, row_byte_stride));
  });
}

void vxSetFilterVulkanBuffer(VXFilter filter, const char* name, uint64_t buffer, size_t byte_offset, VXFormat format,
                             size_t width, size_t height, size_t pixel_byte_stride, size_t row_byte_stride) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] {
    VX_CHECK(buffer != 0, InvalidArgument, "null VkBuffer for image '", name ? name : "(null)", "'");
    filter->filter.set_device_image(name ? name : "",
                                    image_layout(name, nullptr, format, width, height, pixel_byte_stride, row_byte_stride),
                                    {buffer, byte_offset});
  });
}

void vxUnsetFilterImage(VXFilter filter, const char* name) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] { filter->filter.unset_image(name ? name : ""); });
}

void vxSetFilterBool(VXFilter filter, const char* name, bool value) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] {
    const std::string n = name ? name : "";
    auto& p = filter->filter.params();
    if (n == "hdr") p.hdr = value;
    else if (n == "srgb") p.srgb = value;
    else if (n == "cleanAux") p.clean_aux = value;
    else vx::fail(vx::ErrorCode::InvalidArgument, "unknown bool parameter '" + n + "'");
  });
}

void vxSetFilterInt(VXFilter filter, const char* name, int value) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] {
    const std::string n = name ? name : "";
    auto& p = filter->filter.params();
    if (n == "maxMemoryMB") p.max_memory_mb = value;
    else if (n == "maxTileSize") p.max_tile_size = value;
    else if (n == "quality") {
      VX_CHECK(value >= 0 && value <= 2, InvalidArgument, "quality must be 0, 1 or 2");
      p.quality = vx::denoise::Quality(value);
    } else if (n == "precision") {
      p.precision = vx::api::precision_from_c(value);
    } else if (n == "temporal") {
      VX_CHECK(value == 0 || value == 1, InvalidArgument, "temporal must be 0 (off) or 1 (stabilize)");
      p.temporal = vx::denoise::TemporalMode(value);
    } else {
      vx::fail(vx::ErrorCode::InvalidArgument, "unknown int parameter '" + n + "'");
    }
  });
}

void vxSetFilterFloat(VXFilter filter, const char* name, float value) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] {
    const std::string n = name ? name : "";
    if (n == "inputScale") {
      filter->filter.params().input_scale = value;
    } else if (n == "targetTileMs") {
      VX_CHECK(value >= 0 && std::isfinite(value), InvalidArgument, "targetTileMs must be 0 (off) or a positive time");
      filter->filter.params().target_tile_ms = value;
    } else if (n == "temporalBlend") {
      VX_CHECK(value >= 0 && value < 1, InvalidArgument, "temporalBlend must be in [0, 1)");
      filter->filter.params().temporal_blend = value;
    } else {
      vx::fail(vx::ErrorCode::InvalidArgument, "unknown float parameter '" + n + "'");
    }
  });
}

void vxResetFilterHistory(VXFilter filter) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] { filter->filter.reset_history(); });
}

void vxSetFilterWeightsFile(VXFilter filter, const char* path) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] { filter->filter.set_weights_file(path ? path : ""); });
}

void vxSetFilterWeights(VXFilter filter, const void* blob, size_t size) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] {
    VX_CHECK(blob != nullptr || size == 0, InvalidArgument, "null weights blob");
    filter->filter.set_weights_blob({static_cast<const std::byte*>(blob), size});
  });
}

void vxSetFilterProgressMonitorFunction(VXFilter filter, VXProgressMonitorFunction fn, void* user_ptr) {
  VX_REQUIRE_FILTER(filter);
  if (fn)
    filter->filter.set_progress([fn, user_ptr](double p) { return fn(user_ptr, p); });
  else
    filter->filter.set_progress({});
}

void vxCommitFilter(VXFilter filter) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] { filter->filter.commit(); });
}

void vxExecuteFilter(VXFilter filter) {
  VX_REQUIRE_FILTER(filter);
  guarded(owner_of(filter), [&] { filter->filter.execute(); });
}

}  // extern "C"
