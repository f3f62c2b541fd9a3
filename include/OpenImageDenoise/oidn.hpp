// Volvox's OpenImageDenoise compatibility layer: OIDN 2.4's C++ API over the C API of oidn.h.
// Written for Volvox from OIDN's public headers and documentation (the specification): the same
// namespace, types, members, overloads and template specialisations, so that a program written
// for OIDN 2.4's oidn.hpp compiles against this header unchanged and links against
// libOpenImageDenoise.so.2. Everything here is inline: the library exports only the C functions.
//
// Object lifetime: BufferRef, FilterRef and DeviceRef each own one reference to their handle.
// Copying takes another reference (oidnRetain*), destruction and release() give theirs back
// (oidnRelease*); moving hands the reference over without touching the count. From a raw OIDN
// handle, the constructor adopts the caller's reference and operator= takes a new one.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "oidn.h"

OIDN_NAMESPACE_BEGIN

// ---- Bit flags --------------------------------------------------------------------------------

// Enum classes whose values are single bits specialise IsFlag; Flags<F> is then a set of them.
template<typename FlagT>
struct IsFlag {
  static constexpr bool value = false;
};

template<typename FlagT>
class Flags {
 public:
  static_assert(IsFlag<FlagT>::value, "Flags<T> needs an enum that specialises IsFlag<T>");

  using MaskType = typename std::underlying_type<FlagT>::type;

  constexpr Flags() noexcept : mask(0) {}
  constexpr Flags(FlagT flag) noexcept : mask(static_cast<MaskType>(flag)) {}
  constexpr Flags(const Flags& other) noexcept = default;
  constexpr explicit Flags(MaskType bits) noexcept : mask(bits) {}

  Flags& operator=(const Flags& other) noexcept = default;

  constexpr bool operator!() const noexcept { return mask == 0; }
  constexpr Flags operator&(const Flags& other) const noexcept { return Flags(MaskType(mask & other.mask)); }
  constexpr Flags operator|(const Flags& other) const noexcept { return Flags(MaskType(mask | other.mask)); }
  constexpr Flags operator^(const Flags& other) const noexcept { return Flags(MaskType(mask ^ other.mask)); }

  Flags& operator&=(const Flags& other) noexcept {
    mask &= other.mask;
    return *this;
  }
  Flags& operator|=(const Flags& other) noexcept {
    mask |= other.mask;
    return *this;
  }
  Flags& operator^=(const Flags& other) noexcept {
    mask ^= other.mask;
    return *this;
  }

  constexpr bool operator==(const Flags& other) const noexcept { return mask == other.mask; }
  constexpr bool operator!=(const Flags& other) const noexcept { return mask != other.mask; }

  constexpr explicit operator bool() const noexcept { return mask != 0; }
  constexpr explicit operator MaskType() const noexcept { return mask; }

 private:
  MaskType mask;
};

// A single flag combined with a set, or two single flags, give a set.
template<typename FlagT>
inline constexpr Flags<FlagT> operator&(FlagT a, const Flags<FlagT>& b) noexcept {
  return Flags<FlagT>(a) & b;
}
template<typename FlagT>
inline constexpr Flags<FlagT> operator|(FlagT a, const Flags<FlagT>& b) noexcept {
  return Flags<FlagT>(a) | b;
}
template<typename FlagT>
inline constexpr Flags<FlagT> operator^(FlagT a, const Flags<FlagT>& b) noexcept {
  return Flags<FlagT>(a) ^ b;
}
template<typename FlagT, typename std::enable_if<IsFlag<FlagT>::value, bool>::type = true>
inline constexpr Flags<FlagT> operator&(FlagT a, FlagT b) noexcept {
  return Flags<FlagT>(a) & b;
}
template<typename FlagT, typename std::enable_if<IsFlag<FlagT>::value, bool>::type = true>
inline constexpr Flags<FlagT> operator|(FlagT a, FlagT b) noexcept {
  return Flags<FlagT>(a) | b;
}
template<typename FlagT, typename std::enable_if<IsFlag<FlagT>::value, bool>::type = true>
inline constexpr Flags<FlagT> operator^(FlagT a, FlagT b) noexcept {
  return Flags<FlagT>(a) ^ b;
}

