// Flag checks shared by the commands: every value is validated before anything runs, and a bad one
// is an Error(InvalidArgument) naming the flag and what it accepts.
#pragma once
#include <string>

namespace vx::cli {

// --threads: 0 (all hardware threads) up to ThreadPool's kMaxThreads.
void check_threads(int threads);
// --device: cpu, vulkan, vulkan:N, and auto where allow_auto.
void check_device(const std::string& device, bool allow_auto);
// An integer flag that must lie in [lo, hi].
void check_range(const char* flag, long long value, long long lo, long long hi);

}  // namespace vx::cli
