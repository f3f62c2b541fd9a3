// A small procedural scene: spheres and parallelograms with materials, a pinhole camera, an optional
// sky, and a list of parallelogram area lights for next event estimation. Intersection is brute
// force: sample scenes hold a few dozen primitives at most.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "samples/vec3.h"

namespace vx::samples {

struct Ray {
  Vec3 origin, dir;  // dir is unit length
};

enum class MaterialKind {
  Diffuse,  // Lambertian; optionally checker-textured
  Glossy,   // GGX microfacet conductor: tint is the reflectance at normal incidence
  Mirror,   // perfect specular reflection (delta)
  Glass,    // smooth dielectric: Fresnel-weighted reflection and refraction (delta)
};

struct Material {
  MaterialKind kind = MaterialKind::Diffuse;
  Vec3 color{0.8f};          // diffuse albedo or specular tint, each channel in [0, 1]
  Vec3 checker_color{-1.0f};  // second checker colour; negative = no checker
  float checker_scale = 8;    // checker squares per unit of the surface's (u, v)
  float roughness = 0.3f;     // Glossy: GGX alpha = roughness^2
  float ior = 1.5f;           // Glass: index of refraction
  Vec3 emission{0.0f};        // emitted radiance from the front side
  bool black_bsdf = false;    // a pure emitter that reflects nothing

  bool is_delta() const { return kind == MaterialKind::Mirror || kind == MaterialKind::Glass; }
  bool has_checker() const { return checker_color.x >= 0; }
};

struct Shape {
  enum class Kind { Sphere, Quad } kind = Kind::Sphere;
  // Sphere: centre and radius. Quad: the parallelogram corner + s*edge_u + t*edge_v, s,t in [0,1];
  // its front side faces cross(edge_u, edge_v).
  Vec3 center;
  float radius = 0;
  Vec3 corner, edge_u, edge_v, quad_normal;
  Vec3 quad_w;  // cross(edge_u, edge_v) / |cross(edge_u, edge_v)|^2, for the (s, t) of a hit
  float quad_area = 0;
  int material = 0;
  bool inward = false;  // sphere normals point inwards (seen from inside)
};

struct Hit {
  float t = 0;
  Vec3 position;
  Vec3 normal;  // geometric normal on the shape's front side, unit length
  float u = 0, v = 0;  // quads: distance along edge_u / edge_v; spheres: longitude, latitude in [0, 1]
  int shape = -1;
};

struct Camera {
  Vec3 position{0, 0, 0}, look_at{0, 0, -1}, up{0, 1, 0};
  float vertical_fov_deg = 40;
};

// A point chosen on a light for next event estimation.
struct LightSample {
  Vec3 position, normal, radiance;
  float pdf_area = 0;  // probability density per unit area, including the choice of the light
};

class Scene {
 public:
  std::string name;
  Camera camera;
  Vec3 sky_top{0.0f}, sky_horizon{0.0f};  // radiance of rays that leave the scene, blended by height

  int add_material(const Material& material);
  void add_sphere(const Vec3& center, float radius, int material, bool inward = false);
  // A parallelogram; `light` puts it in the light list (it must have emission).
  void add_quad(const Vec3& corner, const Vec3& edge_u, const Vec3& edge_v, int material, bool light = false);
  // An axis-aligned box with size `size` and bottom centre `base`, turned by `yaw_deg` around +y,
  // faces pointing outwards.
  void add_box(const Vec3& base, const Vec3& size, float yaw_deg, int material);

  bool intersect(const Ray& ray, float t_max, Hit& hit) const;
  bool occluded(const Ray& ray, float t_max) const;

  const Material& material_of(const Hit& hit) const { return materials_[size_t(shapes_[size_t(hit.shape)].material)]; }
  const Material& material(int index) const { return materials_[size_t(index)]; }
  // Surface colour at a hit: the material colour, or its checker pattern.
  Vec3 surface_color(const Hit& hit) const;
  Vec3 sky(const Vec3& dir) const;

  bool has_lights() const { return !lights_.empty(); }
  bool is_light(int shape) const { return shape_is_light_[size_t(shape)] != 0; }
  // Picks a light uniformly, then a point uniformly on it; u0 picks the light, u1 and u2 the point.
  LightSample sample_light(float u0, float u1, float u2) const;
  // The density sample_light gives per unit area to a point of light shape `shape`.
  float light_pdf_area(int shape) const;
  size_t shape_count() const { return shapes_.size(); }
  const Shape& shape(int index) const { return shapes_[size_t(index)]; }
  // Moves a sphere (animations); InvalidArgument for a shape that is no sphere.
  void move_sphere(int index, const Vec3& center);

 private:
  template <bool any>
  int find_hit(const Ray& ray, float t_max, float& t_hit, float& u_hit, float& v_hit) const;

  std::vector<Material> materials_;
  std::vector<Shape> shapes_;
  std::vector<int> lights_;  // shape indices
  std::vector<uint8_t> shape_is_light_;
};

}  // namespace vx::samples
