#include "robustness/malformed.h"

#include <sys/stat.h>
#include <unistd.h>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <random>

#include "core/error.h"
#include "core/tensor.h"
#include "formats/npy.h"
#include "formats/tza.h"

// GCC 12 flags protobuf's inlined string setters with a false -Wrestrict (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

namespace vx::robust {
namespace {

Bytes to_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
Bytes to_bytes(const std::vector<std::byte>& b) {
  Bytes out(b.size());
  if (!b.empty()) std::memcpy(out.data(), b.data(), b.size());
  return out;
}

template <class T>
void put_le(Bytes& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(uint8_t(uint64_t(v) >> (8 * i)));
}
template <class T>
void set_le(Bytes& out, size_t at, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.at(at + i) = uint8_t(uint64_t(v) >> (8 * i));
}
void set_be32(Bytes& out, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.at(at + i) = uint8_t(v >> (24 - 8 * i));
}

// A seed per case name, so that adding a seed does not change the other seeds' cases.
uint64_t hash_of(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ uint8_t(c)) * 1099511628211ull;
  return h;
}

const char* format_ext(ImageFormat f) {
  switch (f) {
    case ImageFormat::Pfm: return "pfm";
    case ImageFormat::Png: return "png";
    case ImageFormat::RadianceHdr: return "hdr";
    case ImageFormat::Exr: return "exr";
  }
  return "?";
}

// ---- PNG chunk CRC (ISO 3309), so that header edits get past libpng's CRC check ----
uint32_t crc32(const uint8_t* p, size_t n) {
  static const auto table = [] {
    std::vector<uint32_t> t(256);
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

// The IHDR chunk of an encoded PNG: data at 16 (width 4, height 4, depth, colour type, compression,
// filter, interlace), its CRC at 29 over bytes 12..28.
void fix_ihdr_crc(Bytes& png) { set_be32(png, 29, crc32(png.data() + 12, 17)); }

// Position of an OpenEXR header attribute's value (after name, type and the 4-byte size), or npos.
size_t exr_attribute(const Bytes& exr, const std::string& name, const std::string& type) {
  std::string key = name;
  key += '\0';
  key += type;
  key += '\0';
  auto it = std::search(exr.begin(), exr.end(), key.begin(), key.end());
  if (it == exr.end()) return std::string::npos;
  return size_t(it - exr.begin()) + key.size() + 4;
}

}  // namespace

void write_bytes(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  VX_CHECK(out.good(), Io, "cannot write ", path.string());
}

Image smooth_image(int width, int height, int channels, uint32_t seed) {
  Image img(width, height, channels);
  std::mt19937 rng(seed);
  for (float& v : img.pixels) v = 0.05f + 0.9f * float(rng() % 1000) / 1000.0f;
  return img;
}

Image nonfinite_image(int width, int height, int channels) {
  Image img = smooth_image(width, height, channels, 2);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), -0.0f, 1e-40f, 3.4e38f, -3.4e38f, -1.0f};
  for (size_t i = 0; i < img.pixels.size(); i += 2) img.pixels[i] = specials[(i / 2) % std::size(specials)];
  return img;
}

std::vector<Case> image_seeds(ImageFormat format) {
  const std::pair<int, int> sizes[] = {{1, 1}, {1, 5}, {5, 1}, {17, 3}, {4, 4}};
  std::vector<int> channel_counts;
  switch (format) {
    case ImageFormat::Pfm: channel_counts = {1, 3, 4}; break;
    case ImageFormat::Png: channel_counts = {1, 2, 3, 4}; break;
    case ImageFormat::RadianceHdr: channel_counts = {3}; break;
    case ImageFormat::Exr: channel_counts = {1, 3, 4}; break;
  }
  std::vector<Case> out;
  for (auto [w, h] : sizes)
    for (int c : channel_counts) {
      const Image img = smooth_image(w, h, c, uint32_t(w * 100 + h * 10 + c));
      const std::string base = std::string(format_ext(format)) + "_" + std::to_string(w) + "x" + std::to_string(h) +
                               "x" + std::to_string(c);
      if (format == ImageFormat::Png) {
        out.push_back({base + "_8bit", encode_image(img, format, {.png_bits = 8})});
        out.push_back({base + "_16bit", encode_image(img, format, {.png_bits = 16})});
      } else if (format == ImageFormat::Exr) {
        out.push_back({base + "_half", encode_image(img, format, {.exr_half = true})});
        if (c == 3) out.push_back({base + "_float", encode_image(img, format, {.exr_half = false})});
      } else {
        out.push_back({base, encode_image(img, format)});
      }
    }
  if (format == ImageFormat::Pfm || format == ImageFormat::Exr) {
    for (int c : {1, 3})
      out.push_back({std::string(format_ext(format)) + "_nonfinite_5x3x" + std::to_string(c),
                     encode_image(nonfinite_image(5, 3, c), format, {.exr_half = false})});
  }
  return out;
}

std::vector<Case> generic_mutations(const Case& seed) {
  std::vector<Case> out;
  const Bytes& b = seed.bytes;
  const size_t n = b.size();
  std::mt19937_64 rng(hash_of(seed.name));
  auto pos = [&](bool header) { return size_t(rng() % std::max<size_t>(1, header ? std::min<size_t>(n, 64) : n)); };
  auto add = [&](std::string what, Bytes bytes) { out.push_back({seed.name + "/" + what, std::move(bytes)}); };

  for (size_t cut = 0; cut < std::min<size_t>(n, 24); ++cut) add("trunc@" + std::to_string(cut), Bytes(b.begin(), b.begin() + cut));
  for (size_t cut : {n / 2, n - std::min<size_t>(n, 1)})
    if (cut >= 24) add("trunc@" + std::to_string(cut), Bytes(b.begin(), b.begin() + cut));
  if (n == 0) return out;
  for (int i = 0; i < 12; ++i) {
    Bytes m = b;
    const size_t at = pos(i % 2 == 0);
    const int bit = int(rng() % 8);
    m[at] ^= uint8_t(1u << bit);
    add("flip@" + std::to_string(at) + "." + std::to_string(bit), std::move(m));
  }
  for (uint8_t value : {0x00, 0xFF, 0x7F, 0x80}) {
    Bytes m = b;
    const size_t at = pos(true);
    m[at] = value;
    add("set@" + std::to_string(at) + "=" + std::to_string(value), std::move(m));
  }
  for (size_t len : {size_t(1), size_t(4), size_t(64)}) {
    Bytes m = b;
    const size_t at = pos(len < 64);
    Bytes ins(len);
    for (uint8_t& v : ins) v = uint8_t(rng());
    m.insert(m.begin() + std::ptrdiff_t(at), ins.begin(), ins.end());
    add("insert" + std::to_string(len) + "@" + std::to_string(at), std::move(m));
  }
  {
    Bytes m = b;
    for (int i = 0; i < 1024; ++i) m.push_back(uint8_t(rng()));
    add("append1k", std::move(m));
  }
  {
    Bytes m = b;
    m.insert(m.end(), b.begin(), b.end());
    add("twice", std::move(m));
  }
  {  // a run of 16 bytes from the middle removed
    Bytes m = b;
    const size_t at = n / 2;
    m.erase(m.begin() + std::ptrdiff_t(at), m.begin() + std::ptrdiff_t(std::min(n, at + 16)));
    add("cut16@" + std::to_string(at), std::move(m));
  }
  return out;
}

