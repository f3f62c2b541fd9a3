#include "cli.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <functional>
#include <new>
#include <string>

#include "command.h"
#include "core/error.h"

namespace vx::cli {

std::vector<CommandSetup>& command_setups() {
  static std::vector<CommandSetup> setups;
  return setups;
}

namespace {
bool g_validate_only = false;

// Every error is one line: messages from libraries may hold newlines.
int fail_with(std::string message) {
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  while (!message.empty() && message.back() == ' ') message.pop_back();
  std::fprintf(stderr, "volvox: %s\n", message.c_str());
  return 1;
}
}  // namespace

bool validate_only() { return g_validate_only; }

int run_cli(int argc, char** argv, bool validate_only) {
  g_validate_only = validate_only;
  CLI::App app{"Volvox: neural networks on Vulkan GPUs and CPUs"};
  app.require_subcommand(1);
  for (auto& setup : command_setups()) setup(app);
  // CLI11 would only say "A subcommand is required" for a misspelt command.
  if (argc >= 2 && argv[1][0] != '-') {
    const CLI::App& top = app;
    std::string names;
    bool known = false;
    for (const CLI::App* sub : top.get_subcommands(std::function<bool(const CLI::App*)>())) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
      known = known || sub->get_name() == argv[1];
    }
    if (!known) return fail_with(std::string("unknown command '") + argv[1] + "' (commands: " + names + ")");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version: the text on stdout, status 0
  } catch (const CLI::ParseError& e) {
    return fail_with(std::string(e.what()) + " (run 'volvox --help' or 'volvox COMMAND --help')");
  } catch (const vx::Error& e) {
    return fail_with(e.what());
  } catch (const std::bad_alloc&) {
    return fail_with("out of memory: an allocation failed (a smaller input, --max-tile or --max-memory-mb may help)");
  } catch (const std::exception& e) {
    return fail_with(e.what());
  }
  return 0;
}

}  // namespace vx::cli
