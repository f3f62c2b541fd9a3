// The file, in order: header (GIF89a), screen descriptor with the palette as the global colour
// table, the NETSCAPE2.0 application extension (loop forever), then per frame a graphics control
// extension (delay) and an image covering the whole screen, its rows LZW-coded by giflib.
#include "formats/gif_writer.h"

#include <gif_lib.h>

#include <exception>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "formats/dithered_palette.h"

namespace vx {

namespace {

[[noreturn]] void fail_gif(const std::filesystem::path& path, const char* step, int gif_error) {
  const char* text = GifErrorString(gif_error);
  fail(gif_error == E_GIF_ERR_NOT_ENOUGH_MEM ? ErrorCode::OutOfMemory : ErrorCode::Io,
       cat("cannot write GIF file ", path, ": ", step, ": ", text ? text : "unknown giflib error"));
}

}  // namespace

struct AnimatedGifWriter::Encoder {
  // giflib's output: its bytes go into the atomic file. giflib is C, so no exception may cross it:
  // a failed write is kept here and reported as 0 bytes written. giflib fails the call then, except
  // in the extension calls, which ignore their writes' results; check() looks after every call.
  struct Output {
    explicit Output(const std::filesystem::path& path) : file(path, "GIF file") {}
    AtomicFile file;
    std::exception_ptr failure;
  };

  static int write_bytes(GifFileType* gif, const GifByteType* bytes, int count) {
    auto* out = static_cast<Output*>(gif->UserData);
    if (out->failure) return 0;
    try {
      out->file.write(bytes, size_t(count));
      return count;
    } catch (...) {
      out->failure = std::current_exception();
      return 0;
    }
  }

  Encoder(const std::filesystem::path& target, int w, int h, int delay)
      : path(target), output(target), width(w), height(h), delay_cs(delay), row(size_t(w)) {}
  // giflib's close writes the trailer through `output`, so it must go first (here, before the
  // members); the unfinished temporary file is then removed by AtomicFile.
  ~Encoder() {
    if (gif) EGifCloseFile(gif, nullptr);
  }

  // After every giflib call: the write failure kept by the output, else giflib's own error.
  void check(int status, const char* step) {
    if (output.failure) std::rethrow_exception(output.failure);
    if (status != GIF_OK) fail_gif(path, step, gif->Error);
  }

