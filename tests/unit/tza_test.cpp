// The TZA reader and writer: round trips, the real OIDN files, and every kind of corrupt file (each
// must give ErrorCode::InvalidFile with a message naming the problem, never a crash).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>

#include "common/test_util.h"
#include "core/half.h"
#include "denoise/unet_spec.h"
#include "formats/tza.h"
#include "volvox/volvox.h"

namespace vx {
namespace {

// ---- a raw TZA builder that can write anything, valid or not ----

struct RawEntry {
  std::string name;
  std::vector<uint32_t> dims;
  std::string layout;
  char dtype = 'h';
  uint64_t offset = 64;
  int ndims = -1;  // the ndims byte; -1: dims.size()
};

struct RawTza {
  uint16_t magic = kTzaMagic;
  uint8_t major = 2;
  uint8_t minor = 0;
  std::vector<RawEntry> entries;
  size_t data_bytes = 64;            // bytes of data after the 64-byte header block
  int64_t table_offset = -1;         // -1: right after the data
  int64_t count = -1;                // -1: entries.size()
};

template <class T>
void put(std::vector<std::byte>& out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

std::vector<std::byte> build(const RawTza& raw) {
  std::vector<std::byte> out;
  put<uint16_t>(out, raw.magic);
  put<uint8_t>(out, raw.major);
  put<uint8_t>(out, raw.minor);
  uint64_t table = raw.table_offset >= 0 ? uint64_t(raw.table_offset) : 64 + raw.data_bytes;
  put<uint64_t>(out, table);
  out.resize(64 + raw.data_bytes, std::byte{0x11});
  put<uint32_t>(out, raw.count >= 0 ? uint32_t(raw.count) : uint32_t(raw.entries.size()));
  for (const RawEntry& e : raw.entries) {
    put<uint16_t>(out, uint16_t(e.name.size()));
    for (char c : e.name) put<char>(out, c);
    put<uint8_t>(out, uint8_t(e.ndims >= 0 ? e.ndims : int(e.dims.size())));
    for (uint32_t d : e.dims) put<uint32_t>(out, d);
    for (char c : e.layout) put<char>(out, c);
    put<char>(out, e.dtype);
    put<uint64_t>(out, e.offset);
  }
  return out;
}

// A valid two-tensor file: w [2, 1, 2, 2] oihw f16 at 64, b [2] x f16 at 128.
RawTza valid_raw() {
  RawTza raw;
  raw.data_bytes = 128;
  raw.entries = {{"w", {2, 1, 2, 2}, "oihw", 'h', 64}, {"b", {2}, "x", 'h', 128}};
  return raw;
}

struct CorruptCase {
  std::string name;      // also the corpus file stem
  std::vector<std::byte> bytes;
  std::string expected;  // substring of the error message
};

std::vector<CorruptCase> corrupt_cases() {
  std::vector<CorruptCase> cases;
  auto add = [&](std::string name, const std::function<void(RawTza&)>& edit, std::string expected) {
    RawTza raw = valid_raw();
    edit(raw);
    cases.push_back({std::move(name), build(raw), std::move(expected)});
  };
  add("bad_magic", [](RawTza& r) { r.magic = 0x41D8; }, "bad magic 0x41d8");
  add("major_1", [](RawTza& r) { r.major = 1; }, "unsupported major version 1");
  add("major_3", [](RawTza& r) { r.major = 3; }, "unsupported major version 3");
  add("table_past_end", [](RawTza& r) { r.table_offset = 100000; }, "table offset 100000 lies past the end");
  add("table_in_header", [](RawTza& r) { r.table_offset = 4; }, "table offset 4 lies inside the header");
  add("count_huge", [](RawTza& r) { r.count = 0xFFFFFFFF; }, "tensor count 4294967295 cannot fit");
  add("count_one_too_many", [](RawTza& r) { r.count = 3; }, "tensor count 3 cannot fit in the 51 bytes");
  add("empty_name", [](RawTza& r) { r.entries[1].name = ""; }, "tensor #1 has an empty name");
  add("nul_in_name", [](RawTza& r) { r.entries[0].name.append(1, '\0').append(1, 'x'); }, "contains a NUL byte");
  add("ndims_zero", [](RawTza& r) { r.entries[1] = {"b", {}, "", 'h', 128}; }, "tensor #1 'b' has 0 dimensions");
  add("ndims_huge",
      [](RawTza& r) {
        r.entries[1].ndims = 200;
        r.entries[1].dims.assign(200, 1);
        r.entries[1].layout.assign(200, 'x');
      },
      "tensor #1 'b' has 200 dimensions");
  add("dims_overflow",
      [](RawTza& r) { r.entries[0].dims = {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}; },
      "tensor #0 'w' has more elements than the file has bytes");
  add("zero_extent", [](RawTza& r) { r.entries[0].dims = {2, 0, 2, 2}; }, "zero extent in dimension 1");
  add("data_past_end", [](RawTza& r) { r.entries[1].offset = 4096; }, "data of tensor #1 'b' (4 bytes at offset 4096)");
  add("data_straddles_end", [](RawTza& r) { r.entries[0].dims = {2, 1, 8, 8}; },
      "data of tensor #0 'w' (256 bytes at offset 64) lies past the end");
  add("data_offset_wraps", [](RawTza& r) { r.entries[1].offset = ~uint64_t(0) - 1; }, "lies past the end of the file");
  add("data_exceeds_file",
      [](RawTza& r) {
        r.entries[0] = {"w", {2, 1, 10, 5}, "oihw", 'h', 16};  // 200 bytes at 16
        r.entries[1] = {"b", {30}, "x", 'h', 16};              // 60 more bytes, overlapping
      },
      "data of tensor #0 'w' (200 bytes at offset 16) runs into the table at offset 192");
  // Data blocks must lie between the header and the table, and must not overlap (a crafted file
  // could otherwise make many tensors out of the same bytes).
  add("data_overlap", [](RawTza& r) { r.entries[1].offset = 72; },
      "data of tensor #1 'b' (4 bytes at offset 72) overlaps the data of tensor #0 'w' (16 bytes at offset 64)");
  add("data_same_offset", [](RawTza& r) { r.entries[1].offset = 64; },
      "data of tensor #1 'b' (4 bytes at offset 64) overlaps the data of tensor #0 'w' (16 bytes at offset 64)");
  add("data_overlap_out_of_table_order",
      [](RawTza& r) {
        r.entries[0].offset = 130;  // w after b in the file, starting inside it
      },
      "data of tensor #0 'w' (16 bytes at offset 130) overlaps the data of tensor #1 'b' (4 bytes at offset 128)");
  add("data_in_table", [](RawTza& r) { r.entries[1].offset = 190; },
      "data of tensor #1 'b' (4 bytes at offset 190) runs into the table at offset 192");
  add("data_in_header", [](RawTza& r) { r.entries[0].offset = 0; }, "starts at offset 0, inside the header");
  add("unknown_dtype", [](RawTza& r) { r.entries[0].dtype = 'd'; }, "'w' has an unknown dtype char 0x64");
  add("unknown_layout_char", [](RawTza& r) { r.entries[0].layout = "oihq"; }, "unknown layout char 0x71");
  add("layout_wrong_for_rank", [](RawTza& r) { r.entries[0].layout = "xxxx"; },
      "'w' has layout 'xxxx' for 4 dimensions");
  add("layout_2d", [](RawTza& r) { r.entries[0] = {"w", {2, 4}, "oi", 'h', 64}; }, "has layout 'oi' for 2 dimensions");
  add("layout_o_for_1d", [](RawTza& r) { r.entries[1].layout[0] = 'o'; }, "has layout 'o' for 1 dimensions");
  add("duplicate_name", [](RawTza& r) { r.entries[1].name[0] = 'w'; },
      "duplicate tensor name 'w' (tensor #1)");
  // Truncations inside each field of the header and of the table.
  auto truncated = [&](std::string name, size_t cut, std::string expected, std::string last_name = "b") {
    RawTza raw = valid_raw();
    raw.entries[1].name = last_name;
    std::vector<std::byte> bytes = build(raw);
    bytes.resize(bytes.size() - cut);
    cases.push_back({std::move(name), std::move(bytes), std::move(expected)});
  };
  truncated("cut_in_last_offset", 3, "truncated in tensor #1 'b': the data offset needs 8 bytes");
  truncated("cut_before_last_dtype", 9, "truncated in tensor #1 'b': the dtype needs 1 bytes");
  truncated("cut_before_last_layout", 10, "truncated in tensor #1 'b': the layout needs 1 bytes");
  truncated("cut_in_last_dims", 12, "truncated in tensor #1 'b': dimension 0 needs 4 bytes");
  truncated("cut_before_last_ndims", 15, "truncated in tensor #1 'b': the number of dimensions needs 1 bytes");
  truncated("cut_in_last_name", 16, "truncated in tensor #1: the name needs 2 bytes", "bb");
  cases.push_back({"empty_file", {}, "the file is empty, not a TZA file"});
  {
    std::vector<std::byte> bytes = build(valid_raw());
    bytes.resize(7);
    cases.push_back({"cut_in_table_offset", bytes, "truncated header: the table offset needs 8 bytes"});
  }
  {
    RawTza raw = valid_raw();
    std::vector<std::byte> bytes = build(raw);
    bytes.resize(64 + raw.data_bytes + 2);
    cases.push_back({"cut_in_count", bytes, "truncated table: the tensor count needs 4 bytes"});
  }
  return cases;
}

void expect_invalid_file(std::span<const std::byte> bytes, const std::string& expected, const std::string& label) {
  try {
    parse_tza(bytes);
    ADD_FAILURE() << label << ": parsed without error, expected '" << expected << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidFile) << label << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos)
        << label << ": message '" << e.what() << "' lacks '" << expected << "'";
  }
}

std::vector<std::byte> file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

void expect_same_tensors(const TzaFile& a, const TzaFile& b) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const TzaTensor& x = a.tensors[i];
    const TzaTensor& y = b.tensors[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.layout, y.layout) << x.name;
    EXPECT_EQ(x.data.dtype(), y.data.dtype()) << x.name;
    EXPECT_EQ(x.data.shape(), y.data.shape()) << x.name;
    ASSERT_EQ(x.data.nbytes(), y.data.nbytes()) << x.name;
    EXPECT_EQ(std::memcmp(x.data.raw(), y.data.raw(), x.data.nbytes()), 0) << x.name << ": data differs";
  }
}