// ---- PFM ----
std::vector<Case> pfm_header_cases() {
  std::vector<Case> out;
  const Image img = smooth_image(3, 2, 3);
  std::string data(reinterpret_cast<const char*>(img.pixels.data()), img.pixels.size() * 4);
  auto pfm = [&](const std::string& magic, const std::string& w, const std::string& h, const std::string& scale,
                 const std::string& payload) { return to_bytes(magic + "\n" + w + " " + h + "\n" + scale + "\n" + payload); };
  const char* extents[] = {"0", "-1", "-3", "2147483647", "2147483648", "-2147483648", "4294967299", "65536",
                           "65537", "99999999999999999999", "1e3", "0x3", "+3", "3.5", "nan", "abc", ""};
  for (const char* e : extents) {
    out.push_back({std::string("pfm_header/width=") + e, pfm("PF", e, "2", "-1.0", data)});
    out.push_back({std::string("pfm_header/height=") + e, pfm("PF", "3", e, "-1.0", data)});
  }
  for (auto [w, h] : {std::pair{"65536", "65536"}, {"16384", "16384"}, {"46341", "46341"}, {"1", "268435456"},
                      {"268435456", "1"}, {"65536", "4097"}})
    for (const char* magic : {"PF", "Pf", "PF4"})
      out.push_back({std::string("pfm_header/bomb_") + magic + "_" + w + "x" + h, pfm(magic, w, h, "-1.0", data)});
  for (const char* scale : {"0", "-0", "0.0", "nan", "-nan", "inf", "-inf", "1e39", "-1e39", "abc", "", "1,0", "-1e-45"})
    out.push_back({std::string("pfm_header/scale=") + scale, pfm("PF", "3", "2", scale, data)});
  for (const char* magic : {"PF3", "pf", "P6", "PF4 ", "", "Pf\0"})
    out.push_back({std::string("pfm_header/magic=") + magic, pfm(magic, "3", "2", "-1.0", data)});
  out.push_back({"pfm_header/big_endian_scale", pfm("PF", "3", "2", "1.0", data)});
  out.push_back({"pfm_header/no_data", pfm("PF", "3", "2", "-1.0", "")});
  out.push_back({"pfm_header/one_float_short", pfm("PF", "3", "2", "-1.0", data.substr(0, data.size() - 4))});
  out.push_back({"pfm_header/grey_data_for_rgb", pfm("PF", "3", "2", "-1.0", data.substr(0, 3 * 2 * 4))});
  out.push_back({"pfm_header/no_newlines", to_bytes("PF 3 2 -1.0 " + data)});
  out.push_back({"pfm_header/only_magic", to_bytes("PF")});
  out.push_back({"pfm_header/long_header", to_bytes("PF\n" + std::string(100000, ' ') + "3 2\n-1.0\n" + data)});
  return out;
}