// ---- Enumerations (the C enums' values; oidn.h says what each means) --------------------------

// Pixel formats of images in buffers. Volvox also takes Float4 / Half4 images (RGB filtered, the
// output's fourth channel left as it was).
enum class Format {
  Undefined = OIDN_FORMAT_UNDEFINED,
  Float = OIDN_FORMAT_FLOAT,
  Float2 = OIDN_FORMAT_FLOAT2,
  Float3 = OIDN_FORMAT_FLOAT3,
  Float4 = OIDN_FORMAT_FLOAT4,
  Half = OIDN_FORMAT_HALF,
  Half2 = OIDN_FORMAT_HALF2,
  Half3 = OIDN_FORMAT_HALF3,
  Half4 = OIDN_FORMAT_HALF4,
};

// Where a buffer's memory lives.
enum class Storage {
  Undefined = OIDN_STORAGE_UNDEFINED,
  Host = OIDN_STORAGE_HOST,        // host memory, reachable by the host and the device
  Device = OIDN_STORAGE_DEVICE,    // the device's own memory: use read()/write() from the host
  Managed = OIDN_STORAGE_MANAGED,  // migrates on its own; see the "managedMemorySupported" parameter
};

// Kinds of memory exported by other APIs that a device may import (newBuffer overloads below).
enum class ExternalMemoryTypeFlag {
  None = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_NONE,
  OpaqueFD = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD,          // POSIX file descriptor
  DMABuf = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF,              // Linux dma_buf descriptor
  OpaqueWin32 = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_WIN32,    // Windows NT handle
  OpaqueWin32KMT = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_WIN32_KMT,  // Windows global share handle
  D3D11Texture = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D11_TEXTURE,
  D3D11TextureKMT = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D11_TEXTURE_KMT,
  D3D11Resource = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D11_RESOURCE,
  D3D11ResourceKMT = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D11_RESOURCE_KMT,
  D3D12Heap = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D12_HEAP,
  D3D12Resource = OIDN_EXTERNAL_MEMORY_TYPE_FLAG_D3D12_RESOURCE,
};

template<>
struct IsFlag<ExternalMemoryTypeFlag> {
  static constexpr bool value = true;
};
using ExternalMemoryTypeFlags = Flags<ExternalMemoryTypeFlag>;

// Filter quality modes: Default is High; Fast and Balanced trade quality for speed.
enum class Quality {
  Default = OIDN_QUALITY_DEFAULT,
  Fast = OIDN_QUALITY_FAST,
  Balanced = OIDN_QUALITY_BALANCED,
  High = OIDN_QUALITY_HIGH,
};

// Device kinds. Vulkan is Volvox's addition (any Vulkan 1.2 GPU); SYCL, CUDA, HIP and Metal exist
// for source compatibility and are not available in Volvox (UnsupportedHardware).
enum class DeviceType {
  Default = OIDN_DEVICE_TYPE_DEFAULT,
  CPU = OIDN_DEVICE_TYPE_CPU,
  SYCL = OIDN_DEVICE_TYPE_SYCL,
  CUDA = OIDN_DEVICE_TYPE_CUDA,
  HIP = OIDN_DEVICE_TYPE_HIP,
  Metal = OIDN_DEVICE_TYPE_METAL,
  Vulkan = OIDN_DEVICE_TYPE_VULKAN,
};

// Error codes (the first one since the last getError is kept).
enum class Error {
  None = OIDN_ERROR_NONE,
  Unknown = OIDN_ERROR_UNKNOWN,
  InvalidArgument = OIDN_ERROR_INVALID_ARGUMENT,
  InvalidOperation = OIDN_ERROR_INVALID_OPERATION,
  OutOfMemory = OIDN_ERROR_OUT_OF_MEMORY,
  UnsupportedHardware = OIDN_ERROR_UNSUPPORTED_HARDWARE,
  Cancelled = OIDN_ERROR_CANCELLED,
};

// Callbacks: errors of a device, and a filter's progress (return false to cancel).
typedef void (*ErrorFunction)(void* userPtr, Error code, const char* message);
using ProgressMonitorFunction = OIDNProgressMonitorFunction;

