#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "common/test_util.h"
#include "core/graph.h"
#include "core/half.h"
#include "core/tensor.h"
#include "core/thread_pool.h"

namespace vx {
namespace {

TEST(Half, RoundTripsEveryHalfValue) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float f = half_to_float(uint16_t(bits));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      continue;
    }
    ASSERT_EQ(float_to_half(f), bits) << "bits " << bits << " value " << f;
  }
}

TEST(Half, KnownValuesAndRounding) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(float_to_half(65519.0f), 0x7BFF);        // rounds down to the largest half
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);        // rounds up to infinity
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie to even
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie to even (zero)
  EXPECT_EQ(float_to_half(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(float_to_half(-std::numeric_limits<float>::infinity()), 0xFC00);
}

TEST(Shape, NumelAndOverflow) {
  EXPECT_EQ(Shape({2, 3, 4}).numel(), 24);
  EXPECT_EQ(Shape().numel(), 1);
  EXPECT_EQ(Shape({3, 0}).numel(), 0);
  EXPECT_THROW(Shape({int64_t(1) << 40, int64_t(1) << 40}).numel(), Error);
  EXPECT_THROW(Shape({-1, 3}).numel(), Error);
  EXPECT_EQ(Shape({-1, 3}).str(), "[?, 3]");
}

TEST(Tensor, ConvertsBetweenTypes) {
  Tensor t = Tensor::from<float>({4}, {1.5f, -2.0f, 0.0f, 70000.0f});
  Tensor h = t.to(DType::f16);
  EXPECT_EQ(h.get(0), 1.5);
  EXPECT_TRUE(std::isinf(h.get(3)));
  Tensor i = t.to(DType::i32);
  EXPECT_EQ(i.get(1), -2.0);
  Tensor b = t.to(DType::boolean);
  EXPECT_EQ(b.get(2), 0.0);
  EXPECT_EQ(b.get(1), 1.0);
  EXPECT_THROW(t.data<int32_t>(), Error);
  EXPECT_THROW(t.reshaped({3}), Error);
  EXPECT_EQ(t.reshaped({2, 2}).dim(1), 2);
}

TEST(Graph, ValidateFindsCyclesAndMissingValues) {
  Graph g;
  ValueId x = g.add_value("x", DType::f32, {1});
  ValueId y = g.add_value("y", DType::f32, {1});
  ValueId z = g.add_value("z", DType::f32, {1});
  g.inputs = {x};
  g.add_node("Relu", "second", {y}, {z});
  g.add_node("Relu", "first", {x}, {y});
  g.outputs = {z};
  try {
    g.validate();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'second'"), std::string::npos) << e.what();
    EXPECT_EQ(e.code(), ErrorCode::InvalidFile);
  }
  std::swap(g.nodes[0], g.nodes[1]);
  EXPECT_NO_THROW(g.validate());
  EXPECT_EQ(g.producers()[size_t(z)], 1);
  EXPECT_EQ(g.consumers()[size_t(x)], std::vector<int>{0});
}

TEST(ThreadPool, CoversEveryIndexOnceAndPropagatesErrors) {
  ThreadPool pool(3);
  std::vector<int> hits(1000, 0);
  pool.parallel_for(1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
  });
  for (int h : hits) ASSERT_EQ(h, 1);
  EXPECT_THROW(pool.parallel_for(100, [](int64_t b, int64_t) {
    if (b == 0) throw Error(ErrorCode::Internal, "boom");
  }),
               Error);
  // Still usable after an error.
  std::atomic<int64_t> sum{0};
  pool.parallel_for(10, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) sum += i;
  });
  EXPECT_EQ(sum.load(), 45);
}

// The pool runs OpenMP regions: a parallel_for inside another runs serially on its caller's
// thread, and two threads may call one pool at once (OpenMP gives each its own team).
TEST(ThreadPool, NestedAndConcurrentCalls) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> hits(64 * 64);
  pool.parallel_for(64, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const std::thread::id outer = std::this_thread::get_id();
      pool.parallel_for(64, [&](int64_t b2, int64_t e2) {
        EXPECT_TRUE(std::this_thread::get_id() == outer);
        for (int64_t j = b2; j < e2; ++j) hits[size_t(i * 64 + j)]++;
      });
    }
  });
  for (const auto& h : hits) ASSERT_EQ(h.load(), 1);
  std::atomic<int64_t> sums[2] = {0, 0};
  std::thread callers[2];
  for (int c = 0; c < 2; ++c)
    callers[c] = std::thread([&, c] {
      for (int round = 0; round < 20; ++round)
        pool.parallel_for(1000, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) sums[c] += i;
        });
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(sums[0].load(), 20 * 499500);
  EXPECT_EQ(sums[1].load(), 20 * 499500);
}

TEST(ThreadPool, RefusesMoreThanTheMaximum) {
  try {
    ThreadPool pool(ThreadPool::kMaxThreads + 1);
    FAIL() << "a pool above kMaxThreads was made";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  }
}

// A thread the system refuses (here: no address space left for its stack) is an error, and the
// threads already started are stopped: never a hang or std::terminate.
TEST(ThreadPool, FailedThreadCreationIsAnError) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "RLIMIT_AS cannot be combined with AddressSanitizer's shadow memory";
#else
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(60);  // a hang ends the child with SIGALRM, which the parent reports
    long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t now = rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE));
    const rlimit limit{now + (64u << 20), now + (64u << 20)};  // room for a few 8 MiB stacks only
    if (pages == 0 || setrlimit(RLIMIT_AS, &limit) != 0) _exit(5);
    try {
      ThreadPool pool(1000);
      _exit(2);  // every thread started: the limit did not bite
    } catch (const Error& e) {
      _exit(e.code() == ErrorCode::OutOfMemory ? 0 : 3);
    } catch (...) {
      _exit(4);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: no failure, 3: wrong error code, 4: not a vx::Error, 5: no rlimit";
#endif
}

}  // namespace
}  // namespace vx
