#include "runtime/buffer.h"

#include "core/error.h"

namespace vx::runtime {

void check_buffer_range(uint64_t size, uint64_t offset, uint64_t bytes) {
  VX_CHECK(offset <= size && bytes <= size - offset, InvalidArgument, "the range of ", bytes, " bytes at offset ",
           offset, " does not lie in the buffer of ", size, " bytes");
}

}  // namespace vx::runtime
