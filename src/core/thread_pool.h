// A fixed pool of worker threads with a blocking parallel_for. One global pool serves the CPU
// backend, the path tracer and image processing; its size is set once (--threads).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace vx {

class ThreadPool {
 public:
  // The most threads a pool takes: far above any machine we run on, far below what makes the
  // system refuse threads.
  static constexpr int kMaxThreads = 1024;

  // threads <= 0: one per hardware thread (at most kMaxThreads). More than kMaxThreads, or a thread
  // the system refuses to create, is an Error (the threads already started are stopped first).
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }  // workers plus the calling thread

  // Calls fn(begin, end) over [0, n) split into chunks of at least `grain` items; returns when all
  // are done. The calling thread works too. The first exception thrown by fn is rethrown here.
  // Nested calls from inside fn run serially on the calling thread.
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int64_t grain = 1);

  static ThreadPool& global();
  // Replaces the global pool (not while it is in use).
  static void set_global_threads(int threads);

 private:
  void worker_loop();
  void stop_workers();
  bool run_one_chunk();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  bool stopping_ = false;
  // The job in flight.
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t job_n_ = 0, job_chunk_ = 1, next_ = 0, remaining_ = 0;
  uint64_t generation_ = 0;
  std::exception_ptr error_;
};

}  // namespace vx
