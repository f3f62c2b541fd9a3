#include "oidn/shared_host_buffer.h"

#include <cstring>

#include "core/error.h"

namespace vx::oidn {
namespace {

class SharedHostBuffer final : public runtime::Buffer {
 public:
  SharedHostBuffer(void* data, uint64_t bytes) : data_(static_cast<uint8_t*>(data)), size_(bytes) {}
  uint64_t size() const override { return size_; }
  runtime::BufferStorage storage() const override { return runtime::BufferStorage::host; }
  void* data() override { return data_; }
  void write(uint64_t offset, uint64_t bytes, const void* source) override {
    runtime::check_buffer_range(size_, offset, bytes);
    if (bytes) std::memmove(data_ + offset, source, size_t(bytes));
  }
  void read(uint64_t offset, uint64_t bytes, void* destination) const override {
    runtime::check_buffer_range(size_, offset, bytes);
    if (bytes) std::memmove(destination, data_ + offset, size_t(bytes));
  }
  uint64_t native_handle() const override { return 0; }

 private:
  uint8_t* data_;
  uint64_t size_;
};

}  // namespace

std::shared_ptr<runtime::Buffer> make_shared_host_buffer(void* data, uint64_t bytes) {
  VX_CHECK(data != nullptr || bytes == 0, InvalidArgument, "null pointer for a shared buffer of ", bytes, " bytes");
  return std::make_shared<SharedHostBuffer>(data, bytes);
}

}  // namespace vx::oidn
