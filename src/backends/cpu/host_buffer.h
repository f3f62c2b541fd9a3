// The CPU's buffers (runtime/buffer.h): host memory for every storage kind, as OIDN's CPU device has.
#pragma once
#include <memory>

#include "runtime/buffer.h"

namespace vx::cpu {

// Zero-filled; throws InvalidArgument for 0 bytes, OutOfMemory when the allocation fails.
std::shared_ptr<runtime::Buffer> make_host_buffer(uint64_t bytes, runtime::BufferStorage storage);

}  // namespace vx::cpu