// Identifiers of a physical device, as its "uuid" and "luid" parameters give them.
struct UUID {
  uint8_t bytes[OIDN_UUID_SIZE];
};

// The LUID's halves are named as in Windows' LUID: an anonymous struct in a union, as in OIDN's
// header (a common extension; the pedantic warnings about it are silenced here only).
#if defined(__clang__)
  #pragma clang diagnostic push
  #pragma clang diagnostic ignored "-Wgnu-anonymous-struct"
  #pragma clang diagnostic ignored "-Wnested-anon-types"
#elif defined(__GNUC__)
  #pragma GCC diagnostic push
  #pragma GCC diagnostic ignored "-Wpedantic"
#endif
struct LUID {
  union {
    struct {
      uint32_t low;
      int32_t high;
    };
    uint8_t bytes[OIDN_LUID_SIZE];
  };
};
#if defined(__clang__)
  #pragma clang diagnostic pop
#elif defined(__GNUC__)
  #pragma GCC diagnostic pop
#endif

// ---- Buffers ----------------------------------------------------------------------------------

// One reference to a buffer of a device.
class BufferRef {
 public:
  BufferRef() : handle(nullptr) {}
  BufferRef(OIDNBuffer raw) : handle(raw) {}  // adopts the caller's reference
  BufferRef(const BufferRef& other) : handle(other.handle) {
    if (handle) oidnRetainBuffer(handle);
  }
  BufferRef(BufferRef&& other) noexcept : handle(other.handle) { other.handle = nullptr; }
  ~BufferRef() {
    if (handle) oidnReleaseBuffer(handle);
  }

  BufferRef& operator=(const BufferRef& other) {
    if (this != &other) *this = other.handle;
    return *this;
  }
  // The two references trade places: `other` gives its old one back when it goes.
  BufferRef& operator=(BufferRef&& other) noexcept {
    std::swap(handle, other.handle);
    return *this;
  }
  // Takes a new reference to `other` and gives back the one held before.
  BufferRef& operator=(OIDNBuffer other) {
    if (other) oidnRetainBuffer(other);
    if (handle) oidnReleaseBuffer(handle);
    handle = other;
    return *this;
  }

  OIDNBuffer getHandle() const { return handle; }
  operator bool() const { return handle != nullptr; }

  // Gives the reference back now; the object is empty afterwards.
  void release() {
    if (handle) {
      oidnReleaseBuffer(handle);
      handle = nullptr;
    }
  }

  size_t getSize() const { return oidnGetBufferSize(handle); }
  Storage getStorage() const { return static_cast<Storage>(oidnGetBufferStorage(handle)); }

  // The memory's address where the host can use it (host, managed and shared buffers); may be
  // null, e.g. for device storage.
  void* getData() const { return oidnGetBufferData(handle); }

  // Copies between a byte range of the buffer and host memory. The Async forms complete by the
  // next DeviceRef::sync().
  void read(size_t byteOffset, size_t byteSize, void* dstHostPtr) const {
    oidnReadBuffer(handle, byteOffset, byteSize, dstHostPtr);
  }
  void readAsync(size_t byteOffset, size_t byteSize, void* dstHostPtr) const {
    oidnReadBufferAsync(handle, byteOffset, byteSize, dstHostPtr);
  }
  void write(size_t byteOffset, size_t byteSize, const void* srcHostPtr) {
    oidnWriteBuffer(handle, byteOffset, byteSize, srcHostPtr);
  }
  void writeAsync(size_t byteOffset, size_t byteSize, const void* srcHostPtr) {
    oidnWriteBufferAsync(handle, byteOffset, byteSize, srcHostPtr);
  }

 private:
  OIDNBuffer handle;
};

// ---- Filters ----------------------------------------------------------------------------------

// One reference to a filter ("RT", "RTLightmap").
class FilterRef {
 public:
  FilterRef() : handle(nullptr) {}
  FilterRef(OIDNFilter raw) : handle(raw) {}  // adopts the caller's reference
  FilterRef(const FilterRef& other) : handle(other.handle) {
    if (handle) oidnRetainFilter(handle);
  }
  FilterRef(FilterRef&& other) noexcept : handle(other.handle) { other.handle = nullptr; }
  ~FilterRef() {
    if (handle) oidnReleaseFilter(handle);
  }

