// formats/gif_writer and formats/dithered_palette. Written GIFs are read back with giflib's own
// decoder: size, frame count, the loop and delay extensions, and colours within the palette's
// quantisation error. Pixels that do not change keep their palette index from frame to frame (no
// shimmer). Errors: bad sizes, delays and frames are refused and leave no file; a write that fails
// part way (a file-size limit in a child process: tests run as root, so a read-only folder cannot
// make it fail) leaves the previous file byte for byte and no temporary file.
#include <gif_lib.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <random>

#include "common/child_process.h"
#include "common/gif_reader.h"
#include "common/test_util.h"
#include "core/error.h"
#include "formats/dithered_palette.h"
#include "formats/gif_writer.h"

namespace vx {
namespace {

namespace fs = std::filesystem;

// The quantisation error of the palette, per channel (R, G, B): ordered dithering picks one of the
// two cube levels around a value, so a pixel is off by less than one level step (1/5 for red and
// blue, 1/6 for green); the palette's colours are the levels rounded to 8 bits, half a step more.
constexpr float kGifLevelStep[3] = {1.0f / (dithered_palette::kRedLevels - 1),
                                    1.0f / (dithered_palette::kGreenLevels - 1),
                                    1.0f / (dithered_palette::kBlueLevels - 1)};
constexpr float kGifColourRounding = 0.5f / 255.0f;

Image gif_test_noise(int width, int height, unsigned seed) {
  Image image(width, height, 3);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (float& v : image.pixels) v = uniform(rng);
  return image;
}

// Channel c of pixel i of a decoded frame, in [0, 1].
float gif_decoded(const test::DecodedGif& gif, const test::DecodedGifFrame& frame, size_t i, int c) {
  return float(gif.palette[frame.indices[i]][size_t(c)]) / 255.0f;
}

std::vector<std::string> gif_test_folder_entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void expect_gif_error(const std::function<void()>& fn, ErrorCode code, const std::string& fragment) {
  try {
    fn();
    ADD_FAILURE() << "expected " << error_code_name(code) << " with '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what() << " lacks " << fragment;
  }
}

TEST(AnimatedGif, ThreeFramesReadBackWithSizeLoopDelayAndColoursWithinOneLevelStep) {
  const fs::path path = test::temp_dir() / "three.gif";
  const int width = 37, height = 21;  // not multiples of the 8x8 dither tile
  const std::vector<Image> frames = {gif_test_noise(width, height, 1), gif_test_noise(width, height, 2),
                                     gif_test_noise(width, height, 3)};
  write_animated_gif(path, frames, 120);

  const test::DecodedGif gif = test::read_gif(path);
  EXPECT_EQ(gif.signature, "GIF89a");
  EXPECT_EQ(gif.width, width);
  EXPECT_EQ(gif.height, height);
  EXPECT_EQ(gif.loop_count, 0) << "NETSCAPE2.0 extension with loop count 0 (forever) before the first frame";
  const auto palette = dithered_palette::palette();
  ASSERT_EQ(gif.palette.size(), palette.size());
  for (size_t i = 0; i < palette.size(); ++i)
    EXPECT_EQ(gif.palette[i], (std::array<uint8_t, 3>{palette[i].r, palette[i].g, palette[i].b})) << i;
  ASSERT_EQ(gif.frames.size(), 3u);
  for (size_t f = 0; f < gif.frames.size(); ++f) {
    const test::DecodedGifFrame& frame = gif.frames[f];
    EXPECT_EQ(frame.left, 0);
    EXPECT_EQ(frame.top, 0);
    EXPECT_EQ(frame.width, width);
    EXPECT_EQ(frame.height, height);
    EXPECT_FALSE(frame.has_local_colour_table);
    EXPECT_EQ(frame.delay_cs, 12);
    EXPECT_EQ(frame.disposal, DISPOSE_DO_NOT);
    EXPECT_EQ(frame.transparent_index, NO_TRANSPARENT_COLOR);
    float worst[3] = {};
    for (size_t i = 0; i < size_t(width) * size_t(height); ++i)
      for (int c = 0; c < 3; ++c)
        worst[c] = std::max(worst[c], std::abs(gif_decoded(gif, frame, i, c) - frames[f].pixels[i * 3 + size_t(c)]));
    for (int c = 0; c < 3; ++c)
      EXPECT_LE(worst[c], kGifLevelStep[c] + kGifColourRounding) << "frame " << f << " channel " << c;
  }
}

// Over an 8x8 tile of one colour the dither pattern averages to the colour: within 1/128 of a level
// step (the 64 thresholds), plus the palette's 8-bit rounding.
TEST(AnimatedGif, FlatAreasKeepTheirMeanColour) {
  const std::array<std::array<float, 3>, 4> colours = {
      {{0.3f, 0.55f, 0.9f}, {0.02f, 0.97f, 0.5f}, {0.61f, 0.61f, 0.61f}, {0.123f, 0.456f, 0.789f}}};
  Image image(16, 16, 3);  // one colour per 8x8 quadrant
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x)
      for (int c = 0; c < 3; ++c) image.at(x, y, c) = colours[size_t(y / 8 * 2 + x / 8)][size_t(c)];
  const fs::path path = test::temp_dir() / "flat.gif";
  write_animated_gif(path, std::vector<Image>{image}, 100);
  const test::DecodedGif gif = test::read_gif(path);
  ASSERT_EQ(gif.frames.size(), 1u);
  for (size_t q = 0; q < 4; ++q)
    for (int c = 0; c < 3; ++c) {
      double sum = 0;
      for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x)
          sum += gif_decoded(gif, gif.frames[0], size_t(int(q) / 2 * 8 + y) * 16 + size_t(int(q) % 2 * 8 + x), c);
      EXPECT_NEAR(sum / 64, colours[q][size_t(c)], kGifLevelStep[c] / 128 + kGifColourRounding + 1e-6)
          << "quadrant " << q << " channel " << c;
    }
}

