// The pinhole camera of a sample scene as the renderer uses it: the ray through a point of the image
// and, the other way round, where a world point lands in the image (motion vectors). Pixel (x, y)
// covers [x, x + 1) x [y, y + 1), y down from the top row; its centre is (x + 0.5, y + 0.5).
#pragma once
#include <cmath>

#include "samples/scene.h"

namespace vx::samples {

class CameraModel {
 public:
  CameraModel(const Camera& c, int width, int height)
      : origin_(c.position), width_(width), height_(height), inv_w_(1.0f / float(width)), inv_h_(1.0f / float(height)) {
    const float tan_half = std::tan(c.vertical_fov_deg * kPi / 360.0f);
    forward_ = normalize(c.look_at - c.position);
    right_unit_ = normalize(cross(forward_, c.up));
    up_unit_ = cross(right_unit_, forward_);
    right_scale_ = tan_half * float(width) / float(height);
    up_scale_ = tan_half;
    right_ = right_unit_ * right_scale_;
    up_ = up_unit_ * up_scale_;
  }
  // The ray through image point (x, y), in pixels.
  Ray ray(float x, float y) const {
    const float sx = 2 * x * inv_w_ - 1, sy = 1 - 2 * y * inv_h_;
    return {origin_, normalize(forward_ + right_ * sx + up_ * sy)};
  }
  // The image point (in pixels) that `p` projects to; false when `p` is not in front of the camera.
  bool project(const Vec3& p, float& x, float& y) const {
    const Vec3 v = p - origin_;
    const float depth = dot(v, forward_);
    if (!(depth > 1e-6f)) return false;
    const float sx = dot(v, right_unit_) / (depth * right_scale_), sy = dot(v, up_unit_) / (depth * up_scale_);
    x = (sx + 1) * 0.5f * float(width_);
    y = (1 - sy) * 0.5f * float(height_);
    return true;
  }

 private:
  Vec3 origin_, forward_, right_unit_, up_unit_, right_, up_;
  float right_scale_ = 1, up_scale_ = 1;
  int width_ = 1, height_ = 1;
  float inv_w_ = 1, inv_h_ = 1;
};

}  // namespace vx::samples
