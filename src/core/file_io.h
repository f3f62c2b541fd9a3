// Whole-file reading and atomic writing, the one place every reader and writer goes through.
//
// Reading: the file is opened without blocking and must be a regular file (a FIFO, device, socket
// or directory is refused with the file's name, never waited on), and no more than `max_bytes` are
// read, so a reader's memory is bounded before it allocates.
//
// Writing: bytes go to a temporary file in the target's folder, are flushed to disk and checked,
// and only then renamed over the target. A failed write (full disk, file-size limit, no permission)
// is an Error(Io); the previous file is left untouched and no partial file remains.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace vx {

// The default bound of read_file_bytes: larger than any model, weights or image file we read.
inline constexpr uint64_t kMaxReadFileBytes = uint64_t(4) << 30;  // 4 GiB

// Error(Io) "<what> <path> does not exist / is a directory / is not a regular file (a FIFO ...)".
void check_regular_file(const std::filesystem::path& path, std::string_view what);

// The whole file. `what` names it in errors ("image file", "ONNX model", ...). A file larger than
// max_bytes is an Error(InvalidArgument) naming the limit.
std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path, std::string_view what,
                                     uint64_t max_bytes = kMaxReadFileBytes);
std::string read_file_string(const std::filesystem::path& path, std::string_view what,
                             uint64_t max_bytes = kMaxReadFileBytes);

// A regular file open for reading by offset and length (a reader of part of a file, or one that
// streams a large file): the same checks as read_file_bytes when it opens.
class InputFile {
 public:
  InputFile(const std::filesystem::path& path, std::string_view what);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  uint64_t size() const { return size_; }
  // Exactly `length` bytes from `offset`; Error(Io) naming the file when [offset, offset + length)
  // is not inside it or the read fails (callers check the range against size() for their own message).
  void read_at(uint64_t offset, void* dst, size_t length);

 private:
  std::filesystem::path path_;
  std::string what_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// A file written in one piece: write() into a temporary file beside the target, then commit().
// Destroyed without commit(), it removes the temporary file and leaves the target as it was.
class AtomicFile {
 public:
  AtomicFile(const std::filesystem::path& target, std::string_view what);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t size);
  FILE* stream() { return file_; }  // for writers that stream (curl); errors surface at commit()
  // Flushes, fsyncs and closes the temporary file, checks every step, renames it over the target.
  void commit();
  const std::filesystem::path& temp_path() const { return temp_; }

 private:
  std::filesystem::path target_, temp_;
  std::string what_;
  FILE* file_ = nullptr;
  bool committed_ = false;
};

void write_file_atomically(const std::filesystem::path& path, const void* data, size_t size,
                           std::string_view what);

// True when a and b name the same existing file (same device and inode), or the same path once
// both are made absolute and normalised ("x" and "./x", existing or not).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace vx