// ---- PNG ----
std::vector<Case> png_header_cases() {
  std::vector<Case> out;
  const Bytes base = encode_image(smooth_image(17, 3, 3), ImageFormat::Png, {.png_bits = 8});
  const uint32_t extents[] = {0, 1, 2, 16, 18, 16384, 65535, 65536, 65537, 1u << 20, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF};
  for (uint32_t e : extents)
    for (int field : {0, 1, 2}) {
      Bytes m = base;
      if (field != 1) set_be32(m, 16, e);
      if (field != 0) set_be32(m, 20, e);
      fix_ihdr_crc(m);
      out.push_back({std::string("png_ihdr/") + (field == 0 ? "width" : field == 1 ? "height" : "both") + "=" +
                         std::to_string(e),
                     std::move(m)});
    }
  // bit depth (24), colour type (25), compression (26), filter (27), interlace (28)
  const std::pair<int, std::vector<int>> fields[] = {{24, {0, 1, 3, 7, 9, 32, 255}},
                                                     {25, {1, 3, 5, 7, 255}},
                                                     {26, {1, 255}},
                                                     {27, {1, 255}},
                                                     {28, {1, 2, 255}}};
  for (const auto& [at, values] : fields)
    for (int v : values) {
      Bytes m = base;
      m[size_t(at)] = uint8_t(v);
      fix_ihdr_crc(m);
      out.push_back({"png_ihdr/byte" + std::to_string(at) + "=" + std::to_string(v), std::move(m)});
    }
  {  // the IHDR's own length field huge / zero (its CRC stays right: the length is not covered)
    for (uint32_t len : {0u, 12u, 14u, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
      Bytes m = base;
      set_be32(m, 8, len);
      out.push_back({"png_ihdr/length=" + std::to_string(len), std::move(m)});
    }
  }
  {  // the chunk after IHDR (IDAT or another) with a huge length
    for (uint32_t len : {0u, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
      Bytes m = base;
      set_be32(m, 33, len);
      out.push_back({"png_chunk2/length=" + std::to_string(len), std::move(m)});
    }
  }
  {  // a wrong IHDR CRC
    Bytes m = base;
    m[29] ^= 1;
    out.push_back({"png_ihdr/bad_crc", std::move(m)});
  }
  out.push_back({"png/signature_only", Bytes(base.begin(), base.begin() + 8)});
  return out;
}

// ---- Radiance HDR ----
std::vector<Case> hdr_header_cases() {
  std::vector<Case> out;
  const Bytes valid = encode_image(smooth_image(3, 2, 3), ImageFormat::RadianceHdr);
  // The pixel data follows the resolution line: everything after the header's 4th newline.
  size_t data_at = 0;
  for (int nl = 0; nl < 4; ++nl) data_at = size_t(std::find(valid.begin() + std::ptrdiff_t(data_at), valid.end(), '\n') - valid.begin()) + 1;
  const std::string data(valid.begin() + std::ptrdiff_t(data_at), valid.end());
  auto hdr = [&](const std::string& head, const std::string& res, const std::string& payload) {
    return to_bytes(head + "\n" + res + "\n" + payload);
  };
  const std::string head = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n";
  const char* resolutions[] = {"-Y 0 +X 3", "-Y -2 +X 3", "-Y 2 +X 0", "-Y 2 +X -3", "-Y 2147483647 +X 2147483647",
                               "-Y 2147483648 +X 3", "-Y 65537 +X 1", "-Y 1 +X 65537", "-Y 16384 +X 16384",
                               "-Y 2 +X 99999999999999999999", "+Y 2 +X 3", "-Y 2 -X 3", "+X 3 -Y 2", "-Y 2 +X",
                               "", "-Y 2  +X 3", "-Y 2 +X 3 extra", "-Y 0x2 +X 3", "-Y 2.5 +X 3", "-Y 20 +X 3",
                               "-Y 1 +X 30000"};
  for (const char* r : resolutions) out.push_back({std::string("hdr_header/res=") + r, hdr(head, r, data)});
  out.push_back({"hdr_header/format_xyz", hdr("#?RADIANCE\nFORMAT=32-bit_rle_xyze\n", "-Y 2 +X 3", data)});
  out.push_back({"hdr_header/no_blank_line", to_bytes("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n-Y 2 +X 3\n" + data)});
  out.push_back({"hdr_header/no_magic", hdr("FORMAT=32-bit_rle_rgbe\n", "-Y 2 +X 3", data)});
  out.push_back({"hdr_header/endless_header", to_bytes("#?RADIANCE\n" + std::string(200000, 'A'))});
  out.push_back({"hdr_header/exposure_nan", hdr("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=nan\n", "-Y 2 +X 3", data)});
  // RLE scanlines (width 8..32767): a run longer than the line, a zero-length run, a wrong line width.
  for (auto [name, line] : std::initializer_list<std::pair<const char*, std::string>>{
           {"rle_run_too_long", std::string("\x02\x02\x00\x10", 4) + std::string("\xFF\x01", 2) + std::string(64, '\x7F')},
           {"rle_zero_run", std::string("\x02\x02\x00\x10", 4) + std::string("\x80\x01", 2) + std::string(64, '\x00')},
           {"rle_literal_past_end", std::string("\x02\x02\x00\x10", 4) + std::string("\x7F", 1) + std::string(8, '\x01')},
           {"rle_width_mismatch", std::string("\x02\x02\x00\x11", 4) + std::string(200, '\x01')},
           {"rle_width_zero", std::string("\x02\x02\x00\x00", 4) + std::string(200, '\x01')}}) {
    out.push_back({std::string("hdr_rle/") + name, hdr(head, "-Y 2 +X 16", line + line)});
  }
  return out;
}

// ---- OpenEXR ----
std::vector<Case> exr_header_cases() {
  std::vector<Case> out;
  for (bool half : {true, false}) {
    const Bytes base = encode_image(smooth_image(5, 3, 3), ImageFormat::Exr, {.exr_half = half});
    const std::string tag = half ? "half" : "float";
    const int32_t M = std::numeric_limits<int32_t>::max(), m = std::numeric_limits<int32_t>::min();
    const std::array<int32_t, 4> boxes[] = {{0, 0, -1, -1},   {0, 0, M, M},          {m, m, M, M},       {0, 0, 65536, 0},
                                            {5, 5, 0, 0},     {0, 0, 16383, 16383},  {-10, -10, 2, 2},   {0, 0, 4, 65535},
                                            {0, 0, 65535, 2}, {m, 0, m + 4, 2},      {M - 4, 0, M, 2},   {0, 0, 1 << 20, 1 << 20}};
    for (const char* window : {"dataWindow", "displayWindow"}) {
      const size_t at = exr_attribute(base, window, "box2i");
      if (at == std::string::npos) continue;
      for (const auto& box : boxes) {
        Bytes mm = base;
        for (int i = 0; i < 4; ++i) set_le<int32_t>(mm, at + size_t(4 * i), box[size_t(i)]);
        out.push_back({"exr_" + tag + "/" + window + "=" + std::to_string(box[0]) + "," + std::to_string(box[1]) + "," +
                           std::to_string(box[2]) + "," + std::to_string(box[3]),
                       std::move(mm)});
      }
    }
    if (size_t at = exr_attribute(base, "channels", "chlist"); at != std::string::npos) {
      // The first channel entry: name\0, int32 pixel type, u8 pLinear, 3 reserved, int32 xSampling, ySampling.
      const size_t entry = size_t(std::find(base.begin() + std::ptrdiff_t(at), base.end(), 0) - base.begin()) + 1;
      for (int32_t type : {-1, 3, 1000}) {
        Bytes mm = base;
        set_le<int32_t>(mm, entry, type);
        out.push_back({"exr_" + tag + "/channel_type=" + std::to_string(type), std::move(mm)});
      }
      for (int32_t s : {0, -1, 2, 3, 65536, M}) {
        Bytes mm = base;
        set_le<int32_t>(mm, entry + 8, s);
        set_le<int32_t>(mm, entry + 12, s);
        out.push_back({"exr_" + tag + "/sampling=" + std::to_string(s), std::move(mm)});
      }
      Bytes mm = base;
      set_le<int32_t>(mm, at - 4, M);  // the chlist's own size
      out.push_back({"exr_" + tag + "/chlist_size=max", std::move(mm)});
    }
    if (size_t at = exr_attribute(base, "compression", "compression"); at != std::string::npos)
      for (int v : {9, 10, 255}) {
        Bytes mm = base;
        mm[at] = uint8_t(v);
        out.push_back({"exr_" + tag + "/compression=" + std::to_string(v), std::move(mm)});
      }
    if (size_t at = exr_attribute(base, "lineOrder", "lineOrder"); at != std::string::npos) {
      Bytes mm = base;
      mm[at] = 200;
      out.push_back({"exr_" + tag + "/lineOrder=200", std::move(mm)});
    }
    {  // version field: tiled / multi-part / long-names flags set on a scanline file
      for (uint32_t flags : {0x200u, 0x1000u, 0x800u, 0x400u, 0xFFFFFF00u}) {
        Bytes mm = base;
        set_le<uint32_t>(mm, 4, 2u | flags);
        out.push_back({"exr_" + tag + "/version_flags=" + std::to_string(flags), std::move(mm)});
      }
    }
    {  // the line offset table: it follows the header's terminating null byte
      const size_t end = exr_attribute(base, "screenWindowWidth", "float");
      if (end != std::string::npos) {
        const size_t table = end + 4 + 1;
        if (table + 8 <= base.size())
          for (uint64_t off : {uint64_t(0), uint64_t(8), uint64_t(base.size()), uint64_t(base.size() - 1), uint64_t(1) << 62,
                               ~uint64_t(0)}) {
            Bytes mm = base;
            set_le<uint64_t>(mm, table, off);
            out.push_back({"exr_" + tag + "/line_offset0=" + std::to_string(off), std::move(mm)});
          }
      }
    }
  }
  return out;
}

// ---- .npy ----
namespace {
Bytes npy_file(const std::string& dict, const std::string& data, int version = 1, bool pad = true) {
  std::string header = dict;
  const size_t prefix = version == 1 ? 10 : 12;
  if (pad) header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  Bytes out = to_bytes(std::string("\x93NUMPY", 6));
  out.push_back(uint8_t(version));
  out.push_back(0);
  if (version == 1) put_le<uint16_t>(out, uint16_t(header.size()));
  else put_le<uint32_t>(out, uint32_t(header.size()));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}
std::string npy_dict(const std::string& descr, const std::string& shape, const std::string& order = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
}
}  // namespace

std::vector<Case> npy_seeds() {
  std::vector<Case> out;
  const DType dtypes[] = {DType::f32, DType::f16, DType::i8, DType::u8, DType::i32, DType::i64, DType::boolean};
  const Shape shapes[] = {Shape{}, Shape{5}, Shape{2, 3}, Shape{1, 3, 2, 2}, Shape{0, 3}};
  for (DType dt : dtypes)
    for (const Shape& s : shapes) {
      Tensor t(DType::f32, s);
      for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = float(i % 7) - 3.0f;
      out.push_back({"npy_" + std::string(dtype_name(dt)) + "_" + s.str(), to_bytes(encode_npy(t.to(dt)))});
    }
  // Versions 2 and 3 and the dtypes we only read (f64, 16-bit and unsigned 32/64-bit integers).
  std::string f4(24, '\0');
  for (int i = 0; i < 6; ++i) {
    const float v = float(i) * 0.5f;
    std::memcpy(f4.data() + 4 * i, &v, 4);
  }
  out.push_back({"npy_v2_f4", npy_file(npy_dict("<f4", "(2, 3)"), f4, 2)});
  out.push_back({"npy_v3_f4", npy_file(npy_dict("<f4", "(2, 3)"), f4, 3)});
  out.push_back({"npy_f8", npy_file(npy_dict("<f8", "(3,)"), std::string(24, '\x3F'))});
  out.push_back({"npy_i2", npy_file(npy_dict("<i2", "(3,)"), std::string(6, '\x01'))});
  out.push_back({"npy_u2", npy_file(npy_dict("<u2", "(3,)"), std::string(6, '\xFF'))});
  out.push_back({"npy_u4", npy_file(npy_dict("<u4", "(3,)"), std::string(12, '\xFF'))});
  out.push_back({"npy_u8", npy_file(npy_dict("<u8", "(3,)"), std::string(24, '\xFF'))});
  return out;
}

std::vector<Case> npy_header_cases() {
  std::vector<Case> out;
  const std::string data(24, '\x01');  // six float32 values
  const char* shapes[] = {"()", "(0,)", "(6,)", "(4294967296, 4294967296)", "(9223372036854775807,)",
                          "(9223372036854775808,)", "(99999999999999999999,)", "(-1,)", "(3, -2)", "(2.5,)",
                          "(0, 9223372036854775807)", "(3037000500, 3037000500)", "(65536, 65536, 65536)",
                          "(2, 3", "2, 3)", "[2, 3]", "(,)", "(2,,3)", "(6L,)", "( 6 , )", "(7,)", "(1073741824,)",
                          "(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6)"};
  for (const char* s : shapes) out.push_back({std::string("npy_header/shape=") + s, npy_file(npy_dict("<f4", s), data)});
  const char* descrs[] = {"<f4", "<f16", "<f3", "<f0", "<c8", "|O", "<U3", "<V8", ">f4", ">i8", "<b1", "|f4",
                          "<f9", "", "f4", "<f44", "<M8", "|S1", "<i1", "|i16"};
  for (const char* d : descrs) out.push_back({std::string("npy_header/descr=") + d, npy_file(npy_dict(d, "(6,)"), data)});
  out.push_back({"npy_header/fortran_true", npy_file(npy_dict("<f4", "(2, 3)", "True"), data)});
  out.push_back({"npy_header/fortran_bogus", npy_file(npy_dict("<f4", "(2, 3)", "Maybe"), data)});
  out.push_back({"npy_header/no_shape", npy_file("{'descr': '<f4', 'fortran_order': False}", data)});
  out.push_back({"npy_header/extra_key", npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", data)});
  out.push_back({"npy_header/duplicate_shape",
                 npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'shape': (99999999999,)}", data)});
  out.push_back({"npy_header/unterminated_string", npy_file("{'descr: '<f4', 'fortran_order': False, 'shape': (6,)}", data)});
  out.push_back({"npy_header/not_a_dict", npy_file("hello", data)});
  out.push_back({"npy_header/empty_dict", npy_file("{}", data)});
  out.push_back({"npy_header/unpadded", npy_file(npy_dict("<f4", "(6,)"), data, 1, false)});
  out.push_back({"npy_header/data_short", npy_file(npy_dict("<f4", "(6,)"), data.substr(0, 23))});
  out.push_back({"npy_header/data_long", npy_file(npy_dict("<f4", "(6,)"), data + data)});
  for (int version : {0, 4, 255}) {
    Bytes m = npy_file(npy_dict("<f4", "(6,)"), data);
    m[6] = uint8_t(version);
    out.push_back({"npy_header/version=" + std::to_string(version), std::move(m)});
  }
  for (uint32_t len : {0u, 1u, 0xFFFFu}) {
    Bytes m = npy_file(npy_dict("<f4", "(6,)"), data);
    set_le<uint16_t>(m, 8, uint16_t(len));
    out.push_back({"npy_header/v1_len=" + std::to_string(len), std::move(m)});
  }
  for (uint32_t len : {0u, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
    Bytes m = npy_file(npy_dict("<f4", "(6,)"), data, 2);
    set_le<uint32_t>(m, 8, len);
    out.push_back({"npy_header/v2_len=" + std::to_string(len), std::move(m)});
  }
  out.push_back({"npy_header/v3_utf8", npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), '\xC3\xA9': 1}", data, 3)});
  out.push_back({"npy_header/magic_only", to_bytes(std::string("\x93NUMPY", 6))});
  return out;
}

// ---- TZA, written field by field ----
namespace {
struct RawTzaTensor {
  uint16_t name_len;
  std::string name;
  uint8_t ndims;
  std::vector<uint32_t> dims;
  std::string layout;
  char dtype;
  uint64_t offset;  // kAuto: where the writer put the data
  size_t data_bytes;
};
constexpr uint64_t kAuto = ~uint64_t(0) - 1;

Bytes raw_tza(std::vector<RawTzaTensor> tensors, std::optional<uint64_t> table_offset = {},
              std::optional<uint32_t> count = {}, uint16_t magic = kTzaMagic, uint8_t major = kTzaMajorVersion) {
  Bytes out(64, 0);
  std::vector<uint64_t> offsets;
  for (const RawTzaTensor& t : tensors) {
    offsets.push_back(out.size());
    for (size_t i = 0; i < t.data_bytes; ++i) out.push_back(uint8_t(0x3C + i % 3));
    out.resize((out.size() + 63) / 64 * 64, 0);
  }
  const uint64_t table = out.size();
  put_le<uint32_t>(out, count.value_or(uint32_t(tensors.size())));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const RawTzaTensor& t = tensors[i];
    put_le<uint16_t>(out, t.name_len);
    out.insert(out.end(), t.name.begin(), t.name.end());
    out.push_back(t.ndims);
    for (uint32_t d : t.dims) put_le<uint32_t>(out, d);
    out.insert(out.end(), t.layout.begin(), t.layout.end());
    out.push_back(uint8_t(t.dtype));
    put_le<uint64_t>(out, t.offset == kAuto ? offsets[i] : t.offset);
  }
  set_le<uint16_t>(out, 0, magic);
  out[2] = major;
  out[3] = 0;
  set_le<uint64_t>(out, 4, table_offset.value_or(table));
  return out;
}

RawTzaTensor weight_tensor() { return {6, "conv.w", 4, {2, 3, 3, 3}, "oihw", 'f', kAuto, 2 * 3 * 3 * 3 * 4}; }
RawTzaTensor bias_tensor() { return {6, "conv.b", 1, {2}, "x", 'h', kAuto, 2 * 2}; }
}  // namespace

std::vector<Case> tza_seeds() {
  std::vector<Case> out;
  out.push_back({"tza_conv", raw_tza({weight_tensor(), bias_tensor()})});
  TzaFile f;
  Tensor w(DType::f32, {4, 1, 3, 3});
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = float(i) * 0.25f;
  f.tensors.push_back({"enc_conv0.weight", "oihw", w});
  f.tensors.push_back({"enc_conv0.bias", "x", Tensor(DType::f32, {4}).to(DType::f16)});
  f.tensors.push_back({"scalar", "x", Tensor(DType::f32, {1})});
  out.push_back({"tza_writer", to_bytes(write_tza(f))});
  return out;
}

std::vector<Case> tza_header_cases() {
  std::vector<Case> out;
  auto add = [&](const std::string& name, Bytes b) { out.push_back({"tza_header/" + name, std::move(b)}); };
  const Bytes valid = raw_tza({weight_tensor(), bias_tensor()});
  for (uint64_t off : {uint64_t(0), uint64_t(11), uint64_t(12), uint64_t(valid.size()), uint64_t(valid.size() - 1),
                       uint64_t(valid.size() - 3), uint64_t(1) << 63, ~uint64_t(0), ~uint64_t(0) - 3})
    add("table_offset=" + std::to_string(off), raw_tza({weight_tensor(), bias_tensor()}, off));
  for (uint32_t count : {0u, 3u, 1u << 20, 0x7FFFFFFFu, 0xFFFFFFFFu})
    add("count=" + std::to_string(count), raw_tza({weight_tensor(), bias_tensor()}, {}, count));
  add("magic=0", raw_tza({weight_tensor()}, {}, {}, 0));
  for (uint8_t major : {0, 1, 3, 255}) add("major=" + std::to_string(major), raw_tza({weight_tensor()}, {}, {}, kTzaMagic, major));
  {
    auto t = weight_tensor();
    t.name_len = 0xFFFF;
    add("name_len=65535", raw_tza({t}));
    t.name_len = 0;
    t.name = "";
    add("name_len=0", raw_tza({t}));
  }
  for (uint8_t nd : {0, 3, 5, 8, 9, 255}) {
    auto t = weight_tensor();
    t.ndims = nd;
    add("ndims=" + std::to_string(nd), raw_tza({t}));
  }
  const std::vector<uint32_t> dim_sets[] = {{0, 3, 3, 3},          {0xFFFFFFFF, 3, 3, 3},      {2, 3, 3, 0xFFFFFFFF},
                                            {65536, 65536, 1, 1},   {65536, 65536, 65536, 65536}, {1u << 31, 2, 1, 1},
                                            {2, 3, 3, 4},          {1, 1, 1, 1},                {0x10000, 0x10000, 0x4000, 1}};
  for (const auto& dims : dim_sets) {
    auto t = weight_tensor();
    t.dims = dims;
    std::string name = "dims=";
    for (uint32_t d : dims) name += std::to_string(d) + ",";
    add(name, raw_tza({t, bias_tensor()}));
  }
  for (const char* layout : {"ohwi", "xxxx", "o\0hw", "OIHW"}) {
    auto t = weight_tensor();
    t.layout = std::string(layout, 4);
    add(std::string("layout=") + layout, raw_tza({t}));
  }
  for (char dtype : {'d', 'H', 'F', '\0', 'b'}) {
    auto t = bias_tensor();
    t.dtype = dtype;
    add(std::string("dtype=") + std::to_string(int(dtype)), raw_tza({weight_tensor(), t}));
  }
  for (uint64_t off : {uint64_t(0), uint64_t(12), uint64_t(65), uint64_t(valid.size()), uint64_t(1) << 40,
                       ~uint64_t(0), ~uint64_t(0) - 63, ~uint64_t(0) - 7})
    for (bool second : {false, true}) {
      auto w = weight_tensor();
      auto b = bias_tensor();
      (second ? b : w).offset = off;
      add(std::string(second ? "bias" : "weight") + "_offset=" + std::to_string(off), raw_tza({w, b}));
    }
  {
    auto a = weight_tensor(), b = weight_tensor();
    add("duplicate_name", raw_tza({a, b}));
    b.name = "conv.x";
    b.offset = 64;  // both tensors over the same data: allowed or not, never a crash
    add("shared_data", raw_tza({a, b}));
  }
  {  // many tiny tensors: the table grows, the data does not
    std::vector<RawTzaTensor> many;
    for (int i = 0; i < 2000; ++i) {
      RawTzaTensor t{0, "t" + std::to_string(i), 1, {1}, "x", 'h', 64, 0};
      t.name_len = uint16_t(t.name.size());
      many.push_back(t);
    }
    add("2000_tensors_one_block", raw_tza(many));
  }
  return out;
}

// ---- ONNX, changed through protobuf ----
namespace {
void add_tensor_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
                      std::vector<int64_t> dims, int elem = onnx::TensorProto::FLOAT) {
  auto* v = list->Add();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}
onnx::TensorProto float_tensor(const std::string& name, std::vector<int64_t> dims, float scale) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t.add_dims(d);
    n *= d;
  }
  std::string raw(size_t(n) * 4, '\0');
  for (int64_t i = 0; i < n; ++i) {
    const float v = scale * float((i * 7) % 11 - 5);
    std::memcpy(raw.data() + 4 * i, &v, 4);
  }
  t.set_raw_data(raw);
  return t;
}
onnx::ModelProto base_model(const std::string& name) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("volvox robustness");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  model.mutable_graph()->set_name(name);
  return model;
}
onnx::AttributeProto* add_ints(onnx::NodeProto* node, const std::string& name, std::vector<int64_t> values) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
  return a;
}

onnx::ModelProto conv_model_proto() {
  onnx::ModelProto model = base_model("conv");
  auto* g = model.mutable_graph();
  add_tensor_value(g->mutable_input(), "x", {1, 2, 5, 5});
  add_tensor_value(g->mutable_output(), "y", {1, 3, 5, 5});
  *g->add_initializer() = float_tensor("W", {3, 2, 3, 3}, 0.05f);
  *g->add_initializer() = float_tensor("B", {3}, 0.1f);
  *g->add_initializer() = float_tensor("C", {1, 3, 1, 1}, 0.5f);
  auto* conv = g->add_node();
  conv->set_op_type("Conv");
  conv->set_name("conv");
  for (const char* in : {"x", "W", "B"}) conv->add_input(in);
  conv->add_output("c");
  add_ints(conv, "pads", {1, 1, 1, 1});
  add_ints(conv, "kernel_shape", {3, 3});
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu");
  relu->add_input("c");
  relu->add_output("r");
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("add");
  add->add_input("r");
  add->add_input("C");
  add->add_output("y");
  return model;
}

onnx::ModelProto matmul_reshape_model() {
  onnx::ModelProto model = base_model("matmul_reshape");
  auto* g = model.mutable_graph();
  add_tensor_value(g->mutable_input(), "x", {2, 6});
  add_tensor_value(g->mutable_output(), "y", {3, 2, 2});
  *g->add_initializer() = float_tensor("M", {6, 6}, 0.1f);
  onnx::TensorProto shape;
  shape.set_name("shape");
  shape.set_data_type(onnx::TensorProto::INT64);
  shape.add_dims(3);
  for (int64_t v : {3, 2, 2}) shape.add_int64_data(v);
  *g->add_initializer() = shape;
  auto* mm = g->add_node();
  mm->set_op_type("MatMul");
  mm->set_name("mm");
  mm->add_input("x");
  mm->add_input("M");
  mm->add_output("p");
  auto* rs = g->add_node();
  rs->set_op_type("Reshape");
  rs->set_name("reshape");
  rs->add_input("p");
  rs->add_input("shape");
  rs->add_output("y");
  return model;
}

onnx::ModelProto constant_softmax_model() {
  onnx::ModelProto model = base_model("constant_softmax");
  auto* g = model.mutable_graph();
  add_tensor_value(g->mutable_input(), "x", {2, 4});
  add_tensor_value(g->mutable_output(), "y", {2, 4});
  auto* k = g->add_node();
  k->set_op_type("Constant");
  k->set_name("k");
  k->add_output("k");
  auto* value = k->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  *value->mutable_t() = float_tensor("kv", {2, 4}, 0.3f);
  auto* mul = g->add_node();
  mul->set_op_type("Mul");
  mul->set_name("mul");
  mul->add_input("x");
  mul->add_input("k");
  mul->add_output("m");
  auto* sm = g->add_node();
  sm->set_op_type("Softmax");
  sm->set_name("softmax");
  sm->add_input("m");
  sm->add_output("y");
  auto* axis = sm->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(-1);
  return model;
}

Bytes serialize(const google::protobuf::MessageLite& m) { return to_bytes(m.SerializeAsString()); }
}  // namespace

