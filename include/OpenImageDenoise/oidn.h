/* Intel Open Image Denoise's C API (version 2.4), implemented by Volvox on the CPU and on any
 * Vulkan GPU. The declarations follow OIDN 2.4 exactly (names, types, enum values, calling
 * conventions): a program compiled against OIDN's oidn.h runs against this library unchanged, and
 * one compiled against this header runs against OIDN. The comments are Volvox's: where Volvox
 * behaves differently from OIDN, or adds to it, they say so ("Volvox:"). README.md, "Switching
 * from OIDN", lists the differences. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* The vendor APIs' handle types, declared so that the signatures below need none of their headers. */
#if defined(__cplusplus)
  #if defined(SYCL_LANGUAGE_VERSION)
    #include <sycl/sycl.hpp>
    #define OIDN_SYCL_HPP
  #elif defined(SYCL_FEATURE_SET_FULL) || defined(SYCL_FEATURE_SET_REDUCED)
    #define OIDN_SYCL_HPP
  #else
namespace sycl {
class device;
class queue;
class event;
}  // namespace sycl
  #endif
#endif

typedef struct CUstream_st* cudaStream_t;
typedef struct ihipStream_t* hipStream_t;

#if defined(__OBJC__)
@protocol MTLDevice;
@protocol MTLCommandQueue;
@protocol MTLBuffer;
typedef id<MTLDevice> MTLDevice_id;
typedef id<MTLCommandQueue> MTLCommandQueue_id;
typedef id<MTLBuffer> MTLBuffer_id;
#else
typedef void* MTLDevice_id;
typedef void* MTLCommandQueue_id;
typedef void* MTLBuffer_id;
#endif

OIDN_API_NAMESPACE_BEGIN

/* ---- Physical devices ----------------------------------------------------------------------- */
/* The devices this machine has, best first: each Vulkan GPU (discrete before integrated, then
 * others), then the CPU. IDs run from 0 to oidnGetNumPhysicalDevices() - 1.
 * Parameters: "type" (int, an OIDNDeviceType), "name" (string), "uuidSupported" / "uuid" (bool /
 * OIDN_UUID_SIZE bytes), "luidSupported" / "luid" / "nodeMask" (bool / OIDN_LUID_SIZE bytes /
 * unsigned), "pciAddressSupported" / "pciDomain" / "pciBus" / "pciDevice" / "pciFunction"
 * (bool / ints). Volvox: a Vulkan GPU's identifiers are the ones Vulkan reports
 * (VkPhysicalDeviceIDProperties, VK_EXT_pci_bus_info). */
#define OIDN_UUID_SIZE 16u
#define OIDN_LUID_SIZE 8u

OIDN_API int oidnGetNumPhysicalDevices();
OIDN_API bool oidnGetPhysicalDeviceBool(int physicalDeviceID, const char* name);
OIDN_API int oidnGetPhysicalDeviceInt(int physicalDeviceID, const char* name);
inline unsigned int oidnGetPhysicalDeviceUInt(int physicalDeviceID, const char* name) {
  return (unsigned int)oidnGetPhysicalDeviceInt(physicalDeviceID, name);
}
/* The string stays valid until the library is unloaded. */
OIDN_API const char* oidnGetPhysicalDeviceString(int physicalDeviceID, const char* name);
/* The data stays valid until the library is unloaded; *byteSize (when not NULL) gets its size. */
OIDN_API const void* oidnGetPhysicalDeviceData(int physicalDeviceID, const char* name, size_t* byteSize);

/* ---- Devices -------------------------------------------------------------------------------- */
typedef enum {
  OIDN_DEVICE_TYPE_DEFAULT = 0, /* the best device: a discrete Vulkan GPU when present, else the CPU */
  OIDN_DEVICE_TYPE_CPU = 1,
  OIDN_DEVICE_TYPE_SYCL = 2,  /* Volvox: not available (unsupported-hardware error) */
  OIDN_DEVICE_TYPE_CUDA = 3,  /* Volvox: not available; NVIDIA GPUs are reached through Vulkan */
  OIDN_DEVICE_TYPE_HIP = 4,   /* Volvox: not available; AMD GPUs are reached through Vulkan */
  OIDN_DEVICE_TYPE_METAL = 5, /* Volvox: not available */
  /* Volvox extension: any Vulkan 1.2 GPU (the first of the physical devices' order). A value far
   * from OIDN's own so that a later OIDN type cannot collide with it. */
  OIDN_DEVICE_TYPE_VULKAN = 0x564B,
} OIDNDeviceType;

