// The on-disk pipeline cache (ContextOptions::pipeline_cache_dir) when its path holds something
// other than a cache we wrote: a FIFO (never waited on), a directory, garbage, or a file past the
// size bound. Each is ignored (nothing loaded, no error, no temporary file left) and the context
// works; a garbage file is replaced by a cache the next context loads. Runs on lavapipe in CI.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "backends/vulkan/context.h"
#include "common/test_util.h"

namespace vx::vk {
namespace {

namespace fs = std::filesystem;

// Creates (and destroys, which saves the cache) a context with its cache in `dir` on another
// thread; returns the bytes it loaded. A creation that blocks fails the test instead of hanging
// it: opening the FIFO at `path` for writing ends a reader's wait.
long pipeline_cache_test_load(const fs::path& dir, const std::string& path) {
  auto loaded = std::async(std::launch::async, [&] {
    ContextOptions o;
    o.pipeline_cache_dir = dir.string();
    VulkanContext ctx(o);
    EXPECT_EQ(ctx.pipeline_cache_path(), path);
    EXPECT_NE(ctx.pipeline_cache(), VK_NULL_HANDLE);
    return long(ctx.pipeline_cache_loaded_bytes());
  });
  if (loaded.wait_for(std::chrono::seconds(60)) == std::future_status::timeout) {
    ADD_FAILURE() << "creating the context blocked on " << path;
    while (loaded.wait_for(std::chrono::milliseconds(100)) == std::future_status::timeout) {
      const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) ::close(fd);
    }
  }
  return loaded.get();
}

// The entries of `dir` other than `path`: temporary files a save left behind.
std::vector<std::string> pipeline_cache_test_leftovers(const fs::path& dir, const std::string& path) {
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path() != fs::path(path)) left.push_back(entry.path().filename().string());
  return left;
}

class VulkanPipelineCacheFile : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      if (VulkanContext::list_devices().empty()) GTEST_SKIP() << "no Vulkan device";
    } catch (const Error& e) {
      GTEST_SKIP() << "no Vulkan: " << e.what();
    }
    dir_ = test::temp_dir() / "pipelines";
    ContextOptions o;
    o.pipeline_cache_dir = dir_.string();
    path_ = VulkanContext(o).pipeline_cache_path();
    ASSERT_TRUE(fs::is_regular_file(path_)) << path_;  // saved at destruction
    fs::remove(path_);
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(VulkanPipelineCacheFile, FifoIsIgnoredNotWaitedOn) {
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0) << path_;
  EXPECT_EQ(pipeline_cache_test_load(dir_, path_), 0);
  EXPECT_TRUE(pipeline_cache_test_leftovers(dir_, path_).empty());
}

TEST_F(VulkanPipelineCacheFile, DirectoryIsIgnored) {
  fs::create_directory(path_);
  EXPECT_EQ(pipeline_cache_test_load(dir_, path_), 0);
  EXPECT_TRUE(fs::is_directory(path_));
  EXPECT_TRUE(pipeline_cache_test_leftovers(dir_, path_).empty());
}

TEST_F(VulkanPipelineCacheFile, GarbageIsIgnoredAndReplacedByAWholeCache) {
  std::ofstream(path_, std::ios::binary) << "definitely not a pipeline cache, but long enough to have a header";
  EXPECT_EQ(pipeline_cache_test_load(dir_, path_), 0);
  EXPECT_TRUE(pipeline_cache_test_leftovers(dir_, path_).empty());
  const long saved = long(fs::file_size(path_));
  EXPECT_GT(saved, 0);
  EXPECT_EQ(pipeline_cache_test_load(dir_, path_), saved);  // what the save wrote is a valid cache
}

// A valid cache header followed by zeros past 256 MiB (sparse: no disk used): refused by its size,
// never read whole.
TEST_F(VulkanPipelineCacheFile, FileAboveTheSizeBoundIsIgnored) {
  EXPECT_EQ(pipeline_cache_test_load(dir_, path_), 0);  // writes a valid cache
  ASSERT_GT(fs::file_size(path_), 0u);
  fs::resize_file(path_, (uintmax_t(256) << 20) + 1);
  EXPECT_EQ(pipeline_cache_test_load(dir_, path_), 0);
  EXPECT_TRUE(pipeline_cache_test_leftovers(dir_, path_).empty());
}

}  // namespace
}  // namespace vx::vk
