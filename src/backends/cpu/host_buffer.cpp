#include "backends/cpu/host_buffer.h"

#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace vx::cpu {
namespace {

class HostBuffer final : public runtime::Buffer {
 public:
  HostBuffer(uint64_t bytes, runtime::BufferStorage storage) : size_(bytes), storage_(storage) {
    VX_CHECK(bytes > 0, InvalidArgument, "a buffer needs at least one byte");
    data_.reset(static_cast<uint8_t*>(std::calloc(size_t(bytes), 1)));
    VX_CHECK(data_ != nullptr, OutOfMemory, "cannot allocate a host buffer of ", bytes, " bytes");
  }
  uint64_t size() const override { return size_; }
  runtime::BufferStorage storage() const override { return storage_; }
  void* data() override { return data_.get(); }
  void write(uint64_t offset, uint64_t bytes, const void* source) override {
    runtime::check_buffer_range(size_, offset, bytes);
    if (bytes) std::memcpy(data_.get() + offset, source, size_t(bytes));
  }
  void read(uint64_t offset, uint64_t bytes, void* destination) const override {
    runtime::check_buffer_range(size_, offset, bytes);
    if (bytes) std::memcpy(destination, data_.get() + offset, size_t(bytes));
  }
  uint64_t native_handle() const override { return 0; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  uint64_t size_;
  runtime::BufferStorage storage_;
  std::unique_ptr<uint8_t, Free> data_;
};

}  // namespace

std::shared_ptr<runtime::Buffer> make_host_buffer(uint64_t bytes, runtime::BufferStorage storage) {
  return std::make_shared<HostBuffer>(bytes, storage);
}

}  // namespace vx::cpu
