// The volvox command-line tool. Each subcommand lives in its own file (cmd_*.cpp) and registers
// itself (command.h); run_cli (cli.cpp) wires them into CLI11 and maps every error to one line and
// exit status 1.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "cli.h"

namespace {

// Whether tasks other than this process keep the CPUs busy: /proc/loadavg's fourth field counts
// the runnable tasks (this one included) before the slash. One reading is not enough: on an idle
// machine it says 2 about one time in five (a kernel thread, the parent shell), which chose the
// short spin and made ResNet-50 82 ms instead of 68 (2 threads, AVX2). So busy only when ten
// readings, 0.2 ms apart, all see another task. Unreadable counts as busy.
bool other_runnable_tasks() {
  for (int reading = 0; reading < 10; ++reading) {
    if (reading > 0) usleep(200);
    FILE* f = std::fopen("/proc/loadavg", "r");
    if (f == nullptr) return true;
    double a, b, c;
    long running = 0, total = 0;
    const int fields = std::fscanf(f, "%lf %lf %lf %ld/%ld", &a, &b, &c, &running, &total);
    std::fclose(f);
    if (fields != 5) return true;
    if (running <= 1) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // oneDNN's GNU OpenMP threads spin ~300000 times in every barrier and after every region unless
  // told otherwise. On a machine shared with other work that makes the CPU backend 10x slower (ResNet-50: median 1.1-3.9 s against 0.1-0.2 s,
  // 2 threads, load average 8-12); sleeping at once (OMP_WAIT_POLICY=passive) costs a wake-up per
  // parallel region instead, which small models feel (PaddleOCR's classifier: 2.1 ms against 1.15
  // ms with a short spin, 2 threads). On an idle machine the long spin wins, the more the more
  // threads: on 16 cores the classifier takes 1.26 ms with it, 5.07 ms with a spin of 3000 and 2.75
  // ms passive; MobileNetV3 2.77 / 8.22 / 4.34 ms (bench/onnx/results/zoo_cpu16_spin_*). So: the
  // long spin when no other task is runnable as we start, else a spin of 3000. libgomp reads it
  // once, when it is loaded, so the tool re-executes itself once with it set. An explicit
  // OMP_WAIT_POLICY or GOMP_SPINCOUNT wins; if exec fails we simply go on.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
    setenv("GOMP_SPINCOUNT", other_runnable_tasks() ? "3000" : "300000", 1);
    execv("/proc/self/exe", argv);
  }
  // Past a file-size limit (ulimit -f) a write should fail with EFBIG and be reported, not kill the
  // process half-way through a file.
  std::signal(SIGXFSZ, SIG_IGN);
  return vx::cli::run_cli(argc, argv);
}
