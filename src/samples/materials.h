// Scattering functions of the sample materials. Directions point away from the surface: wo towards
// the viewer, wi towards the light. `n` is the geometric normal turned to wo's side.
#pragma once
#include "samples/scene.h"

namespace vx::samples {

struct ShadingPoint {
  Vec3 n;            // unit normal on wo's side of the surface
  bool outside = true;  // wo lies on the shape's front side (matters for refraction)
  Vec3 color;        // surface colour after texturing
};

struct BsdfSample {
  Vec3 wi;
  Vec3 weight;       // f * |cos(wi, n)| / pdf: what the path throughput is multiplied by
  float pdf = 0;     // solid-angle density; meaningless for delta lobes
  bool delta = false;
};

// f(wo, wi) * cos(wi, n) for non-delta materials (zero for delta ones).
Vec3 bsdf_eval_cos(const Material& m, const ShadingPoint& sp, const Vec3& wo, const Vec3& wi);
// The solid-angle density bsdf_sample gives to wi (zero for delta materials).
float bsdf_pdf(const Material& m, const ShadingPoint& sp, const Vec3& wo, const Vec3& wi);
// Samples an incoming direction from three uniform numbers; false when the path is absorbed.
bool bsdf_sample(const Material& m, const ShadingPoint& sp, const Vec3& wo, float u1, float u2, float u3,
                 BsdfSample& out);

// Fresnel reflectance of a smooth dielectric for light arriving at cos_i from the side with index
// eta_i onto the side with eta_t (1 under total internal reflection).
float fresnel_dielectric(float cos_i, float eta_i, float eta_t);

}  // namespace vx::samples
