// Animated GIFs read back with giflib's own decoder (DGifOpenFileName, DGifSlurp): what the tests
// of formats/gif_writer and of `volvox compare --sequence --gif` check the written files with.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace vx::test {

struct DecodedGifFrame {
  int left = 0, top = 0, width = 0, height = 0;
  bool has_local_colour_table = false;
  std::vector<uint8_t> indices;  // width * height palette indices, rows top to bottom
  // From the frame's graphics control extension; delay_cs is -1 when the frame has none, and
  // transparent_index is -1 when no colour is transparent.
  int delay_cs = -1, disposal = -1, transparent_index = -1;
};

struct DecodedGif {
  std::string signature;  // the first 6 bytes: "GIF89a" or "GIF87a"
  int width = 0, height = 0;
  std::vector<std::array<uint8_t, 3>> palette;  // the global colour table
  int loop_count = -1;  // the NETSCAPE2.0 extension before the first frame: 0 = forever, -1 = absent
  std::vector<DecodedGifFrame> frames;
};

// Throws std::runtime_error with giflib's message when the file does not decode.
DecodedGif read_gif(const std::filesystem::path& path);

}  // namespace vx::test
