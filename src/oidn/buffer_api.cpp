// OIDN's buffers: the engine's device buffers (ComputeDevice::make_buffer), the caller's host
// memory (shared buffers) or imported external memory. The *Async copies run on the device's
// worker (oidn/device_queue.h); the synchronous ones first wait for what is queued.
#include "oidn/errors.h"
#include "oidn/handles.h"
#include "oidn/shared_host_buffer.h"

namespace {

using vx::oidn::Failure;
using vx::oidn::guarded;
using vx::runtime::BufferStorage;


OIDNBuffer wrap(OIDNDeviceImpl* device, std::shared_ptr<vx::runtime::Buffer> buffer) {
  return new OIDNBufferImpl(device, std::move(buffer));
}

BufferStorage to_storage(OIDNStorage storage) {
  switch (storage) {
    case OIDN_STORAGE_HOST: return BufferStorage::host;
    case OIDN_STORAGE_DEVICE: return BufferStorage::device;
    // OIDN's default: memory both sides reach (the canonical example fills it through
    // oidnGetBufferData); a Vulkan GPU reads it where it lies.
    case OIDN_STORAGE_UNDEFINED:
    case OIDN_STORAGE_MANAGED: return BufferStorage::managed;
  }
  throw Failure(OIDN_ERROR_INVALID_ARGUMENT, vx::cat("invalid storage mode ", int(storage)));
}

OIDNStorage to_oidn(BufferStorage storage) {
  switch (storage) {
    case BufferStorage::host: return OIDN_STORAGE_HOST;
    case BufferStorage::device: return OIDN_STORAGE_DEVICE;
    case BufferStorage::managed: return OIDN_STORAGE_MANAGED;
  }
  return OIDN_STORAGE_UNDEFINED;
}

}  // namespace

namespace {
// The *Async copies' range check, made at the call as OIDN makes it (the copy itself runs later).
void check_range(const OIDNBufferImpl& buffer, size_t offset, size_t bytes) {
  const uint64_t size = buffer.buffer->size();
  VX_CHECK(offset <= size && bytes <= size - offset, InvalidArgument, "bytes ", offset, "..", offset + bytes,
           " lie outside the buffer of ", size, " bytes");
}
}  // namespace

