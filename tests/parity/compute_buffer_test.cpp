// The compute devices' buffers (runtime/buffer.h) on the CPU and on Vulkan (lavapipe in CI, under the
// validation layer): every storage kind is zero-filled, keeps what is written at any offset and odd
// size, and refuses ranges outside it; Vulkan device memory has a handle and no host pointer.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "common/vulkan_op_test_util.h"
#include "core/error.h"

namespace vx {
namespace {

using runtime::BufferStorage;

void expect_buffer_contract(const runtime::ComputeDevice& device, BufferStorage storage) {
  SCOPED_TRACE(cat(device.name(), " storage ", int(storage)));
  const uint64_t size = 1001;  // odd on purpose
  std::shared_ptr<runtime::Buffer> b = device.make_buffer(size, storage);
  EXPECT_EQ(b->size(), size);
  EXPECT_EQ(b->storage(), storage);
  std::vector<uint8_t> all(size, 0xAB);
  b->read(0, size, all.data());
  for (uint8_t v : all) ASSERT_EQ(v, 0) << "not zero-filled";

  std::vector<uint8_t> bytes(13);
  std::iota(bytes.begin(), bytes.end(), uint8_t(1));
  b->write(size - 13, 13, bytes.data());  // the last bytes
  b->write(3, 5, bytes.data());
  std::vector<uint8_t> back(13, 0);
  b->read(size - 13, 13, back.data());
  EXPECT_EQ(back, bytes);
  b->read(0, 13, back.data());
  EXPECT_EQ(std::vector<uint8_t>(back.begin(), back.end()),
            std::vector<uint8_t>({0, 0, 0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0}));
  if (void* p = b->data()) {  // host-addressable storage
    EXPECT_EQ(static_cast<uint8_t*>(p)[3], 1);
  }

  for (auto [offset, bytes_] : {std::pair<uint64_t, uint64_t>{size, 1}, {size - 2, 3}, {~uint64_t(0), 2}}) {
    try {
      b->write(offset, bytes_, bytes.data());
      ADD_FAILURE() << "write at " << offset << " of " << bytes_ << " bytes was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    }
    EXPECT_THROW(b->read(offset, bytes_, back.data()), Error);
  }
  b->read(size, 0, back.data());  // an empty range at the end is fine
  try {
    device.make_buffer(0, storage);
    ADD_FAILURE() << "a 0-byte buffer was made";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
  }
}

TEST(ComputeBuffer, CpuBuffersKeepWhatIsWrittenAndCheckRanges) {
  auto cpu = cpu::cpu_compute_device();
  for (BufferStorage s : {BufferStorage::host, BufferStorage::device, BufferStorage::managed}) {
    expect_buffer_contract(*cpu, s);
    EXPECT_EQ(cpu->make_buffer(8, s)->native_handle(), 0u);
    EXPECT_NE(cpu->make_buffer(8, s)->data(), nullptr);
  }
}

class VulkanComputeBuffer : public test::VulkanOpTest {};

TEST_F(VulkanComputeBuffer, VulkanBuffersKeepWhatIsWrittenAndCheckRanges) {
  auto device = vk::compute_device(ctx());
  for (BufferStorage s : {BufferStorage::host, BufferStorage::device, BufferStorage::managed}) {
    expect_buffer_contract(*device, s);
    auto b = device->make_buffer(8, s);
    EXPECT_NE(b->native_handle(), 0u);
    EXPECT_EQ(b->data() == nullptr, s == BufferStorage::device);
  }
}

}  // namespace
}  // namespace vx