// ---- tests ----

TEST(Tza, ValidRawFileParses) {
  RawTza raw = valid_raw();
  std::vector<std::byte> bytes = build(raw);
  // Recognisable halves in the data: w = 0..7 at 64, b = {-1, 2} at 128.
  for (int i = 0; i < 8; ++i) {
    uint16_t h = float_to_half(float(i));
    std::memcpy(bytes.data() + 64 + 2 * i, &h, 2);
  }
  uint16_t b0 = float_to_half(-1.0f), b1 = float_to_half(2.0f);
  std::memcpy(bytes.data() + 128, &b0, 2);
  std::memcpy(bytes.data() + 130, &b1, 2);

  TzaFile file = parse_tza(bytes);
  ASSERT_EQ(file.tensors.size(), 2u);
  const TzaTensor& w = file.at("w");
  EXPECT_EQ(w.layout, "oihw");
  EXPECT_EQ(w.data.dtype(), DType::f16);
  EXPECT_EQ(w.data.shape(), (Shape{2, 1, 2, 2}));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(w.data.get(i), double(i));
  const TzaTensor* b = file.find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->layout, "x");
  EXPECT_EQ(b->data.get(0), -1.0);
  EXPECT_EQ(b->data.get(1), 2.0);
  EXPECT_EQ(file.find("c"), nullptr);
  EXPECT_THROW(file.at("c"), Error);
}

