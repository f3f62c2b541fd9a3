// Progress within one run of an executable, for callers that report it finer than per run (OIDN's
// progress monitor on the CPU: per layer, so that a cancel takes effect within a tile). A scope on
// the calling thread installs a callback; executables that run their steps on that thread (the CPU
// executable) report each finished step; the callback may throw (ErrorCode::Cancelled) to stop the
// run there.
#pragma once
#include <cstdint>
#include <functional>

namespace vx::runtime {

using StepCallback = std::function<void(int64_t done, int64_t total)>;

class StepProgressScope {
 public:
  explicit StepProgressScope(StepCallback callback);
  ~StepProgressScope();  // restores the callback that was installed before
  StepProgressScope(const StepProgressScope&) = delete;
  StepProgressScope& operator=(const StepProgressScope&) = delete;

 private:
  StepCallback previous_;
};

// Called by an executable after each of its `total` steps; does nothing without a scope.
void report_step(int64_t done, int64_t total);

}  // namespace vx::runtime
