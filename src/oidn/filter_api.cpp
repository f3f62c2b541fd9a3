// OIDN's filters "RT" and "RTLightmap" over denoise::Filter: images by buffer or by pointer,
// OIDN's parameter names and rules (unknown names warn on set and fail on get; bools are ints;
// quality DEFAULT is HIGH; a changed filter must be committed before it executes).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "oidn/errors.h"
#include "oidn/names.h"
#include "oidn/handles.h"
#include "oidn/shared_host_buffer.h"

namespace {

using vx::oidn::Failure;
using vx::oidn::guarded;
using vx::oidn::named;
using vx::oidn::name_or_null;
using vx::denoise::FilterType;


// OIDN's smallest tile side under a memory limit (core/unet_filter.cpp: max(4 * overlap, 768)).
constexpr int kOidnMinTileSize = 768;

bool lightmap(OIDNFilterImpl& f) { return f.filter.params().type == FilterType::rt_lightmap; }

// Volvox's extension for animations (RT): "motion" and "depth" images with the "temporal" parameters.
bool is_image_name(OIDNFilterImpl& f, const char* name) {
  if (named(name, "color") || named(name, "output")) return true;
  return !lightmap(f) &&
         (named(name, "albedo") || named(name, "normal") || named(name, "motion") || named(name, "depth"));
}

// OIDN marks the filter changed in every setter, unknown names included.
void warn_unknown(OIDNFilterImpl& f, const char* name) {
  vx::oidn::warn(f.device, "unknown filter parameter or type mismatch: '" + name_or_null(name) + "'");
  f.dirty = true;
}
[[noreturn]] void fail_unknown(const char* name) {
  throw Failure(OIDN_ERROR_INVALID_ARGUMENT, "unknown filter parameter or type mismatch: '" + name_or_null(name) + "'");
}

// The layout of an OIDN image; 4-channel formats are RGB whose fourth channel is skipped (the
// output's is left as it was).
vx::denoise::ImageView image_layout(const char* name, OIDNFormat format, size_t width, size_t height,
                                    size_t pixel_stride, size_t row_stride) {
  vx::denoise::ImageView v;
  int channels = 0;
  if (format >= OIDN_FORMAT_FLOAT && format <= OIDN_FORMAT_FLOAT4) {
    v.type = vx::denoise::PixelType::f32;
    channels = int(format) - int(OIDN_FORMAT_FLOAT) + 1;
  } else if (format >= OIDN_FORMAT_HALF && format <= OIDN_FORMAT_HALF4) {
    v.type = vx::denoise::PixelType::f16;
    channels = int(format) - int(OIDN_FORMAT_HALF) + 1;
  } else {
    throw Failure(OIDN_ERROR_INVALID_ARGUMENT, vx::cat("invalid format ", int(format), " for image '", name_or_null(name), "'"));
  }
  VX_CHECK(width <= (1u << 20) && height <= (1u << 20), InvalidArgument, "image '", name_or_null(name), "' is ",
           width, "x", height, " (each side must be at most 1048576 pixels)");
  v.channels = std::min(channels, 3);
  v.width = int(width);
  v.height = int(height);
  v.pixel_stride = pixel_stride ? pixel_stride : size_t(channels) * v.element_size();
  v.row_stride = row_stride;
  return v;
}

// Bytes from the image's first byte to its last, inclusive.
uint64_t image_extent(const vx::denoise::ImageView& v) {
  return uint64_t(v.height - 1) * v.row_bytes() + uint64_t(v.width - 1) * v.pixel_bytes() +
         uint64_t(v.channels) * v.element_size();
}

void set_image(OIDNFilterImpl* f, const char* name, std::shared_ptr<vx::runtime::Buffer> buffer, OIDNFormat format,
               size_t width, size_t height, size_t byte_offset, size_t pixel_stride, size_t row_stride) {
  VX_CHECK(name != nullptr, InvalidArgument, "null image name");
  if (!is_image_name(*f, name)) return warn_unknown(*f, name);
  vx::denoise::ImageView layout = image_layout(name, format, width, height, pixel_stride, row_stride);
  f->dirty = true;
  f->image_channels[name] = layout.channels;
  if (width == 0 || height == 0) {
    // OIDN takes empty images and then denoises nothing.
    f->filter.unset_image(name);
    f->image_buffers.erase(name);
    f->empty_images.insert(name);
    return;
  }
  f->empty_images.erase(name);
  VX_CHECK(byte_offset <= buffer->size() && image_extent(layout) <= buffer->size() - byte_offset, InvalidArgument,
           "image '", name_or_null(name), "' (", width, "x", height, ", byte offset ", byte_offset,
           ") does not fit in its buffer of ", buffer->size(), " bytes");
  if (const uint64_t handle = buffer->native_handle()) {
    // Device memory (or host memory the device maps): the device reads and writes it in place.
    f->filter.set_device_image(name, layout, {handle, byte_offset});
  } else {
    layout.data = static_cast<char*>(buffer->data()) + byte_offset;
    f->filter.set_image(name, layout);
  }
  f->image_buffers[name] = std::move(buffer);
}

vx::denoise::Quality to_quality(int value) {
  switch (value) {
    case OIDN_QUALITY_FAST: return vx::denoise::Quality::fast;
    case OIDN_QUALITY_BALANCED: return vx::denoise::Quality::balanced;
    case OIDN_QUALITY_DEFAULT:
    case OIDN_QUALITY_HIGH: return vx::denoise::Quality::high;
  }
  throw Failure(OIDN_ERROR_INVALID_ARGUMENT, vx::cat("unknown filter quality mode ", value));
}

// OIDN's rule: the main input (color, else albedo, else normal) and the output have as many
// channels (4-channel formats count as 3).
void check_channels(const OIDNFilterImpl& f) {
  const auto& c = f.image_channels;
  const auto output = c.find("output");
  if (output == c.end()) return;  // the filter's commit names the missing image
  for (const char* input : {"color", "albedo", "normal"}) {
    const auto it = c.find(input);
    if (it == c.end()) continue;
    if (it->second != output->second)
      throw Failure(OIDN_ERROR_INVALID_OPERATION,
                    vx::cat("input/output image channel count mismatch ('", input, "' has ", it->second,
                            ", 'output' ", output->second, ")"));
    return;
  }
}

}  // namespace

