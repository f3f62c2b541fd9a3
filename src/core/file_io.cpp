#include "core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <cstring>
#include <new>

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

[[noreturn]] void fail_open(const fs::path& path, std::string_view what, int err) {
  if (err == ENOENT) fail(ErrorCode::Io, cat(what, " ", path, " does not exist"));
  fail(ErrorCode::Io, cat("cannot open ", what, " ", path, ": ", std::strerror(err)));
}

// Opens for reading without ever blocking and checks that what was opened is a regular file.
// Anything else is refused before open() when stat() can tell (opening a tape rewinds it, a tty
// without a controlling terminal would become it), and again after it (the path may have changed).
// O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
int open_regular(const fs::path& path, std::string_view what, uint64_t& size) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) fail_open(path, what, errno);
  if (!S_ISREG(st.st_mode)) fail_not_regular(path, what, st.st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail_open(path, what, errno);
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const int err = errno;
  if (!stat_ok || !S_ISREG(st.st_mode)) {
    ::close(fd);
    VX_CHECK(stat_ok, Io, "cannot read the size of ", what, " ", path, ": ", std::strerror(err));
    fail_not_regular(path, what, st.st_mode);
  }
  // Regular files never block; clear the flag so reads behave normally.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  size = uint64_t(st.st_size);
  return fd;
}

template <class Bytes>
Bytes read_all(const fs::path& path, std::string_view what, uint64_t max_bytes) {
  InputFile file(path, what);
  const uint64_t size = file.size();
  VX_CHECK(size <= max_bytes, InvalidArgument, what, " ", path, " is ", size, " bytes, more than the limit of ",
           max_bytes, " bytes");
  Bytes bytes;
  try {
    bytes.resize(size_t(size));
  } catch (const std::bad_alloc&) {  // readers report every failure as a vx::Error naming the file
    fail(ErrorCode::OutOfMemory, cat("cannot read ", what, " ", path, ": out of memory for its ", size, " bytes"));
  }
  file.read_at(0, bytes.data(), bytes.size());
  return bytes;
}

}  // namespace

void check_regular_file(const fs::path& path, std::string_view what) { InputFile file(path, what); }

std::vector<uint8_t> read_file_bytes(const fs::path& path, std::string_view what, uint64_t max_bytes) {
  return read_all<std::vector<uint8_t>>(path, what, max_bytes);
}

std::string read_file_string(const fs::path& path, std::string_view what, uint64_t max_bytes) {
  return read_all<std::string>(path, what, max_bytes);
}

InputFile::InputFile(const fs::path& path, std::string_view what) : path_(path), what_(what) {
  fd_ = open_regular(path, what, size_);
}

InputFile::~InputFile() { ::close(fd_); }

void InputFile::read_at(uint64_t offset, void* dst, size_t length) {
  VX_CHECK(offset <= size_ && length <= size_ - offset, Io, "cannot read ", what_, " ", path_, ": bytes [", offset,
           ", ", offset + length, ") lie past its end (", size_, " bytes)");
  size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd_, static_cast<char*>(dst) + done, length - done, off_t(offset + done));
    if (n < 0 && errno == EINTR) continue;
    VX_CHECK(n >= 0, Io, "cannot read ", what_, " ", path_, ": ", std::strerror(errno));
    VX_CHECK(n > 0, Io, "cannot read ", what_, " ", path_, ": it shrank while being read");
    done += size_t(n);
  }
}

AtomicFile::AtomicFile(const fs::path& target, std::string_view what) : target_(target), what_(what) {
  // Writing onto a directory or a FIFO must fail before anything is written, not at the rename.
  struct stat st{};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) fail_not_regular(target, what, st.st_mode);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // O_EXCL with a random name (not mkstemp, which makes 0600 files): the kernel applies the umask
  // to 0666 as for any new file, with no process-wide umask() call that other threads could race.
  std::random_device random;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    std::string name = ".";  // built in steps: GCC 12 warns falsely (-Wrestrict) on "." + string
    name += target.filename().string();
    name += cat(".", std::hex, random(), ".tmp");
    temp_ = folder / name;
    fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  VX_CHECK(fd >= 0, Io, "cannot create ", what, " ", target, ": cannot create a temporary file in ", folder, ": ",
           std::strerror(errno));
  if (exists) ::fchmod(fd, st.st_mode & 07777);  // a replaced file keeps its permissions
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
  // Made absolute first: weakly_canonical leaves a relative path none of whose folders exist as it
  // is, so "x_%d.gif" and "./x_%d.gif" (an output not written yet, a frame pattern) would differ.
  const auto normal = [](const fs::path& p, std::error_code& error) {
    const fs::path absolute = fs::absolute(p, error);
    return error ? absolute : fs::weakly_canonical(absolute, error);
  };
  std::error_code error_a, error_b;
  const fs::path normal_a = normal(a, error_a), normal_b = normal(b, error_b);
  return !error_a && !error_b && normal_a == normal_b;
}

}  // namespace vx
