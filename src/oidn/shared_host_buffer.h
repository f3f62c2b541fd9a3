// A runtime::Buffer over memory the caller owns (OIDN's shared buffers: oidnNewSharedBuffer):
// read and written in place, never freed here. Also OIDN's empty buffers (0 bytes, any storage),
// which the engine's devices do not make.
#pragma once
#include <cstdint>
#include <memory>

#include "runtime/buffer.h"

namespace vx::oidn {

std::shared_ptr<runtime::Buffer> make_shared_host_buffer(void* data, uint64_t bytes);

}  // namespace vx::oidn
