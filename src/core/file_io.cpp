#include "core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace vx {

namespace fs = std::filesystem;

namespace {

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void fail_not_regular(const fs::path& path, std::string_view what, mode_t mode) {
  const char* kind = file_kind(mode);
  fail(ErrorCode::Io, cat(what, " ", path, " is ", kind, std::strcmp(kind, "not a regular file") == 0 ? "" : ", not a regular file"));
}

// An open file descriptor that closes itself.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens for reading without ever blocking (O_NONBLOCK: opening a FIFO with no writer would wait
// forever) and checks that what was opened is a regular file.
void open_regular(const fs::path& path, std::string_view what, Fd& out, struct stat& st) {
  out.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (out.fd < 0) {
    const int err = errno;
    if (err == ENOENT) fail(ErrorCode::Io, cat(what, " ", path, " does not exist"));
    fail(ErrorCode::Io, cat("cannot open ", what, " ", path, ": ", std::strerror(err)));
  }
  VX_CHECK(::fstat(out.fd, &st) == 0, Io, "cannot read the size of ", what, " ", path, ": ", std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail_not_regular(path, what, st.st_mode);
  // Regular files never block; clear the flag so reads behave normally.
  ::fcntl(out.fd, F_SETFL, ::fcntl(out.fd, F_GETFL) & ~O_NONBLOCK);
}

template <class Bytes>
Bytes read_all(const fs::path& path, std::string_view what, uint64_t max_bytes) {
  Fd fd;
  struct stat st{};
  open_regular(path, what, fd, st);
  const uint64_t size = uint64_t(st.st_size);
  VX_CHECK(size <= max_bytes, InvalidArgument, what, " ", path, " is ", size, " bytes, more than the limit of ",
           max_bytes, " bytes");
  Bytes bytes(size_t(size), 0);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd.fd, reinterpret_cast<char*>(bytes.data()) + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    VX_CHECK(n >= 0, Io, "cannot read ", what, " ", path, ": ", std::strerror(errno));
    VX_CHECK(n > 0, Io, "cannot read ", what, " ", path, ": it shrank while being read");
    done += size_t(n);
  }
  return bytes;
}

}  // namespace

void check_regular_file(const fs::path& path, std::string_view what) {
  Fd fd;
  struct stat st{};
  open_regular(path, what, fd, st);
}

std::vector<uint8_t> read_file_bytes(const fs::path& path, std::string_view what, uint64_t max_bytes) {
  return read_all<std::vector<uint8_t>>(path, what, max_bytes);
}

std::string read_file_string(const fs::path& path, std::string_view what, uint64_t max_bytes) {
  return read_all<std::string>(path, what, max_bytes);
}

AtomicFile::AtomicFile(const fs::path& target, std::string_view what) : target_(target), what_(what) {
  // Writing onto a directory or a FIFO must fail before anything is written, not at the rename.
  struct stat st{};
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) fail_not_regular(target, what, st.st_mode);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string name = ".";  // built in steps: GCC 12 warns falsely (-Wrestrict) on "." + string
  name += target.filename().string();
  name += ".XXXXXX";
  std::string pattern = (folder / name).string();
  const int fd = ::mkstemp(pattern.data());
  VX_CHECK(fd >= 0, Io, "cannot create ", what, " ", target, ": cannot create a temporary file in ", folder, ": ",
           std::strerror(errno));
  temp_ = pattern;
  // mkstemp creates 0600; give the file the mode a plain create would (0666 less the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    ::close(fd);
    ::unlink(temp_.c_str());
    fail(ErrorCode::Io, cat("cannot create ", what, " ", target));
  }
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::write(const void* data, size_t size) {
  VX_CHECK(file_ != nullptr, Internal, "write after commit of ", target_);
  VX_CHECK(size == 0 || std::fwrite(data, 1, size, file_) == size, Io, "cannot write ", what_, " ", target_, ": ",
           std::strerror(errno));
}

void AtomicFile::commit() {
  VX_CHECK(file_ != nullptr, Internal, "commit twice of ", target_);
  bool ok = std::ferror(file_) == 0 && std::fflush(file_) == 0;
  int err = ok ? 0 : errno;
  if (ok && ::fsync(::fileno(file_)) != 0) ok = false, err = errno;
  if (std::fclose(file_) != 0 && ok) ok = false, err = errno;
  file_ = nullptr;
  VX_CHECK(ok, Io, "cannot write ", what_, " ", target_, ": ", std::strerror(err ? err : EIO));
  VX_CHECK(::rename(temp_.c_str(), target_.c_str()) == 0, Io, "cannot write ", what_, " ", target_,
           ": cannot rename the temporary file: ", std::strerror(errno));
  committed_ = true;
}

void write_file_atomically(const fs::path& path, const void* data, size_t size, std::string_view what) {
  AtomicFile file(path, what);
  file.write(data, size);
  file.commit();
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec) && !ec;
}

}  // namespace vx
