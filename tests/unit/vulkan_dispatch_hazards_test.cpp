// DispatchHazards (backends/vulkan/dispatch_hazards.h): a barrier before a dispatch exactly when it
// reads what an earlier dispatch since the last barrier wrote, or writes what one read or wrote.
#include <gtest/gtest.h>

#include "backends/vulkan/dispatch_hazards.h"

namespace vx::vk {
namespace {

DispatchAccess access(std::vector<ByteRange> reads, std::vector<ByteRange> writes) { return {std::move(reads), std::move(writes)}; }

TEST(DispatchHazards, FirstDispatchAndAfterResetBarrier) {
  DispatchHazards h;
  EXPECT_TRUE(h.needs_barrier(access({{0, 0, 16}}, {{0, 16, 32}})));
  EXPECT_FALSE(h.needs_barrier(access({{0, 0, 16}}, {{0, 32, 48}})));  // reads what the first read
  h.reset();
  EXPECT_TRUE(h.needs_barrier(access({{0, 100, 116}}, {{0, 200, 216}})));
}

TEST(DispatchHazards, ReadAfterWrite) {
  DispatchHazards h;
  h.needs_barrier(access({{0, 0, 16}}, {{0, 16, 32}}));
  EXPECT_TRUE(h.needs_barrier(access({{0, 31, 40}}, {{0, 64, 80}})));  // one byte of the write
  EXPECT_FALSE(h.needs_barrier(access({{0, 0, 16}}, {{0, 96, 112}})));
}

TEST(DispatchHazards, WriteAfterReadAndWriteAfterWrite) {
  DispatchHazards h;
  h.needs_barrier(access({{0, 0, 16}}, {{0, 16, 32}}));
  EXPECT_TRUE(h.needs_barrier(access({}, {{0, 8, 9}})));  // overwrites what the first reads
  h.needs_barrier(access({}, {{0, 100, 110}}));            // pending now: the write [8, 9) and this one
  EXPECT_TRUE(h.needs_barrier(access({}, {{0, 109, 120}})));
}

TEST(DispatchHazards, AdjacentRangesAndOtherBuffersAreIndependent) {
  DispatchHazards h;
  h.needs_barrier(access({{0, 0, 16}}, {{0, 16, 32}}));
  EXPECT_FALSE(h.needs_barrier(access({{0, 32, 48}}, {{0, 48, 64}})));  // [16, 32) and [32, 48) touch, do not overlap
  EXPECT_FALSE(h.needs_barrier(access({{1, 16, 32}}, {{1, 0, 16}})));   // the same bytes of another buffer
  // A dependence on any dispatch of the group, not only the last one, barriers.
  EXPECT_TRUE(h.needs_barrier(access({{0, 20, 24}}, {})));
}

}  // namespace
}  // namespace vx::vk
