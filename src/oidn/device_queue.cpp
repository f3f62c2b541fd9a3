#include "oidn/device_queue.h"

namespace vx::oidn {

DeviceQueue::DeviceQueue() : state_(std::make_shared<State>()), worker_(work, state_) {}

DeviceQueue::~DeviceQueue() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
  }
  state_->changed.notify_all();
  if (worker_.get_id() == std::this_thread::get_id())
    worker_.detach();
  else
    worker_.join();
}

void DeviceQueue::submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->tasks.push_back(std::move(task));
  }
  state_->changed.notify_all();
}

void DeviceQueue::wait() {
  if (worker_.get_id() == std::this_thread::get_id()) return;  // a task cannot wait for itself
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->changed.wait(lock, [&] { return state_->tasks.empty() && !state_->busy; });
}

void DeviceQueue::work(const std::shared_ptr<State>& state) {
  std::unique_lock<std::mutex> lock(state->mutex);
  for (;;) {
    state->changed.wait(lock, [&] { return !state->tasks.empty() || state->stopping; });
    if (state->tasks.empty()) return;  // stopping, and everything queued has run
    std::function<void()> task = std::move(state->tasks.front());
    state->tasks.pop_front();
    state->busy = true;
    lock.unlock();
    task();  // tasks catch their own errors (they record them as OIDN errors)
    task = nullptr;  // drop what it holds before waking waiters
    lock.lock();
    state->busy = false;
    state->changed.notify_all();
  }
}

}  // namespace vx::oidn
