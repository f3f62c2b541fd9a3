// Reprojection of the previous frame into the current one with motion vectors (samples/motion.h's
// convention: the surface at pixel centre (x + 0.5, y + 0.5) was at (x + 0.5 + dx, y + 0.5 + dy) in
// the previous frame), and the test of whether that surface was visible there (a disocclusion
// test as SVGF's: the previous frame's normal and depth at that point agree with the current ones).
// Shared by the temporal stabiliser and the temporal error metric.
#pragma once
#include "formats/image.h"

namespace vx::denoise {

// The previous frame's guides, resampled: what the current pixel's surface looked like there.
struct Reprojected {
  Image values;               // `previous` sampled bilinearly where the motion points (channels as it)
  std::vector<uint8_t> valid;  // per pixel: inside the image, and normal and depth agree
};

// How `previous` is sampled between pixel centres: bilinear (the metric's plain warp), or
// Catmull-Rom, sharper, for histories that are resampled every frame and would blur away.
enum class Resampling { bilinear, catmull_rom };

// `motion`: 2 (or more; the first two used) channels. `depth` and `normal` of both frames (1 and 3
// channels) decide validity: depth within 10% (relative) and normals within ~25 degrees; a pixel
// whose ray left the scene (depth 0 in both) is valid when it lands inside the image. Without
// normals (both empty) depth alone decides.
Reprojected reproject(const Image& previous, const Image& motion, const Image& depth, const Image& previous_depth,
                      const Image& normal, const Image& previous_normal, Resampling resampling);

}  // namespace vx::denoise
