// The procedural sample scenes. Units are metres-ish; every scene is closed or has a sky so that
// radiance is well defined everywhere.
#include <functional>
#include <map>

#include "core/error.h"
#include "samples/path_tracer.h"

namespace vx::samples {

namespace {

Material diffuse(Vec3 color) {
  Material m;
  m.kind = MaterialKind::Diffuse;
  m.color = color;
  return m;
}

Material checker(Vec3 a, Vec3 b, float squares_per_unit) {
  Material m = diffuse(a);
  m.checker_color = b;
  m.checker_scale = squares_per_unit;
  return m;
}

Material glossy(Vec3 tint, float roughness) {
  Material m;
  m.kind = MaterialKind::Glossy;
  m.color = tint;
  m.roughness = roughness;
  return m;
}

Material mirror(Vec3 tint) {
  Material m;
  m.kind = MaterialKind::Mirror;
  m.color = tint;
  return m;
}

Material glass(float ior) {
  Material m;
  m.kind = MaterialKind::Glass;
  m.color = Vec3(1.0f);
  m.ior = ior;
  return m;
}

Material emitter(Vec3 radiance) {
  Material m;
  m.color = Vec3(0.0f);
  m.emission = radiance;
  m.black_bsdf = true;
  return m;
}

// An axis-aligned room [x0,x1] x [y0,y1] x [z0,z1] with every wall facing inwards.
struct RoomMaterials {
  int floor, ceiling, back, front, left, right;
};
void add_room(Scene& s, Vec3 lo, Vec3 hi, const RoomMaterials& m) {
  Vec3 dx(hi.x - lo.x, 0, 0), dy(0, hi.y - lo.y, 0), dz(0, 0, hi.z - lo.z);
  s.add_quad(lo, dz, dx, m.floor);                              // y = y0, normal +y
  s.add_quad(Vec3(lo.x, hi.y, lo.z), dx, dz, m.ceiling);        // y = y1, normal -y
  s.add_quad(lo, dx, dy, m.back);                               // z = z0, normal +z
  s.add_quad(Vec3(lo.x, lo.y, hi.z), dy, dx, m.front);          // z = z1, normal -z
  s.add_quad(lo, dy, dz, m.left);                               // x = x0, normal +x
  s.add_quad(Vec3(hi.x, lo.y, lo.z), dz, dy, m.right);          // x = x1, normal -x
}

// Cornell-like closed room: red and green side walls, checker floor, a small bright ceiling light,
// a glossy gold box, a mirror sphere, a glass sphere and a dim glowing sphere.
Scene room() {
  Scene s;
  s.name = "room";
  s.camera = {Vec3(0, 1.0f, 3.4f), Vec3(0, 0.9f, 0), Vec3(0, 1, 0), 42};
  int white = s.add_material(diffuse(Vec3(0.73f)));
  int red = s.add_material(diffuse(Vec3(0.63f, 0.065f, 0.05f)));
  int green = s.add_material(diffuse(Vec3(0.14f, 0.45f, 0.091f)));
  int floor = s.add_material(checker(Vec3(0.75f, 0.72f, 0.66f), Vec3(0.12f, 0.12f, 0.14f), 4));
  add_room(s, Vec3(-1, 0, -1), Vec3(1, 2, 4), {floor, white, white, white, red, green});

  int light = s.add_material(emitter(Vec3(34, 26, 16)));
  s.add_quad(Vec3(-0.22f, 1.995f, -0.35f), Vec3(0.44f, 0, 0), Vec3(0, 0, 0.36f), light, true);

  s.add_box(Vec3(0.42f, 0, -0.45f), Vec3(0.5f, 0.95f, 0.5f), 22, s.add_material(glossy(Vec3(1.0f, 0.78f, 0.34f), 0.25f)));
  s.add_sphere(Vec3(-0.48f, 0.36f, -0.35f), 0.36f, s.add_material(mirror(Vec3(0.95f))));
  s.add_sphere(Vec3(0.38f, 0.28f, 0.55f), 0.28f, s.add_material(glass(1.5f)));
  Material glow = diffuse(Vec3(0.2f, 0.3f, 0.5f));
  glow.emission = Vec3(0.6f, 1.8f, 4.0f);
  s.add_sphere(Vec3(-0.45f, 0.14f, 0.7f), 0.14f, s.add_material(glow));
  return s;
}

// Open air: spheres of every material on a checker ground under a blue sky and a small sun-like
// area light.
Scene spheres() {
  Scene s;
  s.name = "spheres";
  s.camera = {Vec3(0, 1.3f, 4.5f), Vec3(0, 0.5f, 0), Vec3(0, 1, 0), 38};
  s.sky_top = Vec3(0.25f, 0.45f, 0.9f);
  s.sky_horizon = Vec3(0.8f, 0.85f, 0.95f);
  int ground = s.add_material(checker(Vec3(0.8f), Vec3(0.2f, 0.25f, 0.3f), 1));
  s.add_quad(Vec3(-20, 0, -20), Vec3(0, 0, 40), Vec3(40, 0, 0), ground);
  int sun = s.add_material(emitter(Vec3(300, 280, 240)));
  s.add_quad(Vec3(2.5f, 6, 1.5f), Vec3(0.5f, 0, 0), Vec3(0, 0, 0.5f), sun, true);  // faces down
  s.add_sphere(Vec3(-1.6f, 0.5f, 0), 0.5f, s.add_material(diffuse(Vec3(0.8f, 0.3f, 0.2f))));
  s.add_sphere(Vec3(-0.5f, 0.5f, -0.6f), 0.5f, s.add_material(mirror(Vec3(0.9f))));
  s.add_sphere(Vec3(0.55f, 0.5f, 0.2f), 0.5f, s.add_material(glass(1.5f)));
  s.add_sphere(Vec3(1.7f, 0.5f, -0.3f), 0.5f, s.add_material(glossy(Vec3(0.95f, 0.64f, 0.54f), 0.25f)));
  s.add_sphere(Vec3(0.2f, 0.25f, 1.3f), 0.25f, s.add_material(checker(Vec3(0.9f), Vec3(0.1f, 0.4f, 0.8f), 8)));
  return s;
}

// A room lit only indirectly: a small light on top of a tall cabinet shines at the ceiling, so the
// camera sees no light source and nearly all illumination has bounced at least once.
Scene interior() {
  Scene s;
  s.name = "interior";
  s.camera = {Vec3(-1.2f, 1.4f, 2.6f), Vec3(0.3f, 0.8f, -0.5f), Vec3(0, 1, 0), 55};
  int wall = s.add_material(diffuse(Vec3(0.8f, 0.78f, 0.72f)));
  int ceiling = s.add_material(diffuse(Vec3(0.85f)));
  int accent = s.add_material(diffuse(Vec3(0.25f, 0.4f, 0.6f)));
  int floor = s.add_material(checker(Vec3(0.55f, 0.38f, 0.24f), Vec3(0.35f, 0.22f, 0.13f), 2.5f));
  add_room(s, Vec3(-2, 0, -2), Vec3(2, 2.6f, 3), {floor, ceiling, accent, wall, wall, wall});

  int cabinet = s.add_material(diffuse(Vec3(0.3f, 0.3f, 0.32f)));
  s.add_box(Vec3(1.6f, 0, -1.6f), Vec3(0.6f, 2.0f, 0.6f), 0, cabinet);
  int lamp = s.add_material(emitter(Vec3(150, 130, 100)));
  s.add_quad(Vec3(1.45f, 2.005f, -1.75f), Vec3(0, 0, 0.3f), Vec3(0.3f, 0, 0), lamp, true);  // faces up

  s.add_box(Vec3(-0.4f, 0, -0.6f), Vec3(1.4f, 0.45f, 0.8f), -12, s.add_material(diffuse(Vec3(0.7f, 0.25f, 0.2f))));
  s.add_sphere(Vec3(-0.5f, 0.75f, -0.6f), 0.3f, s.add_material(glossy(Vec3(0.9f), 0.2f)));
  s.add_sphere(Vec3(0.6f, 0.35f, 0.4f), 0.35f, s.add_material(glass(1.45f)));
  s.add_sphere(Vec3(-1.5f, 0.4f, 0.9f), 0.4f, s.add_material(mirror(Vec3(0.9f, 0.95f, 1.0f))));
  return s;
}

const std::map<std::string, std::function<Scene()>>& registry() {
  static const std::map<std::string, std::function<Scene()>> scenes = {
      {"interior", interior}, {"room", room}, {"spheres", spheres}};
  return scenes;
}

}  // namespace

std::vector<std::string> scene_names() {
  std::vector<std::string> names;
  for (const auto& [name, build] : registry()) names.push_back(name);
  return names;
}

Scene make_scene(const std::string& name) {
  auto it = registry().find(name);
  if (it == registry().end()) {
    std::string known;
    for (const auto& n : scene_names()) known += (known.empty() ? "" : ", ") + n;
    fail(ErrorCode::InvalidArgument, cat("unknown scene '", name, "'; known scenes: ", known));
  }
  return it->second();
}

}  // namespace vx::samples