// What flicker the GIF shows must be the images' own: a pixel that is the same in two frames gets
// the same palette index in both, wherever the frames differ.
TEST(AnimatedGif, PixelsThatDoNotChangeKeepTheirPaletteIndex) {
  const Image first = gif_test_noise(40, 24, 7);
  Image second = first;
  for (int y = 7; y < 12; ++y)
    for (int x = 10; x < 16; ++x)
      for (int c = 0; c < 3; ++c) second.at(x, y, c) = 1.0f - first.at(x, y, c);
  const fs::path path = test::temp_dir() / "static.gif";
  write_animated_gif(path, std::vector<Image>{first, second}, 100);
  const test::DecodedGif gif = test::read_gif(path);
  ASSERT_EQ(gif.frames.size(), 2u);
  int changed_inside = 0;
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 40; ++x) {
      const size_t i = size_t(y) * 40 + size_t(x);
      const bool inside = y >= 7 && y < 12 && x >= 10 && x < 16;
      if (inside) {
        changed_inside += gif.frames[0].indices[i] != gif.frames[1].indices[i];
      } else {
        EXPECT_EQ(gif.frames[0].indices[i], gif.frames[1].indices[i]) << "pixel " << x << "," << y;
      }
    }
  EXPECT_GT(changed_inside, 0);
}

TEST(AnimatedGif, ClampsToZeroOneAndWritesNanAsBlack) {
  Image image(3, 1, 3);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int c = 0; c < 3; ++c) {
    image.at(0, 0, c) = -1.0f;
    image.at(1, 0, c) = 2.0f;
    image.at(2, 0, c) = nan;
  }
  const fs::path path = test::temp_dir() / "clamped.gif";
  write_animated_gif(path, std::vector<Image>{image}, 100);
  const test::DecodedGif gif = test::read_gif(path);
  ASSERT_EQ(gif.frames.size(), 1u);
  using Rgb = std::array<uint8_t, 3>;
  EXPECT_EQ(gif.palette[gif.frames[0].indices[0]], (Rgb{0, 0, 0}));
  EXPECT_EQ(gif.palette[gif.frames[0].indices[1]], (Rgb{255, 255, 255}));
  EXPECT_EQ(gif.palette[gif.frames[0].indices[2]], (Rgb{0, 0, 0}));
}

