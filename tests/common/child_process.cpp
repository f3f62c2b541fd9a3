#include "common/child_process.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <exception>

namespace vx::test {

namespace {

void write_all(int fd, const std::string& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) return;
    done += size_t(n);
  }
}

}  // namespace

ChildOutcome run_in_child(const std::function<void()>& fn, ChildLimits limits) {
  int fds[2];
  if (::pipe(fds) != 0) return {false, ErrorCode::Internal, "pipe() failed"};
  const pid_t pid = ::fork();
  if (pid < 0) return {false, ErrorCode::Internal, "fork() failed"};
  if (pid == 0) {
    ::close(fds[0]);
    std::signal(SIGALRM, SIG_DFL);
    ::alarm(limits.timeout_s);
    std::signal(SIGXFSZ, SIG_IGN);
    if (limits.max_file_bytes != UINT64_MAX) {
      rlimit limit{};
      ::getrlimit(RLIMIT_FSIZE, &limit);
      limit.rlim_cur = rlim_t(limits.max_file_bytes);
      ::setrlimit(RLIMIT_FSIZE, &limit);
    }
    // First byte: 'E' then the code for a vx::Error, 'X' for another exception, 'R' for a return.
    std::string report;
    try {
      fn();
      report = "R";
    } catch (const Error& e) {
      report = std::string("E") + char('0' + int(e.code())) + e.what();
    } catch (const std::exception& e) {
      report = std::string("X") + e.what();
    } catch (...) {
      report = "Xan unknown exception";
    }
    write_all(fds[1], report);
    ::_exit(0);  // no atexit handlers: the parent's temporary folders must survive
  }
  ::close(fds[1]);
  std::string report;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    report.append(buffer, size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    return {false, ErrorCode::Internal, "blocked: still running after " + std::to_string(limits.timeout_s) + " s"};
  if (report.size() >= 2 && report[0] == 'E') return {true, ErrorCode(report[1] - '0'), report.substr(2)};
  if (report == "R") return {false, ErrorCode::Internal, "returned without an error"};
  if (!report.empty() && report[0] == 'X') return {false, ErrorCode::Internal, "threw " + report.substr(1)};
  return {false, ErrorCode::Internal, "the child died (wait status " + std::to_string(status) + ")"};
}

}  // namespace vx::test