  std::filesystem::path path;
  Output output;
  GifFileType* gif = nullptr;
  int width, height, delay_cs;
  int frames = 0;
  std::vector<GifPixelType> row;  // one row of palette indices: all the memory a frame needs
};

AnimatedGifWriter::AnimatedGifWriter(const std::filesystem::path& path, int width, int height, int frame_delay_ms) {
  VX_CHECK(width >= 1 && width <= kMaxGifSide && height >= 1 && height <= kMaxGifSide, InvalidArgument,
           "cannot write GIF file ", path, ": frames of ", width, "x", height, " pixels (GIF sides are 1 to ",
           kMaxGifSide, ")");
  VX_CHECK(frame_delay_ms >= kMinGifFrameDelayMs && frame_delay_ms <= kMaxGifFrameDelayMs, InvalidArgument,
           "cannot write GIF file ", path, ": a frame delay of ", frame_delay_ms, " ms (GIF delays are ",
           kMinGifFrameDelayMs, " to ", kMaxGifFrameDelayMs, " ms)");
  encoder_ = std::make_unique<Encoder>(path, width, height, (frame_delay_ms + 5) / 10);
  Encoder& e = *encoder_;
  int error = 0;
  e.gif = EGifOpen(&e.output, Encoder::write_bytes, &error);
  if (!e.gif) fail_gif(path, "cannot start the encoder", error);
  EGifSetGifVersion(e.gif, true);  // the loop and delay extensions are GIF89's

  GifColorType colors[dithered_palette::kPaletteSize];
  const auto palette = dithered_palette::palette();
  for (size_t i = 0; i < palette.size(); ++i) colors[i] = {palette[i].r, palette[i].g, palette[i].b};
  ColorMapObject* color_map = GifMakeMapObject(dithered_palette::kPaletteSize, colors);
  if (!color_map) fail_gif(path, "colour table", E_GIF_ERR_NOT_ENOUGH_MEM);
  const int status = EGifPutScreenDesc(e.gif, width, height, 8, 0, color_map);  // giflib copies the table
  GifFreeMapObject(color_map);
  e.check(status, "screen descriptor");

  // NETSCAPE2.0: sub-block 1 holds the loop count, little-endian; 0 loops forever.
  static const GifByteType kNetscape[11] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
  static const GifByteType kLoopForever[3] = {1, 0, 0};
  e.check(EGifPutExtensionLeader(e.gif, APPLICATION_EXT_FUNC_CODE), "loop extension");
  e.check(EGifPutExtensionBlock(e.gif, sizeof kNetscape, kNetscape), "loop extension");
  e.check(EGifPutExtensionBlock(e.gif, sizeof kLoopForever, kLoopForever), "loop extension");
  e.check(EGifPutExtensionTrailer(e.gif), "loop extension");
}

AnimatedGifWriter::~AnimatedGifWriter() = default;

int AnimatedGifWriter::frame_count() const { return encoder_->frames; }

void AnimatedGifWriter::add_frame(const Image& frame) {
  Encoder& e = *encoder_;
  VX_CHECK(e.gif, Internal, "GIF file ", e.path, ": a frame added after finish()");
  VX_CHECK(frame.width == e.width && frame.height == e.height && frame.channels == 3 &&
               frame.pixels.size() == size_t(e.width) * size_t(e.height) * 3,
           InvalidArgument, "cannot write GIF file ", e.path, ": frame ", e.frames, " is ", frame.width, "x",
           frame.height, "x", frame.channels, ", not ", e.width, "x", e.height,
           "x3 (display-encoded RGB, every frame the size of the first)");
  // Each frame replaces the whole screen: no transparency, nothing to dispose of.
  const GraphicsControlBlock control{DISPOSE_DO_NOT, false, e.delay_cs, NO_TRANSPARENT_COLOR};
  GifByteType extension[4];
  const size_t extension_size = EGifGCBToExtension(&control, extension);
  e.check(EGifPutExtension(e.gif, GRAPHICS_EXT_FUNC_CODE, int(extension_size), extension), "frame delay");
  e.check(EGifPutImageDesc(e.gif, 0, 0, e.width, e.height, false, nullptr), "image descriptor");
  for (int y = 0; y < e.height; ++y) {
    dithered_palette::index_row(frame, y, e.row.data());
    e.check(EGifPutLine(e.gif, e.row.data(), e.width), "pixels");
  }
  ++e.frames;
}

void AnimatedGifWriter::finish() {
  Encoder& e = *encoder_;
  VX_CHECK(e.gif, Internal, "GIF file ", e.path, ": finish() twice");
  VX_CHECK(e.frames > 0, InvalidArgument, "cannot write GIF file ", e.path, ": no frame");
  int error = 0;
  const int status = EGifCloseFile(std::exchange(e.gif, nullptr), &error);  // frees it even when it fails
  if (e.output.failure) std::rethrow_exception(e.output.failure);
  if (status != GIF_OK) fail_gif(e.path, "trailer", error);
  e.output.file.commit();
}

void write_animated_gif(const std::filesystem::path& path, std::span<const Image> frames, int frame_delay_ms) {
  VX_CHECK(!frames.empty(), InvalidArgument, "cannot write GIF file ", path, ": no frame");
  AnimatedGifWriter writer(path, frames[0].width, frames[0].height, frame_delay_ms);
  for (const Image& frame : frames) writer.add_frame(frame);
  writer.finish();
}

}  // namespace vx
