// The work queue behind OIDN's *Async calls: one worker thread per device runs the queued
// operations in order (oidnExecuteFilterAsync, oidnRead/WriteBufferAsync), so the call returns
// before the work is done, as OIDN's does; oidnSyncDevice waits for it, and every synchronous call
// waits for it first, so operations on one device stay in the order they were issued.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace vx::oidn {

class DeviceQueue {
 public:
  DeviceQueue();
  // Finishes what is queued. May run on the worker itself (a task dropping the last reference to
  // its device): the worker then ends after that task instead of being joined.
  ~DeviceQueue();
  DeviceQueue(const DeviceQueue&) = delete;
  DeviceQueue& operator=(const DeviceQueue&) = delete;

  void submit(std::function<void()> task);
  // Returns once every task submitted before the call has run.
  void wait();

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<std::function<void()>> tasks;
    bool busy = false, stopping = false;
  };
  static void work(const std::shared_ptr<State>& state);
  std::shared_ptr<State> state_;  // shared with the worker, which may outlive this object
  std::thread worker_;
};

}  // namespace vx::oidn
