// A three-float vector for the sample path tracer: points, directions and RGB radiance alike.
#pragma once
#include <algorithm>
#include <cmath>

namespace vx::samples {

struct Vec3 {
  float x = 0, y = 0, z = 0;
  constexpr Vec3() = default;
  constexpr Vec3(float x_, float y_, float z_) : x(x_), y(y_), z(z_) {}
  constexpr explicit Vec3(float v) : x(v), y(v), z(v) {}

  constexpr Vec3 operator-() const { return {-x, -y, -z}; }
  constexpr Vec3& operator+=(const Vec3& o) { x += o.x; y += o.y; z += o.z; return *this; }
  constexpr Vec3& operator*=(const Vec3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  constexpr Vec3& operator*=(float s) { x *= s; y *= s; z *= s; return *this; }
  constexpr Vec3& operator/=(float s) { return *this *= 1.0f / s; }
  constexpr float operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};

constexpr Vec3 operator+(Vec3 a, const Vec3& b) { return a += b; }
constexpr Vec3 operator-(const Vec3& a, const Vec3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
constexpr Vec3 operator*(Vec3 a, const Vec3& b) { return a *= b; }
constexpr Vec3 operator*(Vec3 a, float s) { return a *= s; }
constexpr Vec3 operator*(float s, Vec3 a) { return a *= s; }
constexpr Vec3 operator/(Vec3 a, float s) { return a /= s; }

constexpr float dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
constexpr Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline float length(const Vec3& a) { return std::sqrt(dot(a, a)); }
inline Vec3 normalize(const Vec3& a) { return a / length(a); }
constexpr float max_component(const Vec3& a) { return std::max(a.x, std::max(a.y, a.z)); }
constexpr bool is_black(const Vec3& a) { return a.x <= 0 && a.y <= 0 && a.z <= 0; }
constexpr Vec3 clamp01(const Vec3& a) {
  return {std::clamp(a.x, 0.0f, 1.0f), std::clamp(a.y, 0.0f, 1.0f), std::clamp(a.z, 0.0f, 1.0f)};
}
inline bool finite(const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// Mirror reflection of the incoming direction d about n.
constexpr Vec3 reflect(const Vec3& d, const Vec3& n) { return d - n * (2 * dot(d, n)); }

// An orthonormal basis around a unit normal (Duff et al. 2017, branchless).
struct Frame {
  Vec3 t, b, n;
  explicit Frame(const Vec3& normal) : n(normal) {
    float sign = std::copysign(1.0f, n.z);
    float a = -1.0f / (sign + n.z);
    float c = n.x * n.y * a;
    t = {1.0f + sign * n.x * n.x * a, sign * c, -sign * n.x};
    b = {c, sign + n.y * n.y * a, -n.y};
  }
  Vec3 to_world(const Vec3& v) const { return t * v.x + b * v.y + n * v.z; }
  Vec3 to_local(const Vec3& v) const { return {dot(v, t), dot(v, b), dot(v, n)}; }
};

inline constexpr float kPi = 3.14159265358979323846f;

}  // namespace vx::samples
