// core/file_io, and every file reader and writer going through it: a FIFO, a folder or a device
// given as any input fails at once with one message naming it (a reader that would block fails
// here as "blocked" instead of hanging the suite), files over a reader's limit are refused before
// they are read, and a write that fails part way (RLIMIT_FSIZE in a child process) is an Io error
// naming the file that leaves the previous file byte for byte and no temporary file.
#include <fcntl.h>
#include <onnx/onnx_pb.h>
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
#include "denoise/unet_spec.h"
#include "denoise/weights_store.h"
#include "formats/image_io.h"
#include "formats/npy.h"
#include "formats/onnx_import.h"
#include "formats/tza.h"
#include "volvox/volvox.h"

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

TEST(FileIo, SameFileMatchesSpellingsOfPathsThatDoNotExistYet) {
  const fs::path dir = test::temp_dir();
  write_text(dir / "a.txt", "a");
  EXPECT_TRUE(same_file(dir / "a.txt", dir / "." / "a.txt"));
  EXPECT_TRUE(same_file(dir / "new.gif", dir / "sub" / ".." / "new.gif"));
  // Relative, with no folder of it existing: still the same once absolute (an output not yet
  // written against an input's frame pattern, volvox compare --gif).
  EXPECT_TRUE(same_file("no_such_folder/f_%d.gif", "./no_such_folder/f_%d.gif"));
  EXPECT_FALSE(same_file(dir / "a.txt", dir / "b.txt"));
  EXPECT_FALSE(same_file("no_such_folder/f_%d.gif", "no_such_folder/g_%d.gif"));
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

// ---- every reader and writer goes through file_io ----

// Each file reader of Volvox, reading `path`.
struct Reader {
  std::string name;
  std::string file_name;  // what the input is called (its extension picks the format)
  std::function<void(const fs::path&)> read;
};

// A TensorProto file whose data lives in `data_file` (external data next to it).
fs::path external_data_tensor(const fs::path& dir, const std::string& data_file) {
  onnx::TensorProto proto;
  proto.set_name("w");
  proto.set_data_type(onnx::TensorProto::FLOAT);
  proto.add_dims(2);
  proto.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = proto.add_external_data();
  location->set_key("location");
  location->set_value(data_file);
  const fs::path path = dir / "external.pb";
  write_text(path, proto.SerializeAsString());
  return path;
}

// The weights file given to the C API's filter; its error comes back as a vx::Error.
void set_filter_weights_file(const fs::path& path) {
  // 0 threads: keep the global pool. A forked child must not replace it (joining the parent's
  // workers, which do not exist in the child, would never return).
  VXDevice device = vxNewDevice("cpu", 0);
  VXFilter filter = vxNewFilter(device, "RT");
  vxSetFilterWeightsFile(filter, path.c_str());
  const char* message = nullptr;
  const VXError code = vxGetDeviceError(device, &message);
  const std::string text = message ? message : "";
  vxReleaseFilter(filter);
  vxReleaseDevice(device);
  if (code != VX_ERROR_NONE) throw Error(ErrorCode(int(code) - 1), text);
}

std::vector<Reader> readers() {
  return {
      {"read_image", "input.png", [](const fs::path& p) { read_image(p); }},
      {"read_npy", "input.npy", [](const fs::path& p) { read_npy(p); }},
      {"import_onnx", "input.onnx", [](const fs::path& p) { import_onnx(p); }},
      {"read_onnx_tensor_file", "input.pb", [](const fs::path& p) { read_onnx_tensor_file(p); }},
      {"ONNX external data", "input.bin",
       [](const fs::path& p) { read_onnx_tensor_file(external_data_tensor(p.parent_path(), p.filename().string())); }},
      {"read_tza", "input.tza", [](const fs::path& p) { read_tza(p); }},
      {"vxSetFilterWeightsFile", "input.tza", [](const fs::path& p) { set_filter_weights_file(p); }},
      {"sha256_hex_of_file", "input.tza", [](const fs::path& p) { denoise::sha256_hex_of_file(p); }},
  };
}

TEST(FileReaders, EveryReaderRefusesAFifoAtOnceNamingIt) {
  for (const Reader& reader : readers()) {
    const fs::path dir = test::temp_dir();
    const fs::path fifo = make_fifo(dir / reader.file_name);
    const test::ChildOutcome outcome = test::run_in_child([&] { reader.read(fifo); }, {.timeout_s = 10});
    expect_child_error(outcome, ErrorCode::Io, {cat(fifo, " is a FIFO, not a regular file")}, reader.name);
  }
}

TEST(FileReaders, EveryReaderRefusesADirectoryNamingIt) {
  for (const Reader& reader : readers()) {
    const fs::path folder = test::temp_dir() / reader.file_name;
    fs::create_directory(folder);
    const test::ChildOutcome outcome = test::run_in_child([&] { reader.read(folder); }, {.timeout_s = 10});
    expect_child_error(outcome, ErrorCode::Io, {cat(folder, " is a directory, not a regular file")}, reader.name);
  }
}

// Each file writer, writing something larger than the child's file-size limit.
struct Writer {
  std::string file_name;
  std::function<void(const fs::path&)> write;
};

TEST(FileWriters, AFailedWriteIsAnIoErrorAndKeepsThePreviousFile) {
  Image image(128, 128, 4);  // noise, so that every format's file is far larger than the limit
  uint32_t state = 1;
  for (float& v : image.pixels) v = float((state = state * 1664525u + 1013904223u) >> 8) / float(1 << 24);
  const Tensor tensor = test::random_tensor(Shape{256, 256}, 3);
  const TzaFile weights = make_random_unet_weights(UNetVariant::small, 3, 1);
  const std::vector<Writer> writers = {
      {"out.pfm", [&](const fs::path& p) { write_image(p, image); }},
      {"out.png", [&](const fs::path& p) { write_image(p, image); }},
      {"out.hdr", [&](const fs::path& p) { write_image(p, image); }},
      {"out.exr", [&](const fs::path& p) { write_image(p, image, {.exr_half = false}); }},
      {"out.npy", [&](const fs::path& p) { write_npy(p, tensor); }},
      {"out.tza", [&](const fs::path& p) { write_tza_file(p, weights); }},
  };
  for (const Writer& writer : writers) {
    const fs::path dir = test::temp_dir();
    const fs::path path = dir / writer.file_name;
    // Written in full without a limit (so the limit below is what fails), then the previous file.
    writer.write(path);
    ASSERT_GT(fs::file_size(path), 20u << 10) << path;
    const std::string previous = "previous " + writer.file_name + "\n";
    write_text(path, previous);
    const test::ChildOutcome outcome = test::run_in_child([&] { writer.write(path); }, {.max_file_bytes = 16 << 10});
    expect_child_error(outcome, ErrorCode::Io, {cat(path)}, writer.file_name);
    EXPECT_TRUE(read_text(path) == previous) << path << " was changed by the failed write";
    EXPECT_EQ(entries(dir), std::vector<std::string>{writer.file_name}) << "a temporary file was left behind";
  }
}

}  // namespace
}  // namespace vx
