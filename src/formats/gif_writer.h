// Animated GIF files, for looking at frame sequences (`volvox compare --sequence --gif`): equally
// sized frames of display-encoded RGB (3 channels, values in [0, 1], e.g. denoise::side_by_side's
// strips), each shown for the same delay, looping forever. Colours go through one fixed palette
// with ordered dithering (formats/dithered_palette.h), so that what does not change between frames
// does not shimmer. Written with giflib.
//
// Frames are encoded as they are added: memory is one row of palette indices whatever the length
// of the animation. The file is written atomically (core/file_io.h): a failed or abandoned writer
// is an Error(Io) or nothing, and leaves the previous file as it was and no partial file.
#pragma once
#include <filesystem>
#include <memory>
#include <span>

#include "formats/image.h"

namespace vx {

// GIF stores sides in 16 bits and delays in 16-bit hundredths of a second.
inline constexpr int kMaxGifSide = 65535;
inline constexpr int kMinGifFrameDelayMs = 10;
inline constexpr int kMaxGifFrameDelayMs = 655350;

class AnimatedGifWriter {
 public:
  // Starts the file (a temporary one beside `path`: Error(Io) when that cannot be created). Sides
  // must be 1 to kMaxGifSide and the delay kMinGifFrameDelayMs to kMaxGifFrameDelayMs
  // (Error(InvalidArgument)); the delay is rounded to the nearest 10 ms, GIF's unit.
  AnimatedGifWriter(const std::filesystem::path& path, int width, int height, int frame_delay_ms);
  // Without finish(), the temporary file is removed and `path` left as it was.
  ~AnimatedGifWriter();
  AnimatedGifWriter(const AnimatedGifWriter&) = delete;
  AnimatedGifWriter& operator=(const AnimatedGifWriter&) = delete;

  // One frame of width x height pixels, 3 channels (Error(InvalidArgument) naming the sizes otherwise).
  void add_frame(const Image& frame);
  // Ends the file and renames it over `path`; at least one frame must have been added.
  void finish();
  int frame_count() const;

 private:
  struct Encoder;
  std::unique_ptr<Encoder> encoder_;
};

// All of `frames` (at least one, all the size of the first) as one animated GIF.
void write_animated_gif(const std::filesystem::path& path, std::span<const Image> frames, int frame_delay_ms);

}  // namespace vx
