// core/file_io: a FIFO, a folder or a device fails at once with one message naming it, files over
// the limit are refused before they are read, and a write that fails part way (RLIMIT_FSIZE in a
// child process) is an Io error naming the file that leaves the previous file byte for byte and no
// temporary file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "common/child_process.h"
#include "common/test_util.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/printable.h"

namespace vx {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

fs::path make_fifo(const fs::path& path) {
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
  return path;
}

// `fn` must throw a vx::Error with `code` whose message holds every fragment.
void expect_error(const std::function<void()>& fn, ErrorCode code, const std::vector<std::string>& fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected an error " << error_code_name(code);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << error_code_name(e.code()) << ": " << e.what();
    for (const std::string& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what() << " lacks " << f;
  }
}

void expect_child_error(const test::ChildOutcome& outcome, ErrorCode code, const std::vector<std::string>& fragments,
                        const std::string& label) {
  ASSERT_TRUE(outcome.threw_vx_error) << label << ": " << outcome.message;
  EXPECT_EQ(outcome.code, code) << label << ": " << error_code_name(outcome.code) << ": " << outcome.message;
  for (const std::string& f : fragments)
    EXPECT_NE(outcome.message.find(f), std::string::npos) << label << ": " << outcome.message << " lacks " << f;
}

// ---- file_io itself ----

TEST(FileIo, ReadsAWholeRegularFile) {
  fs::path path = test::temp_dir() / "a.bin";
  write_text(path, std::string("ab\0c", 4));
  EXPECT_EQ(read_file_string(path, "test file"), std::string("ab\0c", 4));
  EXPECT_EQ(read_file_bytes(path, "test file"), (std::vector<uint8_t>{'a', 'b', 0, 'c'}));
  write_text(path, "");
  EXPECT_TRUE(read_file_bytes(path, "test file").empty());
}

TEST(FileIo, FifoIsRefusedAtOnceNamingIt) {
  const fs::path fifo = make_fifo(test::temp_dir() / "pipe.bin");
  const std::string expected = cat("test file ", fifo, " is a FIFO, not a regular file");
  // Without a writer (open() would wait) and with one (read() would wait for data).
  for (bool with_writer : {false, true}) {
    const int writer = with_writer ? ::open(fifo.c_str(), O_RDWR | O_NONBLOCK) : -1;
    const test::ChildOutcome outcome = test::run_in_child([&] { read_file_bytes(fifo, "test file"); });
    expect_child_error(outcome, ErrorCode::Io, {expected}, with_writer ? "with a writer" : "without a writer");
    expect_error([&] { check_regular_file(fifo, "test file"); }, ErrorCode::Io, {expected});
    expect_error([&] { InputFile file(fifo, "test file"); }, ErrorCode::Io, {expected});
    if (writer >= 0) ::close(writer);
  }
}

TEST(FileIo, DirectoryDeviceAndMissingFileAreIoErrorsNamingThePath) {
  const fs::path dir = test::temp_dir();
  expect_error([&] { read_file_bytes(dir, "test file"); }, ErrorCode::Io,
               {cat("test file ", dir, " is a directory, not a regular file")});
  expect_error([&] { read_file_string("/dev/null", "test file"); }, ErrorCode::Io,
               {"test file \"/dev/null\" is a character device, not a regular file"});
  expect_error([&] { read_file_bytes(dir / "absent", "test file"); }, ErrorCode::Io,
               {cat("test file ", dir / "absent", " does not exist")});
}

TEST(FileIo, FileOverTheLimitIsRefusedBeforeItIsRead) {
  const fs::path path = test::temp_dir() / "big.bin";
  write_text(path, std::string(1001, 'x'));
  expect_error([&] { read_file_bytes(path, "test file", 1000); }, ErrorCode::InvalidArgument,
               {cat("test file ", path), "1001 bytes", "limit of 1000 bytes"});
  EXPECT_EQ(read_file_bytes(path, "test file", 1001).size(), 1001u);
}

TEST(FileIo, InputFileReadsRangesAndRefusesReadsPastItsEnd) {
  const fs::path path = test::temp_dir() / "range.bin";
  write_text(path, "0123456789");
  InputFile file(path, "test file");
  EXPECT_EQ(file.size(), 10u);
  char buffer[4] = {};
  file.read_at(3, buffer, 4);
  EXPECT_EQ(std::string(buffer, 4), "3456");
  file.read_at(10, buffer, 0);
  expect_error([&] { file.read_at(8, buffer, 4); }, ErrorCode::Io, {cat("test file ", path), "past its end"});
  expect_error([&] { file.read_at(UINT64_MAX, buffer, 1); }, ErrorCode::Io, {"past its end"});
}

TEST(AtomicFile, ReplacesTheTargetAndLeavesNoTemporaryFile) {
  const fs::path dir = test::temp_dir();
  const fs::path path = dir / "out.txt";
  write_file_atomically(path, "first", 5, "test file");
  EXPECT_EQ(read_text(path), "first");
  write_file_atomically(path, "second", 6, "test file");
  EXPECT_EQ(read_text(path), "second");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.txt"});
  // The mode a plain create gives (0666 less the umask), not mkstemp's 0600.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(fs::status(path).permissions(), fs::perms(0666 & ~mask));
}

TEST(AtomicFile, WithoutCommitTheTargetIsUntouched) {
  const fs::path dir = test::temp_dir();
  const fs::path path = dir / "out.txt";
  write_text(path, "previous");
  {
    AtomicFile file(path, "test file");
    file.write("new contents", 12);
    EXPECT_TRUE(fs::exists(file.temp_path()));
  }
  EXPECT_EQ(read_text(path), "previous");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, FailedWriteKeepsThePreviousFileByteForByte) {
  const fs::path dir = test::temp_dir();
  const fs::path path = dir / "out.bin";
  const std::string previous = "the previous contents\n";
  write_text(path, previous);
  const std::string big(1 << 20, 'n');
  const test::ChildOutcome outcome = test::run_in_child(
      [&] { write_file_atomically(path, big.data(), big.size(), "test file"); }, {.max_file_bytes = 64 << 10});
  expect_child_error(outcome, ErrorCode::Io, {cat("cannot write test file ", path), "File too large"}, "write");
  EXPECT_EQ(read_text(path), previous);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.bin"}) << "a temporary file was left behind";
  // Streamed writes (curl's) fail at commit() the same way.
  const test::ChildOutcome streamed = test::run_in_child(
      [&] {
        AtomicFile file(path, "test file");
        std::fwrite(big.data(), 1, big.size(), file.stream());
        file.commit();
      },
      {.max_file_bytes = 64 << 10});
  expect_child_error(streamed, ErrorCode::Io, {cat("cannot write test file ", path)}, "stream");
  EXPECT_EQ(read_text(path), previous);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.bin"});
}

TEST(AtomicFile, FifoOrDirectoryTargetIsRefusedBeforeWriting) {
  const fs::path dir = test::temp_dir();
  const fs::path fifo = make_fifo(dir / "pipe");
  fs::create_directory(dir / "folder");
  expect_error([&] { write_file_atomically(fifo, "x", 1, "test file"); }, ErrorCode::Io,
               {cat("test file ", fifo, " is a FIFO")});
  expect_error([&] { write_file_atomically(dir / "folder", "x", 1, "test file"); }, ErrorCode::Io,
               {cat("test file ", dir / "folder", " is a directory")});
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"folder", "pipe"}));
}

TEST(Printable, EscapesEverythingButPrintableAscii) {
  EXPECT_EQ(printable("PF 1.0"), "PF 1.0");
  EXPECT_EQ(printable(std::string("-1\0\x80\n\x1b[31m\\", 11)), "-1\\x00\\x80\\x0a\\x1b[31m\\\\");
  EXPECT_EQ(printable(std::string(100, 'a'), 4), "aaaa...");
}

}  // namespace
}  // namespace vx