TEST(AnimatedGif, BadSizesDelaysAndFramesAreRefusedAndLeaveNoFile) {
  const fs::path dir = test::temp_dir() / "gif_errors";
  fs::create_directories(dir);
  const fs::path path = dir / "out.gif";
  expect_gif_error([&] { AnimatedGifWriter(path, 0, 10, 100); }, ErrorCode::InvalidArgument, "0x10 pixels");
  expect_gif_error([&] { AnimatedGifWriter(path, 65536, 1, 100); }, ErrorCode::InvalidArgument, "65536x1 pixels");
  expect_gif_error([&] { AnimatedGifWriter(path, 8, 8, 5); }, ErrorCode::InvalidArgument, "delay of 5 ms");
  expect_gif_error([&] { AnimatedGifWriter(path, 8, 8, 655360); }, ErrorCode::InvalidArgument, "delay of 655360 ms");
  expect_gif_error([&] { write_animated_gif(path, {}, 100); }, ErrorCode::InvalidArgument, "no frame");
  expect_gif_error([&] { write_animated_gif(path, std::vector<Image>{Image(8, 8, 3), Image(8, 9, 3)}, 100); },
                   ErrorCode::InvalidArgument, "frame 1 is 8x9x3, not 8x8x3");
  expect_gif_error([&] { write_animated_gif(path, std::vector<Image>{Image(8, 8, 4)}, 100); },
                   ErrorCode::InvalidArgument, "frame 0 is 8x8x4");
  expect_gif_error([&] { AnimatedGifWriter(path, 8, 8, 100).finish(); }, ErrorCode::InvalidArgument, "no frame");
  {  // abandoned after a frame: the temporary file goes too
    AnimatedGifWriter writer(path, 8, 8, 100);
    writer.add_frame(Image(8, 8, 3));
    EXPECT_EQ(writer.frame_count(), 1);
  }
  EXPECT_EQ(gif_test_folder_entries(dir), std::vector<std::string>{});
  expect_gif_error([&] { write_animated_gif(dir / "missing" / "out.gif", std::vector<Image>{Image(8, 8, 3)}, 100); },
                   ErrorCode::Io, "cannot create GIF file");
}

TEST(AnimatedGif, FailedWriteKeepsThePreviousFileAndLeavesNoTemporaryFile) {
  const fs::path dir = test::temp_dir() / "gif_failed_write";
  fs::create_directories(dir);
  const fs::path path = dir / "out.gif";
  const std::string previous = "the previous GIF, which must survive";
  std::ofstream(path, std::ios::binary) << previous;
  // Noise hardly compresses: about 10 KB a frame, against a limit of 8 KB.
  const std::vector<Image> frames = {gif_test_noise(96, 96, 11), gif_test_noise(96, 96, 12),
                                     gif_test_noise(96, 96, 13)};
  const test::ChildOutcome outcome =
      test::run_in_child([&] { write_animated_gif(path, frames, 100); }, {.max_file_bytes = 8 << 10});
  ASSERT_TRUE(outcome.threw_vx_error) << outcome.message;
  EXPECT_EQ(outcome.code, ErrorCode::Io) << outcome.message;
  EXPECT_NE(outcome.message.find(cat("cannot write GIF file ", path)), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("File too large"), std::string::npos) << outcome.message;
  std::ifstream in(path, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), previous);
  EXPECT_EQ(gif_test_folder_entries(dir), std::vector<std::string>{"out.gif"}) << "a temporary file was left";
}

}  // namespace
}  // namespace vx
