#include "samples/motion.h"

#include "core/error.h"
#include "core/thread_pool.h"
#include "samples/camera_model.h"

namespace vx::samples {

GeometryImages render_geometry(const Scene& now, const Scene& previous, int width, int height) {
  VX_CHECK(width > 0 && height > 0, InvalidArgument, "image of ", width, "x", height);
  VX_CHECK(now.shape_count() == previous.shape_count(), InvalidArgument, "frames of different scenes (",
           now.shape_count(), " and ", previous.shape_count(), " shapes)");
  GeometryImages out{Image(width, height, 1), Image(width, height, 2)};
  const CameraModel camera(now.camera, width, height), previous_camera(previous.camera, width, height);
  constexpr float kFar = 1e4f;  // where rays that leave the scene are taken to end
  ThreadPool::global().parallel_for(height, [&](int64_t y0, int64_t y1) {
    for (int64_t y = y0; y < y1; ++y)
      for (int x = 0; x < width; ++x) {
        const float cx = float(x) + 0.5f, cy = float(y) + 0.5f;
        const Ray ray = camera.ray(cx, cy);
        Hit hit;
        Vec3 point;
        if (now.intersect(ray, INFINITY, hit)) {
          out.depth.at(x, int(y), 0) = hit.t;
          point = hit.position;
          const Shape& s = now.shape(hit.shape);
          if (s.kind == Shape::Kind::Sphere) point = point + (previous.shape(hit.shape).center - s.center);
        } else {
          point = ray.origin + ray.dir * kFar - now.camera.position + previous.camera.position;
        }
        float px = 0, py = 0;
        if (previous_camera.project(point, px, py)) {
          out.motion.at(x, int(y), 0) = px - cx;
          out.motion.at(x, int(y), 1) = py - cy;
        }
      }
  });
  return out;
}

}  // namespace vx::samples