Bytes conv_model() { return serialize(conv_model_proto()); }

std::vector<Case> onnx_model_seeds() {
  return {{"onnx_conv", serialize(conv_model_proto())},
          {"onnx_matmul_reshape", serialize(matmul_reshape_model())},
          {"onnx_constant_softmax", serialize(constant_softmax_model())}};
}

Bytes onnx_tensor_seed() { return serialize(float_tensor("t", {2, 3, 4}, 1.0f)); }

std::vector<Case> onnx_structure_cases() {
  std::vector<Case> out;
  auto add = [&](const std::string& name, const std::function<void(onnx::ModelProto&)>& change,
                 onnx::ModelProto (*make)() = conv_model_proto) {
    onnx::ModelProto m = make();
    change(m);
    out.push_back({"onnx_model/" + name, serialize(m)});
  };
  auto W = [](onnx::ModelProto& m) { return m.mutable_graph()->mutable_initializer(0); };
  auto conv = [](onnx::ModelProto& m) { return m.mutable_graph()->mutable_node(0); };
  const int64_t huge[] = {int64_t(1) << 31, int64_t(1) << 40, int64_t(1) << 62, std::numeric_limits<int64_t>::max(), -1,
                          -(int64_t(1) << 62), 0};
  for (int64_t d : huge) {
    add("W_dim0=" + std::to_string(d), [&](auto& m) { W(m)->set_dims(0, d); });
    add("W_dims=" + std::to_string(d) + "x4", [&](auto& m) {
      for (int i = 0; i < 4; ++i) W(m)->set_dims(i, d);
    });
    add("input_dim=" + std::to_string(d), [&](auto& m) {
      m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2)->set_dim_value(d);
    });
    add("reshape_shape=" + std::to_string(d), [&](auto& m) {
      m.mutable_graph()->mutable_initializer(1)->set_int64_data(0, d);
    }, matmul_reshape_model);
    add("pads=" + std::to_string(d), [&](auto& m) {
      auto* a = conv(m)->mutable_attribute(0);
      for (int i = 0; i < 4; ++i) a->set_ints(i, d);
    });
    add("strides=" + std::to_string(d), [&](auto& m) { add_ints(conv(m), "strides", {d, d}); });
    add("dilations=" + std::to_string(d), [&](auto& m) { add_ints(conv(m), "dilations", {d, d}); });
    add("kernel_shape=" + std::to_string(d), [&](auto& m) { conv(m)->mutable_attribute(1)->set_ints(0, d); });
    add("group=" + std::to_string(d), [&](auto& m) {
      auto* a = conv(m)->add_attribute();
      a->set_name("group");
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(d);
    });
    add("softmax_axis=" + std::to_string(d), [&](auto& m) { m.mutable_graph()->mutable_node(2)->mutable_attribute(0)->set_i(d); },
        constant_softmax_model);
    add("constant_dims=" + std::to_string(d), [&](auto& m) {
      m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t()->set_dims(0, d);
    }, constant_softmax_model);
  }
  add("W_raw_short", [&](auto& m) { W(m)->mutable_raw_data()->pop_back(); });
  add("W_raw_empty", [&](auto& m) { W(m)->clear_raw_data(); });
  add("W_raw_long", [&](auto& m) { W(m)->mutable_raw_data()->append(1000, 'x'); });
  add("W_float_data_short", [&](auto& m) {
    W(m)->clear_raw_data();
    W(m)->add_float_data(1.0f);
  });
  add("W_both_raw_and_float_data", [&](auto& m) { W(m)->add_float_data(1.0f); });
  for (int type : {0, 8, 14, 15, 16, 17, 999, -1})
    add("W_data_type=" + std::to_string(type), [&](auto& m) { W(m)->set_data_type(type); });
  add("W_no_dims", [&](auto& m) { W(m)->clear_dims(); });
  add("W_9_dims", [&](auto& m) {
    for (int i = 0; i < 5; ++i) W(m)->add_dims(1);
  });
  for (const char* location : {"/dev/zero", "fifo.bin", "dir.bin", "zero.bin", "../../../../../../etc/hostname", "",
                               "missing.bin"})
    for (const char* length : {"", "16", "-1", "99999999999999999999", "4611686018427387904"}) {
      add(std::string("W_external=") + location + ",length=" + length, [&](auto& m) {
        W(m)->clear_raw_data();
        W(m)->set_data_location(onnx::TensorProto::EXTERNAL);
        auto* e = W(m)->add_external_data();
        e->set_key("location");
        e->set_value(location);
        if (*length) {
          auto* l = W(m)->add_external_data();
          l->set_key("length");
          l->set_value(length);
        }
      });
    }
  add("W_external_offset_huge", [&](auto& m) {
    W(m)->clear_raw_data();
    W(m)->set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [k, v] : {std::pair{"location", "zero.bin"}, {"offset", "9223372036854775807"}, {"length", "216"}}) {
      auto* e = W(m)->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
  });
  add("missing_initializer", [&](auto& m) { m.mutable_graph()->mutable_initializer()->RemoveLast(); });
  add("undefined_input", [&](auto& m) { conv(m)->set_input(0, "nowhere"); });
  add("empty_input_name", [&](auto& m) { conv(m)->set_input(0, ""); });
  add("cycle", [&](auto& m) { conv(m)->set_input(0, "y"); });
  add("self_loop", [&](auto& m) { m.mutable_graph()->mutable_node(1)->set_input(0, "r"); });
  add("duplicate_output", [&](auto& m) { m.mutable_graph()->mutable_node(1)->set_output(0, "c"); });
  add("no_outputs", [&](auto& m) { m.mutable_graph()->clear_output(); });
  add("output_not_produced", [&](auto& m) { m.mutable_graph()->mutable_output(0)->set_name("ghost"); });
  add("no_nodes", [&](auto& m) { m.mutable_graph()->clear_node(); });
  add("empty_op_type", [&](auto& m) { conv(m)->set_op_type(""); });
  add("unknown_op", [&](auto& m) { conv(m)->set_op_type("FluxCapacitor"); });
  add("node_no_outputs", [&](auto& m) { conv(m)->clear_output(); });
  add("conv_one_input", [&](auto& m) {
    conv(m)->mutable_input()->RemoveLast();
    conv(m)->mutable_input()->RemoveLast();
  });
  add("conv_ten_inputs", [&](auto& m) {
    for (int i = 0; i < 7; ++i) conv(m)->add_input("x");
  });
  add("attribute_type_mismatch", [&](auto& m) { conv(m)->mutable_attribute(0)->set_type(onnx::AttributeProto::FLOAT); });
  add("attribute_type_undefined", [&](auto& m) { conv(m)->mutable_attribute(0)->set_type(onnx::AttributeProto::UNDEFINED); });
  add("attribute_type_999", [&](auto& m) { conv(m)->mutable_attribute(0)->set_type(onnx::AttributeProto::AttributeType(999)); });
  add("auto_pad_bogus", [&](auto& m) {
    auto* a = conv(m)->add_attribute();
    a->set_name("auto_pad");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s("BOGUS");
  });
  add("input_elem_type_string", [&](auto& m) {
    m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::STRING);
  });
  add("input_no_type", [&](auto& m) { m.mutable_graph()->mutable_input(0)->clear_type(); });
  add("input_sequence_type", [&](auto& m) {
    m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_sequence_type();
  });
  add("input_empty_dim_param", [&](auto& m) {
    m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("");
  });
  for (int64_t v : {int64_t(0), int64_t(1), int64_t(9999), int64_t(-1)})
    add("opset=" + std::to_string(v), [&](auto& m) { m.mutable_opset_import(0)->set_version(v); });
  add("no_opset_import", [&](auto& m) { m.clear_opset_import(); });
  add("ir_version_0", [&](auto& m) { m.set_ir_version(0); });
  add("ir_version_huge", [&](auto& m) { m.set_ir_version(int64_t(1) << 40); });
  add("no_graph", [&](auto& m) { m.clear_graph(); });
  add("deeply_nested_subgraphs", [&](auto& m) {
    // If nodes nested 200 deep through then_branch: recursion in the parser or the importer.
    onnx::GraphProto inner;
    inner.set_name("leaf");
    for (int depth = 0; depth < 200; ++depth) {
      onnx::GraphProto outer;
      outer.set_name("level" + std::to_string(depth));
      auto* n = outer.add_node();
      n->set_op_type("If");
      n->add_input("cond");
      n->add_output("o");
      auto* a = n->add_attribute();
      a->set_name("then_branch");
      a->set_type(onnx::AttributeProto::GRAPH);
      *a->mutable_g() = inner;
      inner = outer;
    }
    *conv(m)->add_attribute() = [&] {
      onnx::AttributeProto a;
      a.set_name("nested");
      a.set_type(onnx::AttributeProto::GRAPH);
      *a.mutable_g() = inner;
      return a;
    }();
  });
  add("10000_node_chain", [&](auto& m) {
    auto* g = m.mutable_graph();
    g->mutable_node(2)->set_output(0, "a0");
    for (int i = 0; i < 10000; ++i) {
      auto* n = g->add_node();
      n->set_op_type("Relu");
      n->set_name("relu" + std::to_string(i));
      n->add_input("a" + std::to_string(i));
      n->add_output(i == 9999 ? "y" : "a" + std::to_string(i + 1));
    }
  });
  // A protobuf length prefix far beyond the file: the raw bytes of a valid model with its first
  // field's length varint replaced by 2^62.
  {
    Bytes b = serialize(conv_model_proto());
    Bytes m = {b[0], 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40};
    m.insert(m.end(), b.begin() + 2, b.end());
    out.push_back({"onnx_model/length_varint_2^62", m});
  }
  return out;
}