extern "C" {

OIDN_API OIDNFilter oidnNewFilter(OIDNDevice device, const char* type) {
  OIDN_REQUIRE(device, nullptr);
  OIDNFilter result = nullptr;
  guarded(device, [&] {
    const auto& engine = vx::oidn::committed(*device);
    FilterType filter_type;
    if (named(type, "RT")) filter_type = FilterType::rt;
    else if (named(type, "RTLightmap")) filter_type = FilterType::rt_lightmap;
    else throw Failure(OIDN_ERROR_INVALID_ARGUMENT, "unknown filter type: '" + name_or_null(type) + "' (RT or RTLightmap)");
    auto* f = new OIDNFilterImpl(device, engine);
    f->filter.params().type = filter_type;
    result = f;
  });
  return result;
}

OIDN_API void oidnRetainFilter(OIDNFilter filter) {
  OIDN_REQUIRE(filter);
  filter->retain();
}

OIDN_API void oidnReleaseFilter(OIDNFilter filter) {
  OIDN_REQUIRE(filter);
  vx::oidn::wait_for_queued_work(filter->device);
  filter->release();
}

OIDN_API void oidnSetFilterImage(OIDNFilter filter, const char* name, OIDNBuffer buffer, OIDNFormat format,
                                 size_t width, size_t height, size_t byteOffset, size_t pixelByteStride,
                                 size_t rowByteStride) {
  OIDN_REQUIRE(filter);
  guarded(filter->device, [&] {
    VX_CHECK(buffer != nullptr, InvalidArgument, "null buffer for image '", name_or_null(name), "'");
    VX_CHECK(buffer->device == filter->device, InvalidArgument, "the buffer of image '", name_or_null(name),
             "' belongs to another device");
    set_image(filter, name, buffer->buffer, format, width, height, byteOffset, pixelByteStride, rowByteStride);
  });
}

OIDN_API void oidnSetSharedFilterImage(OIDNFilter filter, const char* name, void* devPtr, OIDNFormat format,
                                       size_t width, size_t height, size_t byteOffset, size_t pixelByteStride,
                                       size_t rowByteStride) {
  OIDN_REQUIRE(filter);
  guarded(filter->device, [&] {
    if (!devPtr) {
      // OIDN: a null pointer to an empty image unsets it; to any bytes it is an error.
      VX_CHECK((width == 0 || height == 0) && byteOffset == 0, InvalidArgument, "null pointer for image '",
               name_or_null(name), "'");
      return oidnUnsetFilterImage(filter, name);
    }
    // The memory's size is unknown: a buffer exactly as large as the image.
    const vx::denoise::ImageView layout = image_layout(name, format, width, height, pixelByteStride, rowByteStride);
    const uint64_t extent = width && height ? image_extent(layout) : 0;
    auto buffer = vx::oidn::make_shared_host_buffer(static_cast<char*>(devPtr) + byteOffset, extent);
    set_image(filter, name, std::move(buffer), format, width, height, 0, pixelByteStride, rowByteStride);
  });
}

OIDN_API void oidnUnsetFilterImage(OIDNFilter filter, const char* name) {
  OIDN_REQUIRE(filter);
  guarded(filter->device, [&] {
    if (!is_image_name(*filter, name)) return warn_unknown(*filter, name);
    filter->filter.unset_image(name);
    filter->image_buffers.erase(name);
    filter->image_channels.erase(name);
    filter->empty_images.erase(name);
    filter->dirty = true;
  });
}

OIDN_API void oidnSetSharedFilterData(OIDNFilter filter, const char* name, void* hostPtr, size_t byteSize) {
  OIDN_REQUIRE(filter);
  guarded(filter->device, [&] {
    VX_CHECK(name != nullptr, InvalidArgument, "null data name");
    if (!named(name, "weights")) return warn_unknown(*filter, name);
    VX_CHECK(hostPtr != nullptr || byteSize == 0, InvalidArgument, "null pointer for ", byteSize, " bytes of weights");
    filter->weights = hostPtr;
    filter->weights_bytes = byteSize;
    filter->weights_changed = filter->dirty = true;
  });
}

OIDN_API void oidnUpdateFilterData(OIDNFilter filter, const char* name) {
  OIDN_REQUIRE(filter);
  guarded(filter->device, [&] {
    if (!named(name, "weights")) return warn_unknown(*filter, name);
    filter->weights_changed = filter->dirty = true;
  });
}

OIDN_API void oidnUnsetFilterData(OIDNFilter filter, const char* name) {
  OIDN_REQUIRE(filter);
  guarded(filter->device, [&] {
    if (!named(name, "weights")) return warn_unknown(*filter, name);
    filter->weights = nullptr;
    filter->weights_bytes = 0;
    filter->weights_changed = filter->dirty = true;
  });
}

OIDN_API void oidnSetFilterInt(OIDNFilter filter, const char* name, int value) {
  OIDN_REQUIRE(filter);
  guarded(filter->device, [&] {
    auto& p = filter->filter.params();
    if (!lightmap(*filter) && named(name, "hdr")) p.hdr = value != 0;
    else if (!lightmap(*filter) && named(name, "srgb")) p.srgb = value != 0;
    else if (!lightmap(*filter) && named(name, "cleanAux")) p.clean_aux = value != 0;
    else if (lightmap(*filter) && named(name, "directional")) p.directional = value != 0;
    else if (named(name, "quality")) {
      p.quality = to_quality(value);
      filter->quality = value == OIDN_QUALITY_DEFAULT ? OIDN_QUALITY_HIGH : value;
    } else if (named(name, "maxMemoryMB")) {
      // OIDN: negative is the default, 0 the least memory, and a limit sizes tiles but never refuses
      // one below 768 pixels (min_tile_size); ours: -1 or a limit of at least 1 MB.
      p.max_memory_mb = value < 0 ? -1 : std::max(value, 1);
      p.min_tile_size = value < 0 ? 0 : kOidnMinTileSize;
    } else if (!lightmap(*filter) && named(name, "temporal")) {  // Volvox extension
      if (value != 0 && value != 1)
        throw Failure(OIDN_ERROR_INVALID_ARGUMENT, vx::cat("temporal must be 0 (off) or 1 (stabilize), not ", value));
      p.temporal = vx::denoise::TemporalMode(value);
    } else if (!lightmap(*filter) && named(name, "temporalReset")) {  // Volvox extension: an action
      if (value) filter->filter.reset_history();
      return;  // changes no parameter, so needs no commit
    } else {
      return warn_unknown(*filter, name);
    }
    filter->dirty = true;
  });
}

OIDN_API void oidnSetFilterBool(OIDNFilter filter, const char* name, bool value) {
  oidnSetFilterInt(filter, name, value ? 1 : 0);
}

OIDN_API int oidnGetFilterInt(OIDNFilter filter, const char* name) {
  OIDN_REQUIRE(filter, 0);
  int value = 0;
  guarded(filter->device, [&] {
    const auto& p = filter->filter.params();
    if (!lightmap(*filter) && named(name, "hdr")) value = p.hdr;
    else if (!lightmap(*filter) && named(name, "srgb")) value = p.srgb;
    else if (!lightmap(*filter) && named(name, "cleanAux")) value = p.clean_aux;
    else if (lightmap(*filter) && named(name, "directional")) value = p.directional;
    else if (named(name, "quality")) value = filter->quality;
    else if (named(name, "maxMemoryMB")) value = p.max_memory_mb;
    else if (!lightmap(*filter) && named(name, "temporal")) value = int(p.temporal);
    else if (!lightmap(*filter) && named(name, "temporalReset")) value = 0;
    else if (named(name, "tileAlignment") || named(name, "alignment")) value = vx::denoise::Filter::tile_alignment();
    else if (named(name, "tileOverlap") || named(name, "overlap")) value = filter->filter.tile_overlap();
    else fail_unknown(name);
  });
  return value;
}

OIDN_API bool oidnGetFilterBool(OIDNFilter filter, const char* name) { return oidnGetFilterInt(filter, name) != 0; }

OIDN_API void oidnSetFilterFloat(OIDNFilter filter, const char* name, float value) {
  OIDN_REQUIRE(filter);
  guarded(filter->device, [&] {
    if (!lightmap(*filter) && named(name, "temporalBlend")) {  // Volvox extension
      if (!(value >= 0 && value < 1))
        throw Failure(OIDN_ERROR_INVALID_ARGUMENT, vx::cat("temporalBlend must be in [0, 1), not ", value));
      filter->filter.params().temporal_blend = value;
      filter->dirty = true;
      return;
    }
    if (!named(name, "inputScale") && !named(name, "hdrScale")) return warn_unknown(*filter, name);
    filter->filter.params().input_scale = value;
    filter->dirty = true;
  });
}

OIDN_API float oidnGetFilterFloat(OIDNFilter filter, const char* name) {
  OIDN_REQUIRE(filter, std::numeric_limits<float>::quiet_NaN());
  float value = std::numeric_limits<float>::quiet_NaN();
  guarded(filter->device, [&] {
    if (!lightmap(*filter) && named(name, "temporalBlend")) {
      value = filter->filter.params().temporal_blend;
      return;
    }
    if (!named(name, "inputScale") && !named(name, "hdrScale")) fail_unknown(name);
    value = filter->filter.params().input_scale;
  });
  return value;
}

OIDN_API void oidnSetFilterProgressMonitorFunction(OIDNFilter filter, OIDNProgressMonitorFunction func,
                                                   void* userPtr) {
  OIDN_REQUIRE(filter);
  if (func)
    filter->filter.set_progress([func, userPtr](double n) { return func(userPtr, n); });
  else
    filter->filter.set_progress({});
}

OIDN_API void oidnCommitFilter(OIDNFilter filter) {
  OIDN_REQUIRE(filter);
  vx::oidn::drain(filter->device);  // a queued execution may still read the filter
  guarded(
      filter->device,
      [&] {
        if (filter->weights_changed) {
          filter->filter.set_weights_blob({static_cast<const std::byte*>(filter->weights), filter->weights_bytes});
          filter->weights_changed = false;
        }
        check_channels(*filter);
        filter->dirty = false;
        if (!filter->empty_images.empty()) return;  // OIDN: nothing to denoise, not an error
        try {
          filter->filter.commit();
        } catch (const vx::Error& e) {
          // OIDN calls weights it cannot read at commit an invalid operation.
          filter->dirty = true;
          if (e.code() == vx::ErrorCode::InvalidFile) throw Failure(OIDN_ERROR_INVALID_OPERATION, e.what());
          throw;
        }
      },
      OIDN_ERROR_INVALID_OPERATION);
}

OIDN_API void oidnExecuteFilter(OIDNFilter filter) {
  OIDN_REQUIRE(filter);
  vx::oidn::drain(filter->device);
  guarded(filter->device, [&] {
    if (filter->dirty) throw Failure(OIDN_ERROR_INVALID_OPERATION, "changes to the filter are not committed");
    if (!filter->empty_images.empty()) return;
    filter->filter.execute();
  });
}

// Checks what OIDN checks at the call, then runs the filter on the device's worker.
OIDN_API void oidnExecuteFilterAsync(OIDNFilter filter) {
  OIDN_REQUIRE(filter);
  guarded(filter->device, [&] {
    if (filter->dirty) throw Failure(OIDN_ERROR_INVALID_OPERATION, "changes to the filter are not committed");
    if (!filter->empty_images.empty()) return;
    vx::oidn::enqueue(filter->device, filter, [filter] { filter->filter.execute(); });
  });
}

}  // extern "C"