TEST(Tza, MinorVersionAndTrailingBytesAreIgnored) {
  RawTza raw = valid_raw();
  raw.minor = 77;
  std::vector<std::byte> bytes = build(raw);
  bytes.resize(bytes.size() + 5, std::byte{0xEE});
  EXPECT_EQ(parse_tza(bytes).tensors.size(), 2u);
}

TEST(Tza, F32TensorsParse) {
  RawTza raw = valid_raw();
  raw.entries[0].dtype = 'f';  // 8 floats = 32 bytes at 64, still before b at 128
  std::vector<std::byte> bytes = build(raw);
  float v = 3.25f;
  std::memcpy(bytes.data() + 64 + 4 * 5, &v, 4);
  TzaFile file = parse_tza(bytes);
  EXPECT_EQ(file.at("w").data.dtype(), DType::f32);
  EXPECT_EQ(file.at("w").data.get(5), 3.25);
}

TEST(Tza, EveryCorruptionGivesItsError) {
  for (const CorruptCase& c : corrupt_cases()) expect_invalid_file(c.bytes, c.expected, c.name);
}

// The committed corpus (tests/data/tza_corrupt, also the fuzzer's seeds) must still match the cases
// above. Regenerate with VOLVOX_WRITE_TZA_CORPUS=<dir> ./test_unit --gtest_filter=Tza.Corpus*.
TEST(Tza, CorpusFilesGiveTheirErrors) {
  std::filesystem::path dir = std::filesystem::path(VOLVOX_SOURCE_DIR) / "tests" / "data" / "tza_corrupt";
  if (const char* out = std::getenv("VOLVOX_WRITE_TZA_CORPUS")) {
    dir = out;
    std::filesystem::create_directories(dir);
    for (const CorruptCase& c : corrupt_cases()) {
      std::ofstream f(dir / (c.name + ".tza"), std::ios::binary | std::ios::trunc);
      f.write(reinterpret_cast<const char*>(c.bytes.data()), std::streamsize(c.bytes.size()));
    }
  }
  int checked = 0;
  for (const CorruptCase& c : corrupt_cases()) {
    std::filesystem::path path = dir / (c.name + ".tza");
    ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing from the corpus";
    EXPECT_LE(std::filesystem::file_size(path), 4096u) << path << ": corpus files stay tiny";
    try {
      read_tza(path);
      ADD_FAILURE() << path << " parsed without error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidFile) << e.what();
      std::string message = e.what();
      EXPECT_NE(message.find(c.expected), std::string::npos) << message << " lacks " << c.expected;
      EXPECT_EQ(message.rfind(path.string(), 0), 0u) << "read_tza prefixes the path: " << message;
    }
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

TEST(Tza, EveryTruncationOfAValidFileErrors) {
  TzaFile small = make_random_unet_weights(UNetVariant::small, 3, 1);
  small.tensors.resize(4);  // enc_conv0 and enc_conv1: a few KB, quick to sweep
  std::vector<std::byte> bytes = write_tza(small);
  ASSERT_NO_THROW(parse_tza(bytes));
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      parse_tza(std::span(bytes).first(n));
      ADD_FAILURE() << "a file cut to " << n << " of " << bytes.size() << " bytes parsed";
    } catch (const Error& e) {
      ASSERT_EQ(e.code(), ErrorCode::InvalidFile) << "cut at " << n << ": " << e.what();
    }
  }
}

