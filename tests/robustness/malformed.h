// Malformed inputs for every reader, made from small valid files written by the engine's own writers:
// truncations, bit flips, byte insertions and overwrites (generic_mutations), and, per format, header
// fields set to zero, negative or huge sizes (size bombs), unknown types and inconsistent lengths.
// Deterministic: the same cases, in the same order, on every machine and run.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/image.h"
#include "formats/image_io.h"

namespace vx::robust {

using Bytes = std::vector<uint8_t>;

struct Case {
  std::string name;  // says how it was made: "<seed>/trunc@12", "png_ihdr/width=0x80000000"
  Bytes bytes;
};

// ---- valid seeds ----
// Images of odd sizes (1x1, 1x5, 5x1, 17x3, 4x4) and every channel count the format holds; the float
// formats (PFM, OpenEXR) also hold NaN, +-Inf, -0, denormals and FLT_MAX.
std::vector<Case> image_seeds(ImageFormat format);
// A 5x3 RGB image with smooth values (in [0.05, 0.95]), and one with NaN / Inf / FLT_MAX pixels.
Image smooth_image(int width, int height, int channels, uint32_t seed = 1);
Image nonfinite_image(int width, int height, int channels);
// .npy files of every dtype we write, ranks 0 to 4, format versions 1, 2 and 3.
std::vector<Case> npy_seeds();
// Small TZA files (f32 and f16, "oihw" and "x" tensors).
std::vector<Case> tza_seeds();
// Small ONNX models that the CPU runs (Conv + Relu + Add; MatMul + Reshape; Constant + Mul + Softmax),
// and one TensorProto.
std::vector<Case> onnx_model_seeds();
Bytes onnx_tensor_seed();
// The first ONNX seed: y[1,3,5,5] = Relu(Conv(x[1,2,5,5], W, b, pads 1)) + c; input "x", output "y".
Bytes conv_model();

// ---- mutations ----
// Truncations (empty, every one of the first 24 bytes, half, one short), single-bit flips (half of
// them in the first 64 bytes, where headers are), bytes set to 0x00 / 0xFF / 0x7F / 0x80, byte
// insertions, appended garbage, the file twice. About 45 cases per seed.
std::vector<Case> generic_mutations(const Case& seed);

// Per format: header fields set to zero / negative / huge values, unknown types and inconsistent
// lengths, built so that the rest of the file stays consistent (recomputed PNG CRCs, padded npy
// headers, TZA tables written field by field, ONNX models changed through protobuf).
std::vector<Case> pfm_header_cases();
std::vector<Case> png_header_cases();
std::vector<Case> hdr_header_cases();
std::vector<Case> exr_header_cases();
std::vector<Case> npy_header_cases();
std::vector<Case> tza_header_cases();
// `base_dir`: where external-data files of the models are looked up; some cases name a FIFO there
// (fifo.bin), a directory (dir.bin) and /dev/zero (zero.bin), which make_special_files creates.
std::vector<Case> onnx_structure_cases();
std::vector<Case> onnx_tensor_cases();

// Every case for one reader: seeds, their generic mutations and the format's header cases.
std::vector<Case> all_image_cases(ImageFormat format);
std::vector<Case> all_npy_cases();
std::vector<Case> all_tza_cases();
std::vector<Case> all_onnx_cases();

// In `dir`: fifo<ext> (a FIFO nobody writes), dir<ext> (a directory), zero<ext> (a symbolic link to
// /dev/zero), missing<ext> (absent) and empty<ext> (an empty file); returns their paths.
std::vector<std::filesystem::path> make_special_files(const std::filesystem::path& dir, const std::string& ext);

void write_bytes(const std::filesystem::path& path, const Bytes& bytes);

}  // namespace vx::robust
