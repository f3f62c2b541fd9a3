// Memory a compute device owns (device.h make_buffer): what a caller fills and reads, and what the
// device's work reads and writes in place, e.g. the filter's device images, so that only the
// caller's own copies cross the bus. OIDN's buffers are the model: host, device or managed
// storage, read and written by byte range.
#pragma once
#include <cstdint>

namespace vx::runtime {

enum class BufferStorage {
  host,     // host memory the device can read and write (slower for the device than `device`)
  device,   // the device's own memory: reached through read() and write() only (data() is null)
  managed,  // memory both sides address directly
};

class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual uint64_t size() const = 0;
  virtual BufferStorage storage() const = 0;
  // The bytes, where the host can address them (host and managed storage); nullptr otherwise.
  virtual void* data() = 0;
  // Copies between the buffer's [offset, offset + bytes) and the host; InvalidArgument when the
  // range does not lie in the buffer. Synchronous: the copy has finished on return.
  virtual void write(uint64_t offset, uint64_t bytes, const void* source) = 0;
  virtual void read(uint64_t offset, uint64_t bytes, void* destination) const = 0;
  // The device's own handle of the memory (Vulkan: the VkBuffer as an integer), which the
  // device's work and interop name it by; 0 for memory the host allocated.
  virtual uint64_t native_handle() const = 0;
};

// Throws InvalidArgument unless [offset, offset + bytes) lies in a buffer of `size` bytes.
void check_buffer_range(uint64_t size, uint64_t offset, uint64_t bytes);

}  // namespace vx::runtime