TEST(Tza, EverySingleByteCorruptionOfTheTableIsSafe) {
  std::vector<std::byte> bytes = build(valid_raw());
  size_t table = 64 + valid_raw().data_bytes;
  int parsed = 0, rejected = 0;
  for (size_t at = 0; at < bytes.size(); ++at) {
    if (at >= 12 && at < table) continue;  // tensor data: any value is valid
    for (int value : {0x00, 0x01, 0x7F, 0x80, 0xFF}) {
      std::vector<std::byte> copy = bytes;
      copy[at] = std::byte(value);
      try {
        TzaFile f = parse_tza(copy);
        ++parsed;
        for (const TzaTensor& t : f.tensors) EXPECT_GT(t.data.numel(), 0);
      } catch (const Error& e) {
        ASSERT_EQ(e.code(), ErrorCode::InvalidFile) << "byte " << at << " = " << value << ": " << e.what();
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(parsed, 0);  // e.g. the minor version, or a changed name
}

TEST(Tza, RoundTripsEveryVariantAndChannelCount) {
  for (UNetVariant variant : {UNetVariant::small, UNetVariant::base, UNetVariant::large}) {
    for (int ic : {3, 6, 9}) {
      SCOPED_TRACE(testing::Message() << unet_variant_name(variant) << " ic " << ic);
      TzaFile original = make_random_unet_weights(variant, ic, 42 + uint64_t(ic));
      std::vector<std::byte> bytes = write_tza(original);
      // Layout of what we write: header, blocks 64-aligned from 64, table 64-aligned at the end.
      uint64_t table;
      std::memcpy(&table, bytes.data() + 4, 8);
      EXPECT_EQ(table % kTzaAlignment, 0u);
      TzaFile parsed = parse_tza(bytes);
      expect_same_tensors(original, parsed);
      EXPECT_EQ(write_tza(parsed), bytes) << "rewriting is byte-identical";
    }
  }
}

TEST(Tza, RoundTripsF32AndThroughAFile) {
  TzaFile original = make_random_unet_weights(UNetVariant::small, 6, 7, DType::f32);
  std::filesystem::path path = test::temp_dir() / "small.tza";
  write_tza_file(path, original);
  TzaFile parsed = read_tza(path);
  expect_same_tensors(original, parsed);
  EXPECT_EQ(parsed.at("enc_conv0.weight").data.dtype(), DType::f32);
}

TEST(Tza, WriterRejectsWhatCouldNotBeReadBack) {
  auto expect_rejected = [](TzaFile f, const std::string& expected) {
    try {
      write_tza(f);
      ADD_FAILURE() << "wrote without error, expected " << expected;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  Tensor b(DType::f16, Shape{3});
  expect_rejected(TzaFile{{{"", "x", b}}}, "empty name");
  expect_rejected(TzaFile{{{"b", "x", b}, {"b", "x", b}}}, "duplicate tensor name 'b'");
  expect_rejected(TzaFile{{{"b", "oihw", b}}}, "layout 'oihw' for shape [3]");
  expect_rejected(TzaFile{{{"b", "x", Tensor(DType::i32, Shape{3})}}}, "dtype i32");
  expect_rejected(TzaFile{{{"b", "x", Tensor()}}}, "has no data");
}

TEST(Tza, ReadErrorsNameTheFile) {
  try {
    read_tza("/nonexistent/volvox.tza");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Io);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/volvox.tza"), std::string::npos);
  }
  EXPECT_THROW(read_tza(test::temp_dir()), Error);  // a folder
}

TEST(Tza, EmptyWeightsFileSaysSoNamingIt) {
  const std::filesystem::path path = test::temp_dir() / "empty.tza";
  std::ofstream(path, std::ios::binary).close();
  VXDevice device = vxNewDevice("cpu", 1);
  VXFilter filter = vxNewFilter(device, "RT");
  vxSetFilterWeightsFile(filter, path.c_str());
  const char* message = nullptr;
  EXPECT_EQ(vxGetDeviceError(device, &message), VX_ERROR_INVALID_FILE);
  const std::string text = message ? message : "";
  EXPECT_NE(text.find(cat("weights file ", path, " is empty, not a TZA file")), std::string::npos) << text;
  vxReleaseFilter(filter);
  vxReleaseDevice(device);
}

// The real OIDN files: the table as OIDN wrote it, and our writer reproduces them byte for byte.
TEST(Tza, RealWeightFiles) {
  VX_REQUIRE_SHARED(shared);
  struct Expect {
    const char* file;
    int input_channels;
    uint64_t table_offset;
  };
  for (Expect e : {Expect{"rt_ldr.tza", 3, 1829504}, Expect{"rt_ldr_alb_nrm.tza", 9, 1839872},
                   Expect{"rt_hdr_alb_nrm.tza", 9, 0}}) {
    SCOPED_TRACE(e.file);
    std::filesystem::path path = shared / "weights" / e.file;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
    std::vector<std::byte> bytes = file_bytes(path);
    TzaFile file = read_tza(path);
    ASSERT_EQ(file.tensors.size(), 32u);
    EXPECT_EQ(file.tensors.front().name, "enc_conv0.weight");
    EXPECT_EQ(file.tensors.back().name, "dec_conv0.bias");
    for (const TzaTensor& t : file.tensors) {
      EXPECT_EQ(t.data.dtype(), DType::f16) << t.name;
      EXPECT_EQ(t.layout, t.data.rank() == 4 ? "oihw" : "x") << t.name;
    }
    EXPECT_EQ(file.at("enc_conv0.weight").data.shape(), (Shape{32, e.input_channels, 3, 3}));
    EXPECT_EQ(file.at("dec_conv1a.weight").data.shape(), (Shape{64, 64 + e.input_channels, 3, 3}));
    EXPECT_EQ(file.at("dec_conv0.bias").data.shape(), (Shape{3}));
    uint64_t table;
    std::memcpy(&table, bytes.data() + 4, 8);
    if (e.table_offset) {
      EXPECT_EQ(table, e.table_offset);
    }
    // Trained weights are small and finite.
    for (const TzaTensor& t : file.tensors)
      for (int64_t i = 0; i < t.data.numel(); ++i) ASSERT_LT(std::abs(t.data.get(i)), 100.0) << t.name << "[" << i << "]";
    EXPECT_EQ(write_tza(file), bytes) << "our writer reproduces OIDN's file byte for byte";
  }
}

}  // namespace
}  // namespace vx
