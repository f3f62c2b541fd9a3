// The volvox command-line tool. Each subcommand lives in its own file (cmd_*.cpp) and registers
// itself (command.h); run_cli (cli.cpp) wires them into CLI11 and maps every error to one line and
// exit status 1.
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "cli.h"

int main(int argc, char** argv) {
  // oneDNN's GNU OpenMP threads spin ~300000 times in every barrier and after every region unless
  // told otherwise; on a machine shared with other work that makes the CPU backend 10x slower
  // (ResNet-50: median 1.1-3.9 s against 0.1-0.2 s, 2 threads, load average 8-12). Sleeping at
  // once (OMP_WAIT_POLICY=passive) costs a wake-up per parallel region instead, which small models
  // feel (PaddleOCR's classifier, 53 convolutions: 2.1 ms against 1.15 ms with a short spin). A
  // spin of 3000 iterations keeps most of both (2 threads, this 2-core machine: idle ResNet-50
  // 28.0 ms vs 28.7 passive, classifier 1.15 vs 2.1; beside a busy core ResNet-50 53 vs 45 ms).
  // libgomp reads it once, when it is loaded, so the tool re-executes itself once with it set. An
  // explicit OMP_WAIT_POLICY or GOMP_SPINCOUNT wins; if exec fails we simply go on.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
    setenv("GOMP_SPINCOUNT", "3000", 1);
    execv("/proc/self/exe", argv);
  }
  // Past a file-size limit (ulimit -f) a write should fail with EFBIG and be reported, not kill the
  // process half-way through a file.
  std::signal(SIGXFSZ, SIG_IGN);
  return vx::cli::run_cli(argc, argv);
}