typedef enum {
  OIDN_ERROR_NONE = 0,
  OIDN_ERROR_UNKNOWN = 1,
  OIDN_ERROR_INVALID_ARGUMENT = 2,
  OIDN_ERROR_INVALID_OPERATION = 3, /* e.g. a filter executed without committing its changes */
  OIDN_ERROR_OUT_OF_MEMORY = 4,
  OIDN_ERROR_UNSUPPORTED_HARDWARE = 5, /* e.g. a device type this library lacks */
  OIDN_ERROR_CANCELLED = 6,            /* the progress monitor returned false */
} OIDNError;

/* Called on the thread that raised the error, for every error of the device. */
typedef void (*OIDNErrorFunction)(void* userPtr, OIDNError code, const char* message);

typedef struct OIDNDeviceImpl* OIDNDevice;

OIDN_API bool oidnIsCPUDeviceSupported();
#if defined(__cplusplus)
OIDN_API bool oidnIsSYCLDeviceSupported(const sycl::device* device);
#endif
OIDN_API bool oidnIsCUDADeviceSupported(int deviceID);
OIDN_API bool oidnIsHIPDeviceSupported(int deviceID);
OIDN_API bool oidnIsMetalDeviceSupported(MTLDevice_id device);

/* A new device of the given type (NULL on failure: oidnGetDeviceError(NULL, ...) says why). It
 * must be committed before use. */
OIDN_API OIDNDevice oidnNewDevice(OIDNDeviceType type);
OIDN_API OIDNDevice oidnNewDeviceByID(int physicalDeviceID);
/* uuid: OIDN_UUID_SIZE bytes; luid: OIDN_LUID_SIZE bytes. */
OIDN_API OIDNDevice oidnNewDeviceByUUID(const void* uuid);
OIDN_API OIDNDevice oidnNewDeviceByLUID(const void* luid);
OIDN_API OIDNDevice oidnNewDeviceByPCIAddress(int pciDomain, int pciBus, int pciDevice, int pciFunction);
/* The vendor APIs' devices. Volvox: not available; each returns NULL with
 * OIDN_ERROR_UNSUPPORTED_HARDWARE. */
#if defined(__cplusplus)
OIDN_API OIDNDevice oidnNewSYCLDevice(const sycl::queue* queues, int numQueues);
#endif
OIDN_API OIDNDevice oidnNewCUDADevice(const int* deviceIDs, const cudaStream_t* streams, int numPairs);
OIDN_API OIDNDevice oidnNewHIPDevice(const int* deviceIDs, const hipStream_t* streams, int numPairs);
OIDN_API OIDNDevice oidnNewMetalDevice(const MTLCommandQueue_id* commandQueues, int numQueues);

OIDN_API void oidnRetainDevice(OIDNDevice device);
/* The device lives until its last reference goes, including the references its buffers and
 * filters hold. */
OIDN_API void oidnReleaseDevice(OIDNDevice device);

/* Parameters. Settable before commit: "verbose" (int, 0-4; 1 prints warnings, 2 also the device and
 * each filter's network), "numThreads" (int, CPU: 0 = all cores), "setAffinity" (bool, CPU;
 * Volvox: accepted and ignored). Read-only: "type", "version", "versionMajor", "versionMinor",
 * "versionPatch", "systemMemorySupported", "managedMemorySupported", "externalMemoryTypes"
 * (OIDNExternalMemoryTypeFlag bits). */