std::vector<Case> onnx_tensor_cases() {
  std::vector<Case> out;
  auto add = [&](const std::string& name, const std::function<void(onnx::TensorProto&)>& change) {
    onnx::TensorProto t = float_tensor("t", {2, 3, 4}, 1.0f);
    change(t);
    out.push_back({"onnx_tensor/" + name, serialize(t)});
  };
  for (int64_t d : {int64_t(1) << 40, int64_t(-1), int64_t(0), std::numeric_limits<int64_t>::max()})
    add("dim=" + std::to_string(d), [&](auto& t) { t.set_dims(0, d); });
  add("raw_short", [](auto& t) { t.mutable_raw_data()->pop_back(); });
  for (int type : {0, 8, 999}) add("type=" + std::to_string(type), [&](auto& t) { t.set_data_type(type); });
  add("int64_data_for_float", [](auto& t) {
    t.clear_raw_data();
    t.add_int64_data(1);
  });
  add("external_dev_zero", [](auto& t) {
    t.clear_raw_data();
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* e = t.add_external_data();
    e->set_key("location");
    e->set_value("/dev/zero");
  });
  return out;
}

std::vector<Case> all_image_cases(ImageFormat format) {
  std::vector<Case> out;
  for (const Case& seed : image_seeds(format)) {
    out.push_back(seed);
    for (Case& c : generic_mutations(seed)) out.push_back(std::move(c));
  }
  std::vector<Case> header;
  switch (format) {
    case ImageFormat::Pfm: header = pfm_header_cases(); break;
    case ImageFormat::Png: header = png_header_cases(); break;
    case ImageFormat::RadianceHdr: header = hdr_header_cases(); break;
    case ImageFormat::Exr: header = exr_header_cases(); break;
  }
  for (Case& c : header) out.push_back(std::move(c));
  return out;
}