  FilterRef& operator=(const FilterRef& other) {
    if (this != &other) *this = other.handle;
    return *this;
  }
  FilterRef& operator=(FilterRef&& other) noexcept {
    std::swap(handle, other.handle);
    return *this;
  }
  FilterRef& operator=(OIDNFilter other) {
    if (other) oidnRetainFilter(other);
    if (handle) oidnReleaseFilter(handle);
    handle = other;
    return *this;
  }

  OIDNFilter getHandle() const { return handle; }
  operator bool() const { return handle != nullptr; }

  void release() {
    if (handle) {
      oidnReleaseFilter(handle);
      handle = nullptr;
    }
  }

  // An image ("color", "albedo", "normal", "output") in a buffer of the filter's device. Pixel
  // (x, y) starts at byteOffset + y * rowByteStride + x * pixelByteStride; 0 strides: packed.
  void setImage(const char* name, const BufferRef& buffer, Format format, size_t width, size_t height,
                size_t byteOffset = 0, size_t pixelByteStride = 0, size_t rowByteStride = 0) {
    oidnSetFilterImage(handle, name, buffer.getHandle(), static_cast<OIDNFormat>(format), width, height, byteOffset,
                       pixelByteStride, rowByteStride);
  }
  // The same over memory the caller owns and keeps alive.
  void setImage(const char* name, void* devPtr, Format format, size_t width, size_t height, size_t byteOffset = 0,
                size_t pixelByteStride = 0, size_t rowByteStride = 0) {
    oidnSetSharedFilterImage(handle, name, devPtr, static_cast<OIDNFormat>(format), width, height, byteOffset,
                             pixelByteStride, rowByteStride);
  }
  void unsetImage(const char* name) { oidnUnsetFilterImage(handle, name); }
  OIDN_DEPRECATED("removeImage is deprecated. Use unsetImage instead.")
  void removeImage(const char* name) { oidnUnsetFilterImage(handle, name); }

  // Opaque host data ("weights"): the caller keeps it alive and calls updateData after changing it.
  void setData(const char* name, void* hostPtr, size_t byteSize) {
    oidnSetSharedFilterData(handle, name, hostPtr, byteSize);
  }
  void updateData(const char* name) { oidnUpdateFilterData(handle, name); }
  void unsetData(const char* name) { oidnUnsetFilterData(handle, name); }
  OIDN_DEPRECATED("removeData is deprecated. Use unsetData instead.")
  void removeData(const char* name) { oidnUnsetFilterData(handle, name); }

  // Scalar parameters; they take effect at the next commit().
  void set(const char* name, bool value) { oidnSetFilterBool(handle, name, value); }
  void set(const char* name, int value) { oidnSetFilterInt(handle, name, value); }
  void set(const char* name, Quality value) { oidnSetFilterInt(handle, name, static_cast<int>(value)); }
  void set(const char* name, float value) { oidnSetFilterFloat(handle, name, value); }

  // A parameter's value: T is bool, int, Quality or float.
  template<typename T>
  T get(const char* name) const;

  // Needs no commit. func == nullptr removes the monitor.
  void setProgressMonitorFunction(ProgressMonitorFunction func, void* userPtr = nullptr) {
    oidnSetFilterProgressMonitorFunction(handle, func, userPtr);
  }

  void commit() { oidnCommitFilter(handle); }
  void execute() { oidnExecuteFilter(handle); }
  // Ready after DeviceRef::sync().
  void executeAsync() { oidnExecuteFilterAsync(handle); }

#if defined(OIDN_SYCL_HPP)
  // SYCL devices only (none exist in Volvox): waits for depEvents; the result completes doneEvent.
  sycl::event executeAsync(const std::vector<sycl::event>& depEvents) {
    sycl::event doneEvent;
    oidnExecuteSYCLFilterAsync(handle, depEvents.data(), static_cast<int>(depEvents.size()), &doneEvent);
    return doneEvent;
  }
#endif

 private:
  OIDNFilter handle;
};