OIDN_API void oidnSetDeviceBool(OIDNDevice device, const char* name, bool value);
OIDN_API void oidnSetDeviceInt(OIDNDevice device, const char* name, int value);
inline void oidnSetDeviceUInt(OIDNDevice device, const char* name, unsigned int value) {
  oidnSetDeviceInt(device, name, (int)value);
}
OIDN_API bool oidnGetDeviceBool(OIDNDevice device, const char* name);
OIDN_API int oidnGetDeviceInt(OIDNDevice device, const char* name);
inline unsigned int oidnGetDeviceUInt(OIDNDevice device, const char* name) {
  return (unsigned int)oidnGetDeviceInt(device, name);
}
OIDN_DEPRECATED("oidnSetDevice1b is deprecated. Use oidnSetDeviceBool instead.")
inline void oidnSetDevice1b(OIDNDevice device, const char* name, bool value) { oidnSetDeviceBool(device, name, value); }
OIDN_DEPRECATED("oidnSetDevice1i is deprecated. Use oidnSetDeviceInt instead.")
inline void oidnSetDevice1i(OIDNDevice device, const char* name, int value) { oidnSetDeviceInt(device, name, value); }
OIDN_DEPRECATED("oidnGetDevice1b is deprecated. Use oidnGetDeviceBool instead.")
inline bool oidnGetDevice1b(OIDNDevice device, const char* name) { return oidnGetDeviceBool(device, name); }
OIDN_DEPRECATED("oidnGetDevice1i is deprecated. Use oidnGetDeviceInt instead.")
inline int oidnGetDevice1i(OIDNDevice device, const char* name) { return oidnGetDeviceInt(device, name); }

OIDN_API void oidnSetDeviceErrorFunction(OIDNDevice device, OIDNErrorFunction func, void* userPtr);
/* The first error since the last query (then cleared), and its message (valid until the next call
 * on this thread; may be NULL). device NULL: the calling thread's errors of calls that had no
 * device (oidnNewDevice*, null handles). */
OIDN_API OIDNError oidnGetDeviceError(OIDNDevice device, const char** outMessage);

OIDN_API void oidnCommitDevice(OIDNDevice device);
/* Waits until the device's asynchronous work has finished. */
OIDN_API void oidnSyncDevice(OIDNDevice device);

/* ---- Buffers -------------------------------------------------------------------------------- */
typedef enum {
  OIDN_FORMAT_UNDEFINED = 0,
  OIDN_FORMAT_FLOAT = 1,
  OIDN_FORMAT_FLOAT2,
  OIDN_FORMAT_FLOAT3,
  OIDN_FORMAT_FLOAT4,
  OIDN_FORMAT_HALF = 257,
  OIDN_FORMAT_HALF2,
  OIDN_FORMAT_HALF3,
  OIDN_FORMAT_HALF4,
} OIDNFormat;

typedef enum {
  OIDN_STORAGE_UNDEFINED = 0,
  OIDN_STORAGE_HOST = 1,    /* host memory the device can reach */
  OIDN_STORAGE_DEVICE = 2,  /* the device's own memory: read and written through oidnRead/WriteBuffer */
  OIDN_STORAGE_MANAGED = 3, /* memory the host and the device both address */
} OIDNStorage;

typedef enum {
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_NONE = 0,
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD = 1 << 0,
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF = 1 << 1,
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_WIN32 = 1 << 2,
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_WIN32_KMT = 1 << 3,
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D11_TEXTURE = 1 << 4,
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D11_TEXTURE_KMT = 1 << 5,
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D11_RESOURCE = 1 << 6,
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D11_RESOURCE_KMT = 1 << 7,
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D12_HEAP = 1 << 8,
  OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D12_RESOURCE = 1 << 9,
} OIDNExternalMemoryTypeFlag;

typedef struct OIDNBufferImpl* OIDNBuffer;

/* A buffer both the host (oidnGetBufferData) and the device reach: managed storage (Volvox, Vulkan:
 * host-visible memory the GPU reads in place; OIDN_STORAGE_DEVICE is faster for a GPU). */
OIDN_API OIDNBuffer oidnNewBuffer(OIDNDevice device, size_t byteSize);
OIDN_API OIDNBuffer oidnNewBufferWithStorage(OIDNDevice device, size_t byteSize, OIDNStorage storage);
/* The caller's memory, used in place (it must outlive the buffer). Volvox: host memory on every
 * device (a Vulkan device copies it through staging buffers). */
OIDN_API OIDNBuffer oidnNewSharedBuffer(OIDNDevice device, void* devPtr, size_t byteSize);
/* Memory another API exported (Volvox, Vulkan devices: OPAQUE_FD where the device has
 * VK_KHR_external_memory_fd; see "externalMemoryTypes"). The library takes ownership of fd on
 * success, as Vulkan's import does. */
OIDN_API OIDNBuffer oidnNewSharedBufferFromFD(OIDNDevice device, OIDNExternalMemoryTypeFlag fdType, int fd,
                                              size_t byteSize);
