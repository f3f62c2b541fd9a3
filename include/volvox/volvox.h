/* Volvox C API: a stable ABI over the denoiser, with Intel Open Image Denoise's concepts (device,
 * filter, named images and parameters, commit/execute, errors kept per device) so that a renderer
 * that integrates OIDN can switch with little change. */
#ifndef VOLVOX_H
#define VOLVOX_H

#include <stdbool.h>
#include <stddef.h>

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
/* The first error since the last call (then cleared); message may be NULL. Device NULL: errors of
 * vxNewDevice. */
VXError vxGetDeviceError(VXDevice device, const char** message);

/* type: "RT" (the generic ray-tracing denoiser). */
VXFilter vxNewFilter(VXDevice device, const char* type);
void vxReleaseFilter(VXFilter filter);
/* name: "color", "albedo", "normal", "output". Strides in bytes; 0 = packed. */
void vxSetFilterImage(VXFilter filter, const char* name, void* ptr, VXFormat format, size_t width, size_t height,
                      size_t pixel_byte_stride, size_t row_byte_stride);
void vxUnsetFilterImage(VXFilter filter, const char* name);
/* "hdr", "srgb", "cleanAux" */
void vxSetFilterBool(VXFilter filter, const char* name, bool value);
/* "maxMemoryMB", "maxTileSize", "quality" (0 fast, 1 balanced, 2 high), "precision" (0 auto, 1 fp32, 2 fp16) */
void vxSetFilterInt(VXFilter filter, const char* name, int value);
/* "inputScale" (NaN = automatic) */
void vxSetFilterFloat(VXFilter filter, const char* name, float value);
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