template<>
inline bool FilterRef::get(const char* name) const {
  return oidnGetFilterBool(handle, name);
}
template<>
inline int FilterRef::get(const char* name) const {
  return oidnGetFilterInt(handle, name);
}
template<>
inline Quality FilterRef::get(const char* name) const {
  return static_cast<Quality>(oidnGetFilterInt(handle, name));
}
template<>
inline float FilterRef::get(const char* name) const {
  return oidnGetFilterFloat(handle, name);
}

// ---- Devices ----------------------------------------------------------------------------------

// One reference to a device. Set its parameters, then commit() once before creating buffers and
// filters on it.
class DeviceRef {
 public:
  DeviceRef() : handle(nullptr) {}
  DeviceRef(OIDNDevice raw) : handle(raw) {}  // adopts the caller's reference
  DeviceRef(const DeviceRef& other) : handle(other.handle) {
    if (handle) oidnRetainDevice(handle);
  }
  DeviceRef(DeviceRef&& other) noexcept : handle(other.handle) { other.handle = nullptr; }
  ~DeviceRef() {
    if (handle) oidnReleaseDevice(handle);
  }

  DeviceRef& operator=(const DeviceRef& other) {
    if (this != &other) *this = other.handle;
    return *this;
  }
  DeviceRef& operator=(DeviceRef&& other) noexcept {
    std::swap(handle, other.handle);
    return *this;
  }
  DeviceRef& operator=(OIDNDevice other) {
    if (other) oidnRetainDevice(other);
    if (handle) oidnReleaseDevice(handle);
    handle = other;
    return *this;
  }

  OIDNDevice getHandle() const { return handle; }
  operator bool() const { return handle != nullptr; }

  void release() {
    if (handle) {
      oidnReleaseDevice(handle);
      handle = nullptr;
    }
  }

  // Parameters ("verbose", "numThreads", "setAffinity" before commit; see oidn.h).
  void set(const char* name, bool value) { oidnSetDeviceBool(handle, name, value); }
  void set(const char* name, int value) { oidnSetDeviceInt(handle, name, value); }
  void set(const char* name, unsigned int value) { oidnSetDeviceUInt(handle, name, value); }

  // A parameter's value: T is bool, int, unsigned int, DeviceType or ExternalMemoryTypeFlags.
  template<typename T>
  T get(const char* name) const;

  // Called for every error of this device (nullptr: none); needs no commit.
  void setErrorFunction(ErrorFunction func, void* userPtr = nullptr) {
    oidnSetDeviceErrorFunction(handle, reinterpret_cast<OIDNErrorFunction>(func), userPtr);
  }

  // The calling thread's first error since the last query, which is then cleared. On an empty
  // DeviceRef: the thread's errors of calls that had no device (e.g. a failed newDevice).
  Error getError() { return static_cast<Error>(oidnGetDeviceError(handle, nullptr)); }
  // The same with its message (valid until the next query on this thread).
  Error getError(const char*& outMessage) { return static_cast<Error>(oidnGetDeviceError(handle, &outMessage)); }

  void commit() { oidnCommitDevice(handle); }
  // Waits for the device's asynchronous work (executeAsync, readAsync, writeAsync).
  void sync() { oidnSyncDevice(handle); }

  // A buffer in the device's preferred storage.
  BufferRef newBuffer(size_t byteSize) const { return oidnNewBuffer(handle, byteSize); }
  BufferRef newBuffer(size_t byteSize, Storage storage) const {
    return oidnNewBufferWithStorage(handle, byteSize, static_cast<OIDNStorage>(storage));
  }
  // A buffer over memory the caller owns and keeps alive.
  BufferRef newBuffer(void* ptr, size_t byteSize) const { return oidnNewSharedBuffer(handle, ptr, byteSize); }
  // Imported memory: a POSIX file descriptor of one of the "externalMemoryTypes".
  BufferRef newBuffer(ExternalMemoryTypeFlag fdType, int fd, size_t byteSize) const {
    return oidnNewSharedBufferFromFD(handle, static_cast<OIDNExternalMemoryTypeFlag>(fdType), fd, byteSize);
  }
  // Imported memory: a Win32 handle or a named object (exactly one of handle and name).
  BufferRef newBuffer(ExternalMemoryTypeFlag handleType, void* win32Handle, const void* name, size_t byteSize) const {
    return oidnNewSharedBufferFromWin32Handle(handle, static_cast<OIDNExternalMemoryTypeFlag>(handleType),
                                              win32Handle, name, byteSize);
  }
#if defined(__OBJC__)
  // A Metal buffer (Metal devices only).
  BufferRef newBuffer(id<MTLBuffer> buffer) const { return oidnNewSharedBufferFromMetal(handle, buffer); }
#endif

