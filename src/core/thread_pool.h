// A pool of worker threads with a blocking parallel_for, run as OpenMP parallel regions: the
// threads are GNU OpenMP's, the same ones oneDNN's primitives run on, so the CPU backend's own
// kernels and oneDNN's never compete for the cores with each other's waiting threads (ResNet-50's
// max pool between two oneDNN convolutions: 0.30 -> 0.15 ms on 2 cores; the zoo's small models
// 2-9% faster). One global pool serves the CPU backend, the path tracer and image processing; its
// size is set once (--threads).
#pragma once
#include <cstdint>
#include <functional>

namespace vx {

class ThreadPool {
 public:
  // The most threads a pool takes: far above any machine we run on, far below what makes the
  // system refuse threads.
  static constexpr int kMaxThreads = 1024;

  // threads <= 0: one per hardware thread (at most kMaxThreads). More than kMaxThreads, or threads
  // the system refuses to create, is an Error.
  explicit ThreadPool(int threads = 0);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return threads_; }  // including the calling thread

  // Calls fn(begin, end) over [0, n) split into chunks of at least `grain` items; returns when all
  // are done. The calling thread works too. The first exception thrown by fn is rethrown here.
  // Nested calls from inside fn run serially on the calling thread.
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int64_t grain = 1);

  static ThreadPool& global();
  // Replaces the global pool (not while it is in use).
  static void set_global_threads(int threads);

 private:
  int threads_ = 1;
};

}  // namespace vx
