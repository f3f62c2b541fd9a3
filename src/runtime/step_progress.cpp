#include "runtime/step_progress.h"

#include <utility>

namespace vx::runtime {
namespace {
StepCallback& current() {
  thread_local StepCallback callback;
  return callback;
}
}  // namespace

StepProgressScope::StepProgressScope(StepCallback callback) : previous_(std::exchange(current(), std::move(callback))) {}

StepProgressScope::~StepProgressScope() { current() = std::move(previous_); }

void report_step(int64_t done, int64_t total) {
  if (const StepCallback& callback = current()) callback(done, total);
}

}  // namespace vx::runtime
