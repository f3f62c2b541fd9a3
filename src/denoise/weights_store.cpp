#include "denoise/weights_store.h"

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

// The hashes are those of the files in OIDN 2.4.1's weights (shared/weights/README.md lists the same).
const std::vector<KnownWeights>& builtin_table() {
  static const std::vector<KnownWeights> table = {
      {"rt_ldr", "ad35b8fe765d453ade41861e90ee1da66e0b5fe35136de7763b64098a682e3ab", 3, "color (LDR)"},
      {"rt_ldr_alb_nrm", "eae7f05c02ed49c0b267454818013736a0bdd90483dae2ffd7a120acff87cc0b", 9,
       "color (LDR), albedo, normal"},
      {"rt_hdr_alb_nrm", "e586ef2ff48d7fbb7611986405220ed8fc5c13ca79bfc40be4dc742fbf959e1a", 9,
       "color (HDR), albedo, normal"},
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

  ensure_curl_initialised();
  AtomicFile temp(result.path, "weights file");
  Sha256 hash;
  DownloadSink sink{temp.stream(), &hash};
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  VX_CHECK(curl, Io, "libcurl: cannot create a transfer");
  char curl_message[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl.get(), CURLOPT_URL, result.url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl.get(), CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);  // GitHub's raw links redirect
  curl_easy_setopt(curl.get(), CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);     // HTTP >= 400 is an error, its body is not kept
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, options.timeout_s);
  curl_easy_setopt(curl.get(), CURLOPT_MAXFILESIZE_LARGE, curl_off_t(kTzaMaxFileBytes));  // what read_tza reads
  curl_easy_setopt(curl.get(), CURLOPT_USERAGENT, "volvox-weights/1");
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, curl_message);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &write_to_sink);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &sink);
  CURLcode code = curl_easy_perform(curl.get());
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);

  VX_CHECK(!sink.write_failed, Io, "cannot write weights file ", result.path, " (downloading ", result.url,
           "): ", std::strerror(sink.write_errno ? sink.write_errno : EIO));
  if (code == CURLE_HTTP_RETURNED_ERROR)
    fail(ErrorCode::Io, cat("downloading ", result.url, " failed: HTTP status ", status,
                            status == 404 ? " (not found: check the name, --base-url or VOLVOX_WEIGHTS_URL)" : ""));
  VX_CHECK(code == CURLE_OK, Io, "downloading ", result.url, " failed: ",
           curl_message[0] ? curl_message : curl_easy_strerror(code));

  std::string actual = hash.hex();
  VX_CHECK(actual == known->sha256, InvalidFile, "downloaded ", result.url, " has SHA-256 ", actual,
           " but ", name, " must have ", known->sha256, "; the file was not kept");
  temp.commit();
  result.downloaded = true;
  return result;
}

fs::path resolve_weights(const std::string& explicit_path_or_empty, const std::string& name) {
  if (!explicit_path_or_empty.empty()) {
    fs::path file = explicit_path_or_empty;
    VX_CHECK(fs::is_regular_file(file), InvalidArgument, "weights file ", file, " (from --weights) does not exist or is not a file");
    return file;
  }
  check_weights_name(name);
  std::string file_name = name + ".tza";
  std::string looked;
  std::string env_dir = env_or_empty("VOLVOX_WEIGHTS");
  if (!env_dir.empty()) {
    fs::path file = fs::path(env_dir) / file_name;
    if (fs::is_regular_file(file)) return file;
    looked += cat(file, " (VOLVOX_WEIGHTS), ");
  }
  fs::path cached = weights_cache_dir() / file_name;
  if (fs::is_regular_file(cached)) return cached;
  looked += cat(cached, " (cache)");
  fail(ErrorCode::InvalidArgument,
       cat("the denoiser needs the weights '", name, "' and found none at ", looked, "; run `volvox weights fetch ",
           name, "` or pass --weights FILE or set VOLVOX_WEIGHTS=DIR"));
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
