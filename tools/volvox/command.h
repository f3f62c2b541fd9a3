// Subcommands register themselves: each cmd_*.cpp defines a function that adds its CLI11
// subcommand (with its callback) and registers it with VX_REGISTER_COMMAND. main() calls them all.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace vx::cli {

using CommandSetup = std::function<void(CLI::App& app)>;

std::vector<CommandSetup>& command_setups();

// True while run_cli validates flags only: a command's callback validates its arguments, then
// returns before touching a file when this is set (see cli.h).
bool validate_only();

#define VX_REGISTER_COMMAND(tag, setup_fn) \
  static const bool vx_command_registered_##tag = (::vx::cli::command_setups().push_back(setup_fn), true)

}  // namespace vx::cli
