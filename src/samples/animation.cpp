#include "samples/animation.h"

#include <cmath>

#include "core/error.h"

namespace vx::samples {

std::vector<std::string> camera_path_names() { return {"still", "orbit", "dolly", "pan"}; }

CameraPath parse_camera_path(const std::string& name) {
  const std::vector<std::string> names = camera_path_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return CameraPath(i);
  fail(ErrorCode::InvalidArgument, cat("unknown camera path '", name, "' (still, orbit, dolly or pan)"));
}

int moving_sphere(const Scene& scene, const Animation& animation) {
  if (!animation.moving_object) return -1;
  for (size_t i = 0; i < scene.shape_count(); ++i) {
    const Shape& s = scene.shape(int(i));
    const Material& m = scene.material(s.material);
    if (s.kind == Shape::Kind::Sphere && !s.inward && max_component(m.emission) <= 0 && !scene.is_light(int(i)))
      return int(i);
  }
  return -1;
}

Scene animated_scene(const Scene& base, const Animation& animation, int frame) {
  VX_CHECK(animation.frames >= 1 && frame >= 0 && frame < animation.frames, InvalidArgument, "frame ", frame, " of ",
           animation.frames);
  const float t = animation.frames > 1 ? float(frame) / float(animation.frames - 1) : 0.0f;
  Scene scene = base;
  Camera& c = scene.camera;
  const Vec3 view = c.look_at - c.position;
  const float distance = length(view);
  const Vec3 right = normalize(cross(view, c.up));
  switch (animation.camera) {
    case CameraPath::still:
      break;
    case CameraPath::orbit: {
      const float a = t * 12.0f * kPi / 180.0f, ca = std::cos(a), sa = std::sin(a);
      const Vec3 r = c.position - c.look_at;  // rotated about +y through the look-at point
      c.position = c.look_at + Vec3(ca * r.x + sa * r.z, r.y, -sa * r.x + ca * r.z);
      break;
    }
    case CameraPath::dolly:
      c.position = c.position + view * (0.3f * t);
      break;
    case CameraPath::pan:
      c.look_at = c.look_at + right * (0.2f * distance * t);
      break;
  }
  if (const int s = moving_sphere(base, animation); s >= 0) {
    const Shape& sphere = base.shape(s);
    scene.move_sphere(s, sphere.center + right * (3.0f * sphere.radius * t));
  }
  return scene;
}

}  // namespace vx::samples