extern "C" {

OIDN_API OIDNBuffer oidnNewBufferWithStorage(OIDNDevice device, size_t byteSize, OIDNStorage storage) {
  OIDN_REQUIRE(device, nullptr);
  OIDNBuffer result = nullptr;
  guarded(device, [&] {
    const auto& engine = vx::oidn::committed(*device);
    const BufferStorage engine_storage = to_storage(storage);
    result = wrap(device, byteSize == 0 ? vx::oidn::make_shared_host_buffer(nullptr, 0)
                                        : engine->compute_device()->make_buffer(byteSize, engine_storage));
  });
  return result;
}

OIDN_API OIDNBuffer oidnNewBuffer(OIDNDevice device, size_t byteSize) {
  return oidnNewBufferWithStorage(device, byteSize, OIDN_STORAGE_UNDEFINED);
}

OIDN_API OIDNBuffer oidnNewSharedBuffer(OIDNDevice device, void* devPtr, size_t byteSize) {
  OIDN_REQUIRE(device, nullptr);
  OIDNBuffer result = nullptr;
  guarded(device, [&] {
    vx::oidn::committed(*device);
    result = wrap(device, vx::oidn::make_shared_host_buffer(devPtr, byteSize));
  });
  return result;
}

OIDN_API OIDNBuffer oidnNewSharedBufferFromFD(OIDNDevice device, OIDNExternalMemoryTypeFlag fdType, int fd,
                                              size_t byteSize) {
  OIDN_REQUIRE(device, nullptr);
  OIDNBuffer result = nullptr;
  guarded(device, [&] {
    const auto& engine = vx::oidn::committed(*device);
    VX_CHECK(byteSize > 0, InvalidArgument, "a buffer needs at least one byte");
    VX_CHECK(fd >= 0, InvalidArgument, "invalid file descriptor ", fd);
    const auto compute = engine->compute_device();
    if (fdType != OIDN_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD && fdType != OIDN_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF)
      throw Failure(OIDN_ERROR_INVALID_ARGUMENT, vx::cat("external memory type ", int(fdType), " is not a file descriptor type"));
    if (!(compute->external_memory_types() & uint32_t(fdType)))
      throw Failure(OIDN_ERROR_INVALID_ARGUMENT,
                    vx::cat("external memory type ", int(fdType), " is not supported by ", compute->name(),
                            " (see the device parameter externalMemoryTypes)"));
    result = wrap(device, compute->import_buffer(vx::runtime::ExternalMemoryType(fdType), fd, byteSize));
  });
  return result;
}

OIDN_API OIDNBuffer oidnNewSharedBufferFromWin32Handle(OIDNDevice device, OIDNExternalMemoryTypeFlag, void*,
                                                       const void*, size_t) {
  OIDN_REQUIRE(device, nullptr);
  guarded(device, [&] {
    throw Failure(OIDN_ERROR_INVALID_ARGUMENT, "Win32 handles cannot be imported on this platform");
  });
  return nullptr;
}

OIDN_API OIDNBuffer oidnNewSharedBufferFromMetal(OIDNDevice device, MTLBuffer_id) {
  OIDN_REQUIRE(device, nullptr);
  guarded(device, [&] { throw Failure(OIDN_ERROR_INVALID_ARGUMENT, "Metal buffers cannot be imported (no Metal device)"); });
  return nullptr;
}

OIDN_API size_t oidnGetBufferSize(OIDNBuffer buffer) {
  OIDN_REQUIRE(buffer, 0);
  return size_t(buffer->buffer->size());
}

OIDN_API OIDNStorage oidnGetBufferStorage(OIDNBuffer buffer) {
  OIDN_REQUIRE(buffer, OIDN_STORAGE_UNDEFINED);
  return to_oidn(buffer->buffer->storage());
}

OIDN_API void* oidnGetBufferData(OIDNBuffer buffer) {
  OIDN_REQUIRE(buffer, nullptr);
  return buffer->buffer->storage() == BufferStorage::device ? nullptr : buffer->buffer->data();
}

OIDN_API void oidnReadBuffer(OIDNBuffer buffer, size_t byteOffset, size_t byteSize, void* dstHostPtr) {
  OIDN_REQUIRE(buffer);
  vx::oidn::drain(buffer->device);
  guarded(buffer->device, [&] {
    VX_CHECK(dstHostPtr != nullptr || byteSize == 0, InvalidArgument, "null destination pointer");
    buffer->buffer->read(byteOffset, byteSize, dstHostPtr);
  });
}

OIDN_API void oidnReadBufferAsync(OIDNBuffer buffer, size_t byteOffset, size_t byteSize, void* dstHostPtr) {
  OIDN_REQUIRE(buffer);
  guarded(buffer->device, [&] {
    VX_CHECK(dstHostPtr != nullptr || byteSize == 0, InvalidArgument, "null destination pointer");
    check_range(*buffer, byteOffset, byteSize);
    vx::oidn::enqueue(buffer->device, buffer,
                      [buffer, byteOffset, byteSize, dstHostPtr] { buffer->buffer->read(byteOffset, byteSize, dstHostPtr); });
  });
}

OIDN_API void oidnWriteBuffer(OIDNBuffer buffer, size_t byteOffset, size_t byteSize, const void* srcHostPtr) {
  OIDN_REQUIRE(buffer);
  vx::oidn::drain(buffer->device);
  guarded(buffer->device, [&] {
    VX_CHECK(srcHostPtr != nullptr || byteSize == 0, InvalidArgument, "null source pointer");
    buffer->buffer->write(byteOffset, byteSize, srcHostPtr);
  });
}

OIDN_API void oidnWriteBufferAsync(OIDNBuffer buffer, size_t byteOffset, size_t byteSize, const void* srcHostPtr) {
  OIDN_REQUIRE(buffer);
  guarded(buffer->device, [&] {
    VX_CHECK(srcHostPtr != nullptr || byteSize == 0, InvalidArgument, "null source pointer");
    check_range(*buffer, byteOffset, byteSize);
    vx::oidn::enqueue(buffer->device, buffer,
                      [buffer, byteOffset, byteSize, srcHostPtr] { buffer->buffer->write(byteOffset, byteSize, srcHostPtr); });
  });
}

OIDN_API void oidnRetainBuffer(OIDNBuffer buffer) {
  OIDN_REQUIRE(buffer);
  buffer->retain();
}

OIDN_API void oidnReleaseBuffer(OIDNBuffer buffer) {
  OIDN_REQUIRE(buffer);
  vx::oidn::wait_for_queued_work(buffer->device);
  buffer->release();
}

}  // extern "C"