  // A filter of the given type ("RT", "RTLightmap").
  FilterRef newFilter(const char* type) const { return oidnNewFilter(handle, type); }

 private:
  OIDNDevice handle;
};

template<>
inline bool DeviceRef::get(const char* name) const {
  return oidnGetDeviceBool(handle, name);
}
template<>
inline int DeviceRef::get(const char* name) const {
  return oidnGetDeviceInt(handle, name);
}
template<>
inline unsigned int DeviceRef::get(const char* name) const {
  return oidnGetDeviceUInt(handle, name);
}
template<>
inline DeviceType DeviceRef::get(const char* name) const {
  return static_cast<DeviceType>(oidnGetDeviceInt(handle, name));
}
template<>
inline ExternalMemoryTypeFlags DeviceRef::get(const char* name) const {
  return ExternalMemoryTypeFlags(oidnGetDeviceInt(handle, name));
}

// The calling thread's errors of calls that had no device (same as DeviceRef().getError()).
inline Error getError() {
  return static_cast<Error>(oidnGetDeviceError(nullptr, nullptr));
}
inline Error getError(const char*& outMessage) {
  return static_cast<Error>(oidnGetDeviceError(nullptr, &outMessage));
}

// Whether a device of each kind can be created.
inline bool isCPUDeviceSupported() {
  return oidnIsCPUDeviceSupported();
}
#if defined(OIDN_SYCL_HPP)
inline bool isSYCLDeviceSupported(const sycl::device& device) {
  return oidnIsSYCLDeviceSupported(&device);
}
#endif
inline bool isCUDADeviceSupported(int deviceID) {
  return oidnIsCUDADeviceSupported(deviceID);
}
inline bool isHIPDeviceSupported(int deviceID) {
  return oidnIsHIPDeviceSupported(deviceID);
}
inline bool isMetalDeviceSupported(MTLDevice_id device) {
  return oidnIsMetalDeviceSupported(device);
}

// New devices (empty on failure: getError() says why). Each must be committed before use.
inline DeviceRef newDevice(DeviceType type = DeviceType::Default) {
  return DeviceRef(oidnNewDevice(static_cast<OIDNDeviceType>(type)));
}
// By physical device: ID (0 to getNumPhysicalDevices() - 1), UUID, LUID or PCI address.
inline DeviceRef newDevice(int physicalDeviceID) {
  return DeviceRef(oidnNewDeviceByID(physicalDeviceID));
}
inline DeviceRef newDevice(const UUID& uuid) {
  return DeviceRef(oidnNewDeviceByUUID(uuid.bytes));
}
inline DeviceRef newDevice(const LUID& luid) {
  return DeviceRef(oidnNewDeviceByLUID(luid.bytes));
}
inline DeviceRef newDevice(int pciDomain, int pciBus, int pciDevice, int pciFunction) {
  return DeviceRef(oidnNewDeviceByPCIAddress(pciDomain, pciBus, pciDevice, pciFunction));
}

