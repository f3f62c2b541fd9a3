#include "samples/scene.h"

#include "core/error.h"

namespace vx::samples {

namespace {
constexpr float kHitEpsilon = 1e-4f;  // scenes are a few units wide; avoids self-intersection
}  // namespace

int Scene::add_material(const Material& material) {
  for (int c = 0; c < 3; ++c) {
    VX_CHECK(material.color[c] >= 0 && material.color[c] <= 1, InvalidArgument, "scene ", name,
             ": material colour must lie in [0, 1]");
    VX_CHECK(material.emission[c] >= 0 && std::isfinite(material.emission[c]), InvalidArgument, "scene ", name,
             ": emission must be finite and non-negative");
  }
  VX_CHECK(material.ior > 1.0f, InvalidArgument, "scene ", name, ": index of refraction must exceed 1");
  materials_.push_back(material);
  return int(materials_.size()) - 1;
}

void Scene::move_sphere(int index, const Vec3& center) {
  VX_CHECK(index >= 0 && size_t(index) < shapes_.size() && shapes_[size_t(index)].kind == Shape::Kind::Sphere &&
               finite(center),
           InvalidArgument, "scene ", name, ": shape ", index, " is no sphere to move to a finite centre");
  shapes_[size_t(index)].center = center;
}

void Scene::add_sphere(const Vec3& center, float radius, int material, bool inward) {
  VX_CHECK(radius > 0 && finite(center), InvalidArgument, "scene ", name, ": sphere needs a finite centre and radius > 0");
  VX_CHECK(material >= 0 && size_t(material) < materials_.size(), InvalidArgument, "scene ", name,
           ": unknown material ", material);
  Shape s;
  s.kind = Shape::Kind::Sphere;
  s.center = center;
  s.radius = radius;
  s.material = material;
  s.inward = inward;
  shapes_.push_back(s);
  shape_is_light_.push_back(0);
}

void Scene::add_quad(const Vec3& corner, const Vec3& edge_u, const Vec3& edge_v, int material, bool light) {
  VX_CHECK(material >= 0 && size_t(material) < materials_.size(), InvalidArgument, "scene ", name,
           ": unknown material ", material);
  Vec3 n = cross(edge_u, edge_v);
  float area = length(n);
  VX_CHECK(area > 0 && std::isfinite(area) && finite(corner), InvalidArgument, "scene ", name,
           ": a quad needs two non-parallel finite edges");
  VX_CHECK(!light || !is_black(materials_[size_t(material)].emission), InvalidArgument, "scene ", name,
           ": a light quad needs an emissive material");
  Shape s;
  s.kind = Shape::Kind::Quad;
  s.corner = corner;
  s.edge_u = edge_u;
  s.edge_v = edge_v;
  s.quad_normal = n / area;
  s.quad_w = n / dot(n, n);
  s.quad_area = area;
  s.material = material;
  if (light) lights_.push_back(int(shapes_.size()));
  shapes_.push_back(s);
  shape_is_light_.push_back(light ? 1 : 0);
}

void Scene::add_box(const Vec3& base, const Vec3& size, float yaw_deg, int material) {
  float a = yaw_deg * kPi / 180.0f;
  float c = std::cos(a), s = std::sin(a);
  // Local axes of the box in world space.
  Vec3 ax = Vec3(c, 0, -s) * size.x, ay = Vec3(0, size.y, 0), az = Vec3(s, 0, c) * size.z;
  Vec3 o = base - ax * 0.5f - az * 0.5f;  // the (0,0,0) corner
  // Each face: corner and two edges ordered so that cross(u, v) points out of the box.
  add_quad(o, ax, az, material);       // bottom (-y)
  add_quad(o + ay, az, ax, material);  // top (+y)
  add_quad(o, ay, ax, material);       // -z
  add_quad(o + az, ax, ay, material);  // +z
  add_quad(o, az, ay, material);       // -x
  add_quad(o + ax, ay, az, material);  // +x
}

// Closest hit, or with `any` the first hit found (enough for shadow rays).
template <bool any>
int Scene::find_hit(const Ray& ray, float t_max, float& t_hit, float& u_hit, float& v_hit) const {
  float best = t_max;
  int best_shape = -1;
  float best_u = 0, best_v = 0;
  for (size_t i = 0; i < shapes_.size(); ++i) {
    const Shape& s = shapes_[i];
    if (s.kind == Shape::Kind::Sphere) {
      Vec3 oc = ray.origin - s.center;
      float b = dot(oc, ray.dir);
      float c = dot(oc, oc) - s.radius * s.radius;
      float disc = b * b - c;
      if (disc < 0) continue;
      float root = std::sqrt(disc);
      float t = -b - root;
      if (t <= kHitEpsilon) t = -b + root;
      if (t <= kHitEpsilon || t >= best) continue;
      if constexpr (any) return int(i);
      best = t;
      best_shape = int(i);
    } else {
      float denom = dot(s.quad_normal, ray.dir);
      if (std::abs(denom) < 1e-9f) continue;
      float t = dot(s.corner - ray.origin, s.quad_normal) / denom;
      if (t <= kHitEpsilon || t >= best) continue;
      Vec3 rel = ray.origin + ray.dir * t - s.corner;
      float a = dot(s.quad_w, cross(rel, s.edge_v));
      float b = dot(s.quad_w, cross(s.edge_u, rel));
      if (a < 0 || a > 1 || b < 0 || b > 1) continue;
      if constexpr (any) return int(i);
      best = t;
      best_shape = int(i);
      best_u = a;
      best_v = b;
    }
  }
  t_hit = best;
  u_hit = best_u;
  v_hit = best_v;
  return best_shape;
}

bool Scene::intersect(const Ray& ray, float t_max, Hit& hit) const {
  float best = 0, best_u = 0, best_v = 0;
  int best_shape = find_hit<false>(ray, t_max, best, best_u, best_v);
  if (best_shape < 0) return false;
  const Shape& s = shapes_[size_t(best_shape)];
  hit.t = best;
  hit.position = ray.origin + ray.dir * best;
  hit.shape = best_shape;
  if (s.kind == Shape::Kind::Sphere) {
    Vec3 n = normalize(hit.position - s.center);
    hit.u = std::atan2(n.z, n.x) / (2 * kPi) + 0.5f;
    hit.v = std::acos(std::clamp(n.y, -1.0f, 1.0f)) / kPi;
    hit.normal = s.inward ? -n : n;
  } else {
    hit.normal = s.quad_normal;
    hit.u = best_u * length(s.edge_u);  // world units along the edges, so checkers stay square
    hit.v = best_v * length(s.edge_v);
  }
  return true;
}

bool Scene::occluded(const Ray& ray, float t_max) const {
  float t, u, v;
  return find_hit<true>(ray, t_max, t, u, v) >= 0;
}

Vec3 Scene::surface_color(const Hit& hit) const {
  const Material& m = material_of(hit);
  if (!m.has_checker()) return m.color;
  int cu = int(std::floor(hit.u * m.checker_scale));
  int cv = int(std::floor(hit.v * m.checker_scale));
  return ((cu + cv) & 1) ? m.checker_color : m.color;
}

Vec3 Scene::sky(const Vec3& dir) const {
  float h = std::clamp(dir.y, 0.0f, 1.0f);
  return sky_horizon * (1 - h) + sky_top * h;
}

LightSample Scene::sample_light(float u0, float u1, float u2) const {
  size_t n = lights_.size();
  size_t pick = std::min(n - 1, size_t(u0 * float(n)));
  const Shape& s = shapes_[size_t(lights_[pick])];
  LightSample ls;
  ls.position = s.corner + s.edge_u * u1 + s.edge_v * u2;
  ls.normal = s.quad_normal;
  ls.radiance = materials_[size_t(s.material)].emission;
  ls.pdf_area = 1.0f / (s.quad_area * float(n));
  return ls;
}

float Scene::light_pdf_area(int shape) const {
  return 1.0f / (shapes_[size_t(shape)].quad_area * float(lights_.size()));
}

}  // namespace vx::samples
