// Runs code in a forked child process: under a file-size limit, so that a test can make a write
// fail part way as a full disk would (tests run as root, so a read-only folder cannot), and under a
// time limit, so that code that would block (reading a FIFO) fails the test instead of hanging it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/error.h"

namespace vx::test {

// What the child's code did.
struct ChildOutcome {
  bool threw_vx_error = false;
  ErrorCode code = ErrorCode::Internal;
  std::string message;  // the vx::Error's message, or what happened instead ("returned", "blocked", ...)
};

struct ChildLimits {
  uint64_t max_file_bytes = UINT64_MAX;  // RLIMIT_FSIZE; SIGXFSZ is ignored, so writes past it fail with EFBIG
  unsigned timeout_s = 20;               // then the child is killed and the outcome says it blocked
};

ChildOutcome run_in_child(const std::function<void()>& fn, ChildLimits limits = {});

}  // namespace vx::test
