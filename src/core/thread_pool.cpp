#include "core/thread_pool.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/error.h"

namespace vx {

namespace {
std::unique_ptr<ThreadPool>& global_pool() {
  static std::unique_ptr<ThreadPool> pool;
  return pool;
}

// GNU OpenMP ends the process when the system refuses one of its threads. So the threads are asked
// for here first, all at once (each waits until the last has started), and a refusal is an Error.
void check_threads_can_start(int threads) {
  std::vector<std::thread> started;
  started.reserve(size_t(threads - 1));
  std::atomic<bool> release{false};
  auto release_all = [&] {
    release = true;
    for (std::thread& t : started) t.join();
  };
  for (int i = 1; i < threads; ++i) {
    try {
      started.emplace_back([&release] {
        while (!release) std::this_thread::yield();
      });
    } catch (const std::system_error& e) {
      release_all();
      fail(ErrorCode::OutOfMemory, cat("cannot start thread ", i + 1, " of ", threads, ": ", e.what(),
                                       " (use fewer threads)"));
    }
  }
  release_all();
}
}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = int(std::clamp(std::thread::hardware_concurrency(), 1u, unsigned(kMaxThreads)));
  VX_CHECK(threads <= kMaxThreads, InvalidArgument, "a thread pool of ", threads, " threads is more than the limit of ",
           kMaxThreads);
  check_threads_can_start(threads);
  threads_ = threads;
  // OpenMP starts its threads now rather than in the first parallel_for.
  if (threads_ > 1) {
#pragma omp parallel num_threads(threads_)
    {
    }
  }
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int64_t grain) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  if (threads_ == 1 || omp_in_parallel() || n <= grain) {
    fn(0, n);
    return;
  }
  const int64_t chunks = std::min<int64_t>(int64_t(threads_) * 4, (n + grain - 1) / grain);
  const int64_t chunk = (n + chunks - 1) / chunks;
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = c * chunk, end = std::min(n, begin + chunk);
    if (begin >= end) continue;
    try {  // an exception must not leave the parallel region
      fn(begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

ThreadPool& ThreadPool::global() {
  auto& pool = global_pool();
  if (!pool) pool = std::make_unique<ThreadPool>(0);
  return *pool;
}

void ThreadPool::set_global_threads(int threads) { global_pool() = std::make_unique<ThreadPool>(threads); }

}  // namespace vx