namespace {
std::vector<Case> seeds_mutations_and(std::vector<Case> seeds, std::vector<Case> header) {
  std::vector<Case> out;
  for (const Case& seed : seeds) {
    out.push_back(seed);
    for (Case& c : generic_mutations(seed)) out.push_back(std::move(c));
  }
  for (Case& c : header) out.push_back(std::move(c));
  return out;
}
}  // namespace

std::vector<Case> all_npy_cases() { return seeds_mutations_and(npy_seeds(), npy_header_cases()); }
std::vector<Case> all_tza_cases() { return seeds_mutations_and(tza_seeds(), tza_header_cases()); }
std::vector<Case> all_onnx_cases() { return seeds_mutations_and(onnx_model_seeds(), onnx_structure_cases()); }

std::vector<std::filesystem::path> make_special_files(const std::filesystem::path& dir, const std::string& ext) {
  std::filesystem::create_directories(dir);
  const auto fifo = dir / ("fifo" + ext), sub = dir / ("dir" + ext), zero = dir / ("zero" + ext),
             missing = dir / ("missing" + ext), empty = dir / ("empty" + ext);
  if (!std::filesystem::exists(fifo)) VX_CHECK(mkfifo(fifo.c_str(), 0600) == 0, Io, "mkfifo ", fifo.string());
  std::filesystem::create_directories(sub);
  if (!std::filesystem::is_symlink(zero)) std::filesystem::create_symlink("/dev/zero", zero);
  write_bytes(empty, {});
  return {fifo, sub, zero, missing, empty};
}

}  // namespace vx::robust
