#include "common/gif_reader.h"

#include <gif_lib.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace vx::test {

namespace {

std::string gif_error_text(int code) {
  const char* text = GifErrorString(code);
  return text ? text : "unknown giflib error";
}

struct GifCloser {
  void operator()(GifFileType* gif) const { DGifCloseFile(gif, nullptr); }
};

// NETSCAPE2.0's loop count: the application block "NETSCAPE2.0", then a sub-block {1, lo, hi}.
int netscape_loop_count(const SavedImage& image) {
  for (int i = 0; i + 1 < image.ExtensionBlockCount; ++i) {
    const ExtensionBlock& name = image.ExtensionBlocks[i];
    const ExtensionBlock& data = image.ExtensionBlocks[i + 1];
    if (name.Function == APPLICATION_EXT_FUNC_CODE && name.ByteCount == 11 &&
        std::memcmp(name.Bytes, "NETSCAPE2.0", 11) == 0 && data.Function == CONTINUE_EXT_FUNC_CODE &&
        data.ByteCount == 3 && data.Bytes[0] == 1)
      return data.Bytes[1] | data.Bytes[2] << 8;
  }
  return -1;
}

}  // namespace

DecodedGif read_gif(const std::filesystem::path& path) {
  DecodedGif out;
  std::ifstream(path, std::ios::binary).read(out.signature.assign(6, '\0').data(), 6);
  int error = 0;
  std::unique_ptr<GifFileType, GifCloser> gif(DGifOpenFileName(path.c_str(), &error));
  if (!gif) throw std::runtime_error("cannot open GIF " + path.string() + ": " + gif_error_text(error));
  if (DGifSlurp(gif.get()) != GIF_OK)
    throw std::runtime_error("cannot decode GIF " + path.string() + ": " + gif_error_text(gif->Error));
  out.width = gif->SWidth;
  out.height = gif->SHeight;
  if (gif->SColorMap)
    for (int i = 0; i < gif->SColorMap->ColorCount; ++i) {
      const GifColorType& c = gif->SColorMap->Colors[i];
      out.palette.push_back({c.Red, c.Green, c.Blue});
    }
  if (gif->ImageCount > 0) out.loop_count = netscape_loop_count(gif->SavedImages[0]);
  for (int i = 0; i < gif->ImageCount; ++i) {
    const SavedImage& image = gif->SavedImages[i];
    DecodedGifFrame frame;
    frame.left = image.ImageDesc.Left;
    frame.top = image.ImageDesc.Top;
    frame.width = image.ImageDesc.Width;
    frame.height = image.ImageDesc.Height;
    frame.has_local_colour_table = image.ImageDesc.ColorMap != nullptr;
    frame.indices.assign(image.RasterBits, image.RasterBits + size_t(frame.width) * size_t(frame.height));
    GraphicsControlBlock control;
    if (DGifSavedExtensionToGCB(gif.get(), i, &control) == GIF_OK) {
      frame.delay_cs = control.DelayTime;
      frame.disposal = control.DisposalMode;
      frame.transparent_index = control.TransparentColor;
    }
    out.frames.push_back(std::move(frame));
  }
  return out;
}

}  // namespace vx::test
