// Errors with context. Every failure in Volvox is a vx::Error carrying a code (mapped 1:1 onto the
// C API's error codes) and a human-readable message; callers add context as it propagates up.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace vx {

enum class ErrorCode {
  InvalidArgument,  // bad parameter, wrong image size, wrong input shape
  InvalidFile,      // a corrupt or truncated .tza / .onnx / image file
  Unsupported,      // an op, dtype or feature this build or device lacks
  Io,               // cannot open / read / write a file, network failure
  OutOfMemory,      // host or device allocation failed
  DeviceLost,       // the GPU went away
  Cancelled,        // the progress callback asked to stop
  Internal,         // a bug: an invariant did not hold
};

const char* error_code_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }
  // A new error with "context: " prepended, same code.
  Error with_context(const std::string& context) const { return Error(code_, context + ": " + what()); }

 private:
  ErrorCode code_;
};

// Concatenates anything streamable into one string: cat("conv ", name, " has ", n, " inputs").
template <class... Args>
std::string cat(Args&&... args) {
  std::ostringstream out;
  (out << ... << std::forward<Args>(args));
  return out.str();
}

[[noreturn]] inline void fail(ErrorCode code, const std::string& message) { throw Error(code, message); }

}  // namespace vx

// Checks a condition and throws vx::Error(code, message) when it does not hold.
#define VX_CHECK(cond, code, ...)                                   \
  do {                                                              \
    if (!(cond)) ::vx::fail(::vx::ErrorCode::code, ::vx::cat(__VA_ARGS__)); \
  } while (0)

// Re-throws any vx::Error escaping `statement` with `context` prepended.
#define VX_WITH_CONTEXT(context, statement)                 \
  do {                                                      \
    try {                                                   \
      statement;                                            \
    } catch (const ::vx::Error& vx_error_) {                \
      throw vx_error_.with_context(context);                \
    }                                                       \
  } while (0)
