// Animated sample scenes, for temporal denoising: frame f of N is the base scene with its camera
// moved along a path and, optionally, one object moved, both as functions of t = f / (N - 1).
#pragma once
#include <string>
#include <vector>

#include "samples/scene.h"

namespace vx::samples {

enum class CameraPath {
  still,  // the scene's own camera
  orbit,  // 12 degrees about the vertical axis through the look-at point (inside the closed room)
  dolly,  // 30% of the way towards the look-at point
  pan,    // the look-at point moved sideways by 20% of the viewing distance
};
std::vector<std::string> camera_path_names();  // "still", "orbit", "dolly", "pan"
// InvalidArgument listing the names for an unknown one.
CameraPath parse_camera_path(const std::string& name);

struct Animation {
  int frames = 1;
  CameraPath camera = CameraPath::still;
  // The scene's first sphere that emits nothing moves sideways (along the camera's right) by three
  // of its radii over the sequence.
  bool moving_object = false;
};

// The base scene at frame `frame` (0-based) of the animation; shapes keep their order and indices.
Scene animated_scene(const Scene& base, const Animation& animation, int frame);
// The sphere that moves (-1 when the scene has none or the animation moves nothing).
int moving_sphere(const Scene& scene, const Animation& animation);

}  // namespace vx::samples
