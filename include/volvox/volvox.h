/* Volvox C API: a stable ABI over the denoiser, with Intel Open Image Denoise's concepts (device,
 * filter, named images and parameters, commit/execute, errors kept per device) so that a renderer
 * that integrates OIDN can switch with little change. */
#ifndef VOLVOX_H
#define VOLVOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VXDeviceImpl* VXDevice;
typedef struct VXFilterImpl* VXFilter;

typedef enum {
  VX_ERROR_NONE = 0,
  VX_ERROR_INVALID_ARGUMENT = 1,
  VX_ERROR_INVALID_FILE = 2,
  VX_ERROR_UNSUPPORTED = 3,
  VX_ERROR_IO = 4,
  VX_ERROR_OUT_OF_MEMORY = 5,
  VX_ERROR_DEVICE_LOST = 6,
  VX_ERROR_CANCELLED = 7,
  VX_ERROR_INTERNAL = 8
} VXError;

typedef enum {
  VX_FORMAT_FLOAT = 1,
  VX_FORMAT_FLOAT2 = 2,
  VX_FORMAT_FLOAT3 = 3,
  VX_FORMAT_HALF = 11,
  VX_FORMAT_HALF2 = 12,
  VX_FORMAT_HALF3 = 13
} VXFormat;

/* Returns false to cancel execution. progress is in [0, 1]. */
typedef bool (*VXProgressMonitorFunction)(void* user_ptr, double progress);

/* kind: "cpu", "vulkan", "vulkan:N" or "auto". NULL on failure (vxGetLastError says why). */
VXDevice vxNewDevice(const char* kind, int num_threads);
void vxReleaseDevice(VXDevice device);

/* A renderer's own Vulkan device, so that it can denoise its VkBuffers without a copy through the
 * host. Handles are passed as void* (dispatchable) so that this header needs no Vulkan headers.
 * The device must be Vulkan 1.2 or newer; its queue family must support compute. fp16 is used
 * only when the application enabled shaderFloat16 and storageBuffer16BitAccess on the device and
 * sets fp16_features_enabled (else fp32). Volvox never destroys these objects: keep them alive
 * until vxReleaseDevice and every filter of the device are released. Synchronisation: vxExecuteFilter
 * submits on the given queue and returns when the work has completed (it waits on its own fence);
 * the application must not use that queue from another thread meanwhile (Vulkan queues need
 * external synchronisation). */
typedef struct {
  void* instance;        /* VkInstance */
  void* physical_device; /* VkPhysicalDevice */
  void* device;          /* VkDevice */
  uint32_t queue_family;
  uint32_t queue_index;
  bool fp16_features_enabled;
} VXVulkanDeviceDesc;
VXDevice vxNewVulkanDevice(const VXVulkanDeviceDesc* desc);
/* The first error since the last call (then cleared); message may be NULL. Device NULL: errors of
 * vxNewDevice. */
VXError vxGetDeviceError(VXDevice device, const char** message);

/* type: "RT" (the generic ray-tracing denoiser). */
VXFilter vxNewFilter(VXDevice device, const char* type);
void vxReleaseFilter(VXFilter filter);
/* name: "color", "albedo", "normal", "output"; for temporal denoising (the "temporal" parameter)
 * also "motion" (FLOAT2 or wider: per pixel dx, dy in pixels from the pixel's centre to where its
 * surface was in the previous frame, y down) and "depth" (FLOAT: distance to the surface, 0 where
 * no surface); in host memory, or in VkBuffers (vxSetFilterVulkanBuffer) when the output is in one:
 * the stage then runs on the GPU. Strides in bytes; 0 = packed. */
void vxSetFilterImage(VXFilter filter, const char* name, void* ptr, VXFormat format, size_t width, size_t height,
                      size_t pixel_byte_stride, size_t row_byte_stride);
void vxUnsetFilterImage(VXFilter filter, const char* name);
/* An image in a VkBuffer (as uint64_t) of the filter's Vulkan device (vxNewVulkanDevice), read
 * or written in place. Layout as for vxSetFilterImage: pixel (x, y) channel c starts at
 * byte_offset + y * row_byte_stride + x * pixel_byte_stride + c * element size (4 for FLOAT*,
 * 2 for HALF*); 0 strides = tightly packed (e.g. FLOAT3, 12-byte pixels); an RGBA buffer is FLOAT3
 * with pixel_byte_stride 16 (alpha is left untouched in the output). The offset and strides must
 * be multiples of the element size; the buffer needs VK_BUFFER_USAGE_STORAGE_BUFFER_BIT and must
 * extend to the image's last byte rounded up to a multiple of 4. In-place filtering (the output
 * shares bytes with an input) works; with several tiles that input is first copied on the device,
 * so its buffer then also needs VK_BUFFER_USAGE_TRANSFER_SRC_BIT.
 * Synchronisation: writes to the input buffers made by earlier submissions on the same queue are
 * visible to the filter (its work starts with a full memory barrier); from another queue or the
 * host, make them complete first (semaphore wait / vkQueueWaitIdle / flushed mapped memory).
 * When vxExecuteFilter returns the output buffer is written (its last command is a memory barrier
 * to all later commands on the queue, and the work has completed). */
void vxSetFilterVulkanBuffer(VXFilter filter, const char* name, uint64_t buffer, size_t byte_offset, VXFormat format,
                             size_t width, size_t height, size_t pixel_byte_stride, size_t row_byte_stride);
/* "hdr", "srgb", "cleanAux" */
void vxSetFilterBool(VXFilter filter, const char* name, bool value);
/* "maxMemoryMB" (-1, the default: the device's limit, 3000 MB on the CPU; images are tiled to stay
 * under it), "maxTileSize" (0: from the memory limit), "quality" (0 fast, 1 balanced, 2 high),
 * "precision" (0 auto, 1 fp32, 2 fp16), "temporal" (0 off; 1 stabilize: each execute blends the
 * output with the previous execute's output, reprojected by "motion" and clamped to the current
 * frame's 3x3 neighbourhood, where "depth" and "normal" (when set) show the same surface; on the
 * host for host images, on the GPU for images in VkBuffers) */
void vxSetFilterInt(VXFilter filter, const char* name, int value);
/* "inputScale" (NaN = automatic); "targetTileMs": interactive mode on the vulkan device (> 0: tiles
 * sized to about this GPU time each, from the measured time of earlier tiles; the progress
 * monitor can cancel between tiles; the result equals the untiled one; 0 = off); "temporalBlend"
 * (the history's weight with "temporal" 1, in [0, 1); default 0.8) */
void vxSetFilterFloat(VXFilter filter, const char* name, float value);
/* A cut in an animation: the next execute starts a new temporal history. */
void vxResetFilterHistory(VXFilter filter);
void vxSetFilterWeightsFile(VXFilter filter, const char* path);
void vxSetFilterWeights(VXFilter filter, const void* blob, size_t size);
void vxSetFilterProgressMonitorFunction(VXFilter filter, VXProgressMonitorFunction fn, void* user_ptr);
void vxCommitFilter(VXFilter filter);
void vxExecuteFilter(VXFilter filter);

#ifdef __cplusplus
}
#endif

#include "volvox/model.h" /* ONNX models on the same devices */

#endif /* VOLVOX_H */
