/* Volvox C API for image files, through the engine's own readers and writers (the ones `volvox
 * denoise` uses): OpenEXR (.exr), PFM (.pfm), Radiance HDR (.hdr) and PNG (.png), chosen by the file
 * name's extension. Pixels are float32, interleaved, rows top to bottom. Errors are recorded like
 * vxNewDevice's: read them with vxGetDeviceError(NULL, &message). */
#ifndef VOLVOX_IMAGE_H
#define VOLVOX_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VXImageImpl* VXImage;

/* Reads an image file with the channels it stores (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA). Values are
 * taken as stored: PNG samples become v/255 or v/65535 (no sRGB decoding), float formats keep
 * theirs. NULL on failure: a missing or unreadable file (VX_ERROR_IO), a corrupt or truncated one
 * (VX_ERROR_INVALID_FILE), an unknown extension (VX_ERROR_UNSUPPORTED); limits as in README.md. */
VXImage vxReadImage(const char* path);
void vxReleaseImage(VXImage image);
/* Any out-pointer may be NULL. */
void vxGetImageSize(VXImage image, size_t* width, size_t* height, size_t* channels);
/* width * height * channels floats, valid until vxReleaseImage. */
const float* vxGetImageData(VXImage image);

/* Writes width x height pixels of `channels` (1 to 4; PFM: 1, 3 or 4) packed float32 values to
 * `path`, atomically: on failure the previous file is left as it was. png_bits: 8 or 16 bits per PNG
 * sample (PNG clamps to [0, 1] and rounds); exr_half: OpenEXR channels as half (true) or float
 * (false); both are ignored by the other formats. Returns false on failure. */
bool vxWriteImage(const char* path, const float* pixels, size_t width, size_t height, size_t channels, int png_bits,
                  bool exr_half);

#ifdef __cplusplus
}
#endif

#endif /* VOLVOX_IMAGE_H */
