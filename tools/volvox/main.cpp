// The volvox command-line tool. Each subcommand lives in its own file (cmd_*.cpp) and registers
// itself through add_*_command(); main only wires them into CLI11 and maps errors to exit status 1.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "core/error.h"

int main(int argc, char** argv) {
  CLI::App app{"Volvox: neural networks on Vulkan GPUs and CPUs"};
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  } catch (const vx::Error& e) {
    std::fprintf(stderr, "volvox: %s\n", e.what());
    return 1;
  }
  return 0;
}
