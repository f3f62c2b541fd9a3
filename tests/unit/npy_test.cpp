#include <cmath>
#include <cstring>
#include <fstream>

#include "common/test_util.h"
#include "core/half.h"
#include "formats/npy.h"

namespace vx {
namespace {

// A .npy file from a header dict and raw data bytes (version 1 or 2 framing).
std::string make_npy(const std::string& dict, const std::string& data, int version = 1) {
  std::string header = dict;
  size_t prefix = version == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(version);
  out += char(0);
  if (version == 1) {
    uint16_t n = uint16_t(header.size());
    out.append(reinterpret_cast<const char*>(&n), 2);
  } else {
    uint32_t n = uint32_t(header.size());
    out.append(reinterpret_cast<const char*>(&n), 4);
  }
  return out + header + data;
}

template <class T>
std::string bytes_of(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return s;
}

void expect_error(const std::string& file, ErrorCode code, const std::string& fragment) {
  try {
    parse_npy(file.data(), file.size());
    ADD_FAILURE() << "expected an error mentioning '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Npy, RoundTripsEveryDtypeAndRank) {
  for (DType dtype : {DType::f32, DType::f16, DType::i8, DType::u8, DType::i32, DType::i64, DType::boolean}) {
    for (Shape shape : {Shape{}, Shape{5}, Shape{2, 3, 4}, Shape{0, 3}}) {
      Tensor t = test::random_tensor(shape, 7, -100.0f, 100.0f, dtype);
      std::filesystem::path file = test::temp_dir() / "t.npy";
      write_npy(file, t);
      Tensor back = read_npy(file);
      ASSERT_EQ(back.dtype(), dtype) << dtype_name(dtype);
      ASSERT_EQ(back.shape(), shape) << shape.str();
      if (t.nbytes() > 0) {  // empty tensors have no buffer
        ASSERT_EQ(std::memcmp(back.raw(), t.raw(), t.nbytes()), 0) << dtype_name(dtype) << " " << shape.str();
      }
    }
  }
}

TEST(Npy, WritesAlignedVersion1Header) {
  std::string bytes = encode_npy(Tensor::from<float>({2}, {1.5f, -2.0f}));
  ASSERT_EQ(bytes.size() % 64, 8u);  // 64-byte header, then 8 bytes of data
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"), std::string::npos);
  EXPECT_EQ(bytes[bytes.size() - 9], '\n');  // the header ends in a newline
}

TEST(Npy, ReadsVersion2AndConvertsWideTypes) {
  std::string f8 = make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                            bytes_of<double>({0.1, -2.5, 1e10}), 2);
  Tensor d = parse_npy(f8.data(), f8.size());
  ASSERT_EQ(d.dtype(), DType::f32);  // float64 is narrowed to float32
  EXPECT_EQ(d.data<float>()[0], 0.1f);
  EXPECT_EQ(d.data<float>()[1], -2.5f);
  EXPECT_EQ(d.data<float>()[2], 1e10f);

  std::string i16 = make_npy("{'shape': (2, 1), 'fortran_order': False, 'descr': '<i2'}", bytes_of<int16_t>({-7, 300}));
  Tensor s = parse_npy(i16.data(), i16.size());
  ASSERT_EQ(s.dtype(), DType::i32);
  EXPECT_EQ(s.shape(), Shape({2, 1}));
  EXPECT_EQ(s.data<int32_t>()[0], -7);
  EXPECT_EQ(s.data<int32_t>()[1], 300);

  std::string b = make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", std::string("\x01\x00\x02", 3));
  Tensor bt = parse_npy(b.data(), b.size());
  ASSERT_EQ(bt.dtype(), DType::boolean);
  EXPECT_EQ(bt.get(0), 1.0);
  EXPECT_EQ(bt.get(1), 0.0);
  EXPECT_EQ(bt.get(2), 1.0);  // any non-zero byte is true

  std::string h = make_npy("{'descr': '<f2', 'fortran_order': False, 'shape': (), }", bytes_of<uint16_t>({0x3C00}));
  Tensor ht = parse_npy(h.data(), h.size());
  ASSERT_EQ(ht.dtype(), DType::f16);
  EXPECT_EQ(ht.rank(), 0u);
  EXPECT_EQ(ht.get(0), 1.0);
}

TEST(Npy, RejectsCorruptFiles) {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  const std::string data = bytes_of<float>({1, 2, 3, 4});
  expect_error("not numpy at all", ErrorCode::InvalidFile, "bad magic");
  expect_error(std::string("\x93NUMPY\x01", 7), ErrorCode::InvalidFile, "bad magic");
  expect_error(make_npy(ok_dict, data.substr(0, 12)), ErrorCode::InvalidFile, "truncated");
  std::string long_header = make_npy(ok_dict, data);
  long_header[8] = char(0xFF), long_header[9] = char(0x7F);
  expect_error(long_header, ErrorCode::InvalidFile, "runs past the end");
  expect_error(make_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", data), ErrorCode::Unsupported,
               "Fortran");
  expect_error(make_npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", data), ErrorCode::Unsupported,
               "'>f4'");
  expect_error(make_npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 2), }", data), ErrorCode::Unsupported,
               "'<c8'");
  expect_error(make_npy("{'descr': '<f4', 'shape': (2, 2), }", data), ErrorCode::InvalidFile, "lacks");
  expect_error(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", data), ErrorCode::InvalidFile,
               "expected an extent");
  expect_error(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2", data), ErrorCode::InvalidFile,
               "npy header");
  expect_error(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", data),
               ErrorCode::InvalidFile, "too many elements");
  expect_error(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 100), }", data),
               ErrorCode::InvalidFile, "truncated");
  std::string v9 = make_npy(ok_dict, data);
  v9[6] = 9;
  expect_error(v9, ErrorCode::Unsupported, "version 9");
}

