// The volvox command-line tool. Each subcommand lives in its own file (cmd_*.cpp) and registers
// itself (command.h); main wires them into CLI11 and maps every error to one line and exit status 1.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "command.h"
#include "core/error.h"

namespace vx::cli {
std::vector<CommandSetup>& command_setups() {
  static std::vector<CommandSetup> setups;
  return setups;
}
}  // namespace vx::cli

int main(int argc, char** argv) {
  CLI::App app{"Volvox: neural networks on Vulkan GPUs and CPUs"};
  app.require_subcommand(1);
  for (auto& setup : vx::cli::command_setups()) setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  } catch (const vx::Error& e) {
    std::fprintf(stderr, "volvox: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "volvox: %s\n", e.what());
    return 1;
  }
  return 0;
}
