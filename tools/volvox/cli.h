// The command line as a function, so that main() and the CLI fuzz target run the same code.
#pragma once

namespace vx::cli {

// Parses argv and runs the chosen command. Returns the exit status: 0 on success, 1 on any failure
// after printing exactly one line "volvox: <message>" on stderr (CLI parse errors, bad flag values,
// vx::Error, allocation failures). --help prints the usage and returns 0.
// validate_only: parse and validate every flag, then stop before reading a file or running anything
// (what the CLI fuzz target exercises).
int run_cli(int argc, char** argv, bool validate_only = false);

}  // namespace vx::cli