// Element counts whose byte size overflows 64 bits must be refused by the limit, with a message
// saying so, not as "truncated: needs 0 bytes" (2**62 * 4 wraps to 0).
TEST(Npy, HugeShapesAreRefusedByTheLimitBeforeAllocating) {
  const std::string data = bytes_of<float>({1, 2, 3, 4});
  const std::string limit = "more than the limit of " + std::to_string(kMaxNpyBytes) + " bytes";
  for (const char* dict : {"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,), }",
                           "{'descr': '|u1', 'fortran_order': False, 'shape': (4611686018427387904,), }",
                           "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952, 8), }",
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (536870913,), }"}) {
    SCOPED_TRACE(dict);
    const std::string file = make_npy(dict, data);
    expect_error(file, ErrorCode::InvalidFile, "too many elements");
    expect_error(file, ErrorCode::InvalidFile, limit);
  }
  // At the limit: allowed, so the short file is reported as truncated, with the right byte count.
  expect_error(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (536870912,), }", data),
               ErrorCode::InvalidFile, "needs 2147483648 bytes, the file has 16");
  // f8 is decoded to f32: the limit counts decoded bytes.
  expect_error(make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (536870912,), }", data),
               ErrorCode::InvalidFile, "needs 4294967296 bytes");
}

TEST(Npy, ReadErrorsNameTheFile) {
  const std::filesystem::path dir = test::temp_dir() / "folder.npy";
  std::filesystem::create_directory(dir);
  try {
    read_npy(dir);
    ADD_FAILURE() << "a directory was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Io) << e.what();
    EXPECT_NE(std::string(e.what()).find(cat("npy file ", dir, " is a directory")), std::string::npos) << e.what();
  }
  const std::filesystem::path bad = test::temp_dir() / "bad.npy";
  std::ofstream(bad, std::ios::binary) << "not numpy";
  try {
    read_npy(bad);
    ADD_FAILURE() << "a corrupt file was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidFile) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(cat("npy file ", bad, ": not a .npy file"), 0), 0u) << e.what();
  }
}

TEST(Npy, MissingFileIsAnIoError) {
  try {
    read_npy(test::temp_dir() / "absent.npy");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Io);
  }
}

}  // namespace
}  // namespace vx