/* Volvox: not available on Linux builds (unsupported-hardware error). */
OIDN_API OIDNBuffer oidnNewSharedBufferFromWin32Handle(OIDNDevice device, OIDNExternalMemoryTypeFlag handleType,
                                                       void* handle, const void* name, size_t byteSize);
OIDN_API OIDNBuffer oidnNewSharedBufferFromMetal(OIDNDevice device, MTLBuffer_id buffer);

OIDN_API size_t oidnGetBufferSize(OIDNBuffer buffer);
OIDN_API OIDNStorage oidnGetBufferStorage(OIDNBuffer buffer);
/* The host address of host, managed and shared buffers; NULL for device storage. */
OIDN_API void* oidnGetBufferData(OIDNBuffer buffer);
OIDN_API void oidnReadBuffer(OIDNBuffer buffer, size_t byteOffset, size_t byteSize, void* dstHostPtr);
/* Asynchronous: complete after oidnSyncDevice. Volvox copies at once (also a valid ordering). */
OIDN_API void oidnReadBufferAsync(OIDNBuffer buffer, size_t byteOffset, size_t byteSize, void* dstHostPtr);
OIDN_API void oidnWriteBuffer(OIDNBuffer buffer, size_t byteOffset, size_t byteSize, const void* srcHostPtr);
OIDN_API void oidnWriteBufferAsync(OIDNBuffer buffer, size_t byteOffset, size_t byteSize, const void* srcHostPtr);
OIDN_API void oidnRetainBuffer(OIDNBuffer buffer);
OIDN_API void oidnReleaseBuffer(OIDNBuffer buffer);

/* ---- Filters -------------------------------------------------------------------------------- */
typedef enum {
  OIDN_QUALITY_DEFAULT = 0,  /* HIGH */
  OIDN_QUALITY_FAST = 4,     /* the small networks where they exist */
  OIDN_QUALITY_BALANCED = 5, /* the base networks */
  OIDN_QUALITY_HIGH = 6,     /* the large networks where they exist */
} OIDNQuality;

/* Called with the progress in [0, 1] while a filter executes; returning false cancels it. */
typedef bool (*OIDNProgressMonitorFunction)(void* userPtr, double n);

typedef struct OIDNFilterImpl* OIDNFilter;

/* type: "RT" (ray-traced images) or "RTLightmap" (lightmaps; Volvox: OIDN's lightmap weights are
 * not published apart from its binaries, so RTLightmap needs user "weights"). */
OIDN_API OIDNFilter oidnNewFilter(OIDNDevice device, const char* type);
OIDN_API void oidnRetainFilter(OIDNFilter filter);
OIDN_API void oidnReleaseFilter(OIDNFilter filter);

/* Images: "color", "albedo", "normal" (RT) and "output". Pixel (x, y) starts at byteOffset +
 * y * rowByteStride + x * pixelByteStride; zero strides mean tightly packed. The buffer is
 * retained by the filter. Formats FLOAT..FLOAT3 and HALF..HALF3 as in OIDN (1- and 2-channel
 * images are broadcast to 3 channels); Volvox also takes FLOAT4 / HALF4 (RGB denoised, the
 * output's fourth channel left untouched). */
OIDN_API void oidnSetFilterImage(OIDNFilter filter, const char* name, OIDNBuffer buffer, OIDNFormat format,
                                 size_t width, size_t height, size_t byteOffset, size_t pixelByteStride,
                                 size_t rowByteStride);
/* The same on memory the caller owns (host memory on every Volvox device). */
OIDN_API void oidnSetSharedFilterImage(OIDNFilter filter, const char* name, void* devPtr, OIDNFormat format,
                                       size_t width, size_t height, size_t byteOffset, size_t pixelByteStride,
                                       size_t rowByteStride);
OIDN_API void oidnUnsetFilterImage(OIDNFilter filter, const char* name);
OIDN_DEPRECATED("oidnRemoveFilterImage is deprecated. Use oidnUnsetFilterImage instead.")
inline void oidnRemoveFilterImage(OIDNFilter filter, const char* name) { oidnUnsetFilterImage(filter, name); }

/* Data: "weights" (a TZA blob the caller keeps alive; oidnUpdateFilterData after changing it). */
OIDN_API void oidnSetSharedFilterData(OIDNFilter filter, const char* name, void* hostPtr, size_t byteSize);
OIDN_API void oidnUpdateFilterData(OIDNFilter filter, const char* name);
OIDN_API void oidnUnsetFilterData(OIDNFilter filter, const char* name);
OIDN_DEPRECATED("oidnRemoveFilterData is deprecated. Use oidnUnsetFilterData instead.")
inline void oidnRemoveFilterData(OIDNFilter filter, const char* name) { oidnUnsetFilterData(filter, name); }

