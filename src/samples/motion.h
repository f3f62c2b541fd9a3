// Depth and motion vectors of an animated sample scene (animation.h), for temporal denoising: one
// ray through the centre of each pixel of frame `now`, its first hit related to frame `previous`
// (the same scene at the frame before: shapes in the same order; a sphere that moved carries the
// surface point with it).
//   depth:  1 channel, the distance from the camera to the first hit along the pixel-centre ray;
//           0 where the ray leaves the scene.
//   motion: 2 channels (dx, dy), in pixels, y down: the surface point seen at the centre
//           (x + 0.5, y + 0.5) of pixel (x, y) was seen at (x + 0.5 + dx, y + 0.5 + dy) in the
//           previous frame ("current to previous", as OptiX's and most engines' motion vectors).
//           Rays that leave the scene move with the camera's rotation (a point 10^4 units away);
//           0 where the point was behind the previous camera. Occlusion is not tested: a point
//           hidden in the previous frame still gets where it would have been (disocclusion is
//           the denoiser's to detect, as with a renderer's motion vectors).
#pragma once
#include "formats/image.h"
#include "samples/scene.h"

namespace vx::samples {

struct GeometryImages {
  Image depth, motion;
};

GeometryImages render_geometry(const Scene& now, const Scene& previous, int width, int height);

}  // namespace vx::samples
