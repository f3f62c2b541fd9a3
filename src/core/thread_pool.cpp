#include "core/thread_pool.h"

#include <algorithm>
#include <memory>
#include <system_error>

#include "core/error.h"

namespace vx {

namespace {
thread_local bool t_inside_pool = false;
std::unique_ptr<ThreadPool>& global_pool() {
  static std::unique_ptr<ThreadPool> pool;
  return pool;
}
}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = int(std::clamp(std::thread::hardware_concurrency(), 1u, unsigned(kMaxThreads)));
  VX_CHECK(threads <= kMaxThreads, InvalidArgument, "a thread pool of ", threads, " threads is more than the limit of ",
           kMaxThreads);
  workers_.reserve(size_t(threads - 1));
  for (int i = 1; i < threads; ++i) {
    try {
      workers_.emplace_back([this] { worker_loop(); });
    } catch (const std::system_error& e) {
      // The destructor does not run for a constructor that throws: stop what was started here.
      stop_workers();
      fail(ErrorCode::OutOfMemory, cat("cannot start thread ", i + 1, " of ", threads, ": ", e.what(),
                                       " (use fewer threads)"));
    }
  }
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
}

bool ThreadPool::run_one_chunk() {
  // Called with mutex_ held; releases it while running the chunk.
  if (job_ == nullptr || next_ >= job_n_) return false;
  int64_t begin = next_;
  int64_t end = std::min(job_n_, begin + job_chunk_);
  next_ = end;
  const auto* fn = job_;
  mutex_.unlock();
  std::exception_ptr err;
  t_inside_pool = true;
  try {
    (*fn)(begin, end);
  } catch (...) {
    err = std::current_exception();
  }
  t_inside_pool = false;
  mutex_.lock();
  if (err && !error_) error_ = err;
  remaining_ -= end - begin;
  if (remaining_ == 0) done_.notify_all();
  return true;
}

void ThreadPool::worker_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || (job_ != nullptr && next_ < job_n_); });
    if (stopping_) return;
    while (run_one_chunk()) {
    }
  }
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int64_t grain) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  if (workers_.empty() || t_inside_pool || n <= grain) {
    fn(0, n);
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  // One job at a time: a second caller from another thread waits for the first to finish.
  done_.wait(lock, [this] { return job_ == nullptr; });
  int64_t chunks = std::min<int64_t>(int64_t(size()) * 4, (n + grain - 1) / grain);
  job_ = &fn;
  job_n_ = n;
  job_chunk_ = (n + chunks - 1) / chunks;
  next_ = 0;
  remaining_ = n;
  error_ = nullptr;
  ++generation_;
  wake_.notify_all();
  while (run_one_chunk()) {
  }
  done_.wait(lock, [this] { return remaining_ == 0; });
  job_ = nullptr;
  std::exception_ptr err = error_;
  error_ = nullptr;
  done_.notify_all();
  lock.unlock();
  if (err) std::rethrow_exception(err);
}

ThreadPool& ThreadPool::global() {
  auto& pool = global_pool();
  if (!pool) pool = std::make_unique<ThreadPool>(0);
  return *pool;
}

void ThreadPool::set_global_threads(int threads) { global_pool() = std::make_unique<ThreadPool>(threads); }

}  // namespace vx