/* Parameters. RT: "hdr", "srgb", "cleanAux" (bool); RTLightmap: "directional" (bool); both:
 * "quality" (OIDNQuality), "maxMemoryMB" (int, -1: the device's default), "inputScale" (float,
 * NaN: automatic), read-only "tileAlignment" and "tileOverlap" (ints, valid after commit).
 * Volvox extension for animations (RT): images "motion" (FLOAT2: per pixel dx, dy in pixels to where
 * its surface was in the previous frame, y down) and "depth" (FLOAT: distance, 0 for no surface),
 * where the output is (host memory, or device buffers: the stage then runs on the GPU); "temporal" (int: 0 off, 1 stabilize: each execute blends its output with the
 * previous execute's, reprojected by "motion" and clamped to the current frame's neighbourhood,
 * where "depth" and "normal" show the same surface), "temporalBlend" (float in [0, 1), 0.8), and
 * "temporalReset" (bool: true starts a new history at the next execute, for a cut; needs no commit).
 * OIDN warns about these names as unknown parameters and ignores them. */
OIDN_API void oidnSetFilterBool(OIDNFilter filter, const char* name, bool value);
OIDN_API bool oidnGetFilterBool(OIDNFilter filter, const char* name);
OIDN_API void oidnSetFilterInt(OIDNFilter filter, const char* name, int value);
OIDN_API int oidnGetFilterInt(OIDNFilter filter, const char* name);
OIDN_API void oidnSetFilterFloat(OIDNFilter filter, const char* name, float value);
OIDN_API float oidnGetFilterFloat(OIDNFilter filter, const char* name);
OIDN_DEPRECATED("oidnSetFilter1b is deprecated. Use oidnSetFilterBool instead.")
inline void oidnSetFilter1b(OIDNFilter filter, const char* name, bool value) { oidnSetFilterBool(filter, name, value); }
OIDN_DEPRECATED("oidnGetFilter1b is deprecated. Use oidnGetFilterBool instead.")
inline bool oidnGetFilter1b(OIDNFilter filter, const char* name) { return oidnGetFilterBool(filter, name); }
OIDN_DEPRECATED("oidnSetFilter1i is deprecated. Use oidnSetFilterInt instead.")
inline void oidnSetFilter1i(OIDNFilter filter, const char* name, int value) { oidnSetFilterInt(filter, name, value); }
OIDN_DEPRECATED("oidnGetFilter1i is deprecated. Use oidnGetFilterInt instead.")
inline int oidnGetFilter1i(OIDNFilter filter, const char* name) { return oidnGetFilterInt(filter, name); }
OIDN_DEPRECATED("oidnSetFilter1f is deprecated. Use oidnSetFilterFloat instead.")
inline void oidnSetFilter1f(OIDNFilter filter, const char* name, float value) { oidnSetFilterFloat(filter, name, value); }
OIDN_DEPRECATED("oidnGetFilter1f is deprecated. Use oidnGetFilterFloat instead.")
inline float oidnGetFilter1f(OIDNFilter filter, const char* name) { return oidnGetFilterFloat(filter, name); }

OIDN_API void oidnSetFilterProgressMonitorFunction(OIDNFilter filter, OIDNProgressMonitorFunction func,
                                                   void* userPtr);
/* Chooses the weights and builds the network for the images' size (the expensive step). */
OIDN_API void oidnCommitFilter(OIDNFilter filter);
OIDN_API void oidnExecuteFilter(OIDNFilter filter);
/* Asynchronous: the output is ready after oidnSyncDevice. Volvox runs it before returning (a
 * valid ordering); errors are reported as for oidnExecuteFilter. */
OIDN_API void oidnExecuteFilterAsync(OIDNFilter filter);
#if defined(__cplusplus)
/* Volvox: not available (no SYCL device can exist). */
OIDN_API void oidnExecuteSYCLFilterAsync(OIDNFilter filter, const sycl::event* depEvents, int numDepEvents,
                                         sycl::event* doneEvent);
#endif

OIDN_API_NAMESPACE_END