// Devices over another API's queues or streams (not available in Volvox: UnsupportedHardware).
#if defined(OIDN_SYCL_HPP)
inline DeviceRef newSYCLDevice(const sycl::queue& queue) {
  return DeviceRef(oidnNewSYCLDevice(&queue, 1));
}
inline DeviceRef newSYCLDevice(const std::vector<sycl::queue>& queues) {
  return DeviceRef(oidnNewSYCLDevice(queues.data(), static_cast<int>(queues.size())));
}
#endif
inline DeviceRef newCUDADevice(int deviceID, cudaStream_t stream) {
  return DeviceRef(oidnNewCUDADevice(&deviceID, &stream, 1));
}
inline DeviceRef newCUDADevice(const std::vector<int>& deviceIDs, const std::vector<cudaStream_t>& streams) {
  assert(deviceIDs.size() == streams.size());
  return DeviceRef(oidnNewCUDADevice(deviceIDs.data(), streams.data(), static_cast<int>(streams.size())));
}
inline DeviceRef newHIPDevice(int deviceID, hipStream_t stream) {
  return DeviceRef(oidnNewHIPDevice(&deviceID, &stream, 1));
}
inline DeviceRef newHIPDevice(const std::vector<int>& deviceIDs, const std::vector<hipStream_t>& streams) {
  assert(deviceIDs.size() == streams.size());
  return DeviceRef(oidnNewHIPDevice(deviceIDs.data(), streams.data(), static_cast<int>(streams.size())));
}
inline DeviceRef newMetalDevice(MTLCommandQueue_id commandQueue) {
  return DeviceRef(oidnNewMetalDevice(&commandQueue, 1));
}
inline DeviceRef newMetalDevice(const std::vector<MTLCommandQueue_id>& commandQueues) {
  return DeviceRef(oidnNewMetalDevice(commandQueues.data(), static_cast<int>(commandQueues.size())));
}

// ---- Physical devices -------------------------------------------------------------------------

// The hardware the library can open, by ID (no reference counting: IDs stay valid while the
// library is loaded). An ID below 0 means none.
class PhysicalDeviceRef {
 public:
  PhysicalDeviceRef() : id(-1) {}
  PhysicalDeviceRef(int physicalDeviceID) : id(physicalDeviceID) {}
  PhysicalDeviceRef& operator=(int other) {
    id = other;
    return *this;
  }

  int getID() const { return id; }
  operator bool() const { return id >= 0; }

  // A parameter: T is bool, int, unsigned int, DeviceType, const char*, std::string, UUID or LUID.
  template<typename T>
  T get(const char* name) const;

  // An opaque data parameter ("uuid", "luid"): its address and size ({nullptr, 0} on error).
  std::pair<const void*, size_t> getData(const char* name) const {
    size_t byteSize = 0;
    const void* ptr = oidnGetPhysicalDeviceData(id, name, &byteSize);
    return {ptr, byteSize};
  }

  // A new device on this hardware (commit it before use).
  DeviceRef newDevice() { return DeviceRef(oidnNewDeviceByID(id)); }

 private:
  int id;
};

inline int getNumPhysicalDevices() {
  return oidnGetNumPhysicalDevices();
}

template<>
inline bool PhysicalDeviceRef::get(const char* name) const {
  return oidnGetPhysicalDeviceBool(id, name);
}
template<>
inline int PhysicalDeviceRef::get(const char* name) const {
  return oidnGetPhysicalDeviceInt(id, name);
}
template<>
inline unsigned int PhysicalDeviceRef::get(const char* name) const {
  return oidnGetPhysicalDeviceUInt(id, name);
}
template<>
inline DeviceType PhysicalDeviceRef::get(const char* name) const {
  return static_cast<DeviceType>(oidnGetPhysicalDeviceInt(id, name));
}
template<>
inline const char* PhysicalDeviceRef::get(const char* name) const {
  return oidnGetPhysicalDeviceString(id, name);
}
template<>
inline std::string PhysicalDeviceRef::get(const char* name) const {
  const char* text = oidnGetPhysicalDeviceString(id, name);
  return text ? std::string(text) : std::string();
}
// UUID and LUID come back zeroed when the parameter is unavailable (the error says why). Data of
// the wrong size is refused: a query of the empty name then records an error for the caller.
template<>
inline UUID PhysicalDeviceRef::get(const char* name) const {
  UUID result{};
  const std::pair<const void*, size_t> data = getData(name);
  if (data.first) {
    if (data.second == sizeof(result.bytes))
      std::memcpy(result.bytes, data.first, sizeof(result.bytes));
    else
      getData("");
  }
  return result;
}
template<>
inline LUID PhysicalDeviceRef::get(const char* name) const {
  LUID result{};
  const std::pair<const void*, size_t> data = getData(name);
  if (data.first) {
    if (data.second == sizeof(result.bytes))
      std::memcpy(result.bytes, data.first, sizeof(result.bytes));
    else
      getData("");
  }
  return result;
}

OIDN_NAMESPACE_END
