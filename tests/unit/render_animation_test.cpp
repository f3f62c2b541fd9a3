// Animated sample scenes (samples/animation.h) and their motion vectors (samples/motion.h). The
// motion convention is checked end to end: world-space normals do not change when the camera moves
// (or a sphere translates), so frame 1's normal image must equal frame 0's sampled where the motion
// vectors point, on at least 90% of the hit pixels, and clearly more of them than without the motion.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "samples/animation.h"
#include "samples/camera_model.h"
#include "samples/motion.h"
#include "samples/path_tracer.h"

namespace vx::samples {
namespace {

TEST(CameraModel, ProjectsBackToThePixelItsRayCameFrom) {
  Camera c;
  c.position = Vec3(0.3f, 1.2f, 4.0f);
  c.look_at = Vec3(-0.2f, 0.5f, 0.0f);
  c.vertical_fov_deg = 35;
  const CameraModel camera(c, 97, 61);
  for (float y : {0.5f, 13.25f, 60.9f})
    for (float x : {0.0f, 48.5f, 96.75f})
      for (float distance : {0.5f, 3.0f, 40.0f}) {
        const Ray r = camera.ray(x, y);
        float px = -1, py = -1;
        ASSERT_TRUE(camera.project(r.origin + r.dir * distance, px, py));
        EXPECT_NEAR(px, x, 2e-3f);
        EXPECT_NEAR(py, y, 2e-3f);
      }
  float px, py;
  EXPECT_FALSE(camera.project(c.position - normalize(c.look_at - c.position), px, py)) << "behind the camera";
}

// Of the pixels that hit a surface in both frames (away from the image border), the fraction whose
// frame-1 normal matches frame 0's at the pixel `motion` points to (or at the same pixel when
// `use_motion` is false), and how many such pixels moved by at least half a pixel.
struct WarpCheck {
  double matched = 0;
  int moved = 0;
};
WarpCheck warp_check(const RenderOutput& f0, const RenderOutput& f1, const GeometryImages& g1, bool use_motion,
                     bool moved_only) {
  int total = 0, matched = 0, moved = 0;
  for (int y = 0; y < g1.depth.height; ++y)
    for (int x = 0; x < g1.depth.width; ++x) {
      if (g1.depth.at(x, y, 0) <= 0) continue;
      const float dx = g1.motion.at(x, y, 0), dy = g1.motion.at(x, y, 1);
      const bool is_moving = std::hypot(dx, dy) >= 0.5f;
      moved += is_moving;
      if (moved_only && !is_moving) continue;
      const int sx = use_motion ? int(std::floor(float(x) + 0.5f + dx)) : x;
      const int sy = use_motion ? int(std::floor(float(y) + 0.5f + dy)) : y;
      if (sx < 1 || sy < 1 || sx >= g1.depth.width - 1 || sy >= g1.depth.height - 1) continue;
      ++total;
      float diff = 0;
      for (int c = 0; c < 3; ++c) diff = std::max(diff, std::fabs(f1.normal.at(x, y, c) - f0.normal.at(sx, sy, c)));
      matched += diff < 0.1f;
    }
  return {total ? double(matched) / total : 0.0, moved};
}

// `min_gain`: how many more pixels match with the motion than without (scenes of flat walls, whose
// normals are the same at the next pixel, gain little).
void check_animation(const std::string& scene_name, const Animation& animation, bool moved_only, double min_gain) {
  SCOPED_TRACE(scene_name + " " + camera_path_names()[size_t(animation.camera)] +
               (animation.moving_object ? " moving" : ""));
  const Scene base = make_scene(scene_name);
  RenderSettings settings;
  settings.width = 96;
  settings.height = 64;
  settings.spp = 16;
  const Scene s0 = animated_scene(base, animation, 0), s1 = animated_scene(base, animation, 1);
  const RenderOutput f0 = render(s0, settings), f1 = render(s1, settings);
  const GeometryImages g1 = render_geometry(s1, s0, settings.width, settings.height);
  const WarpCheck with = warp_check(f0, f1, g1, true, moved_only), without = warp_check(f0, f1, g1, false, moved_only);
  EXPECT_GT(with.moved, 100) << "too little motion to test";
  // Silhouettes (a pixel's normal averages two surfaces) and disocclusions account for the rest.
  EXPECT_GE(with.matched, 0.85);
  EXPECT_GE(with.matched, without.matched + min_gain) << "the motion vectors explain no more than standing still";
}

TEST(AnimatedScenes, MotionVectorsPointToWhereTheSurfaceWas) {
  // Measured: matched with / without motion 0.93 / 0.98 (room: walls), 0.94 / 0.57, 0.93 / 0.81,
  // and 0.89 / 0.00 on the moving sphere's own pixels.
  check_animation("room", {8, CameraPath::orbit, false}, false, -0.06);
  check_animation("spheres", {8, CameraPath::pan, false}, false, 0.3);
  check_animation("interior", {8, CameraPath::dolly, false}, false, 0.08);
  // A still camera: only the moving sphere's pixels move.
  check_animation("spheres", {8, CameraPath::still, true}, true, 0.8);
}

TEST(AnimatedScenes, FramesAndPathsAreChecked) {
  const Scene base = make_scene("room");
  EXPECT_THROW(parse_camera_path("spiral"), Error);
  EXPECT_THROW(animated_scene(base, {4, CameraPath::orbit, false}, 4), Error);
  // Frame 0 is the scene itself; a still animation without motion gives zero motion vectors.
  const Scene first = animated_scene(base, {4, CameraPath::orbit, true}, 0);
  EXPECT_EQ(first.camera.position.x, base.camera.position.x);
  const GeometryImages g = render_geometry(base, base, 17, 11);
  for (float v : g.motion.pixels) EXPECT_NEAR(v, 0.0f, 1e-4f);
  EXPECT_GE(moving_sphere(base, {2, CameraPath::still, true}), 0);
  EXPECT_EQ(moving_sphere(base, {2, CameraPath::still, false}), -1);
}

}  // namespace
}  // namespace vx::samples
