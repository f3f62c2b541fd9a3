#include "samples/materials.h"

namespace vx::samples {

namespace {

// GGX (Trowbridge-Reitz) normal distribution, Smith masking and Schlick Fresnel for the Glossy
// material; alpha = roughness^2 with a floor so that the lobe never becomes a delta.
float ggx_alpha(const Material& m) { return std::max(0.02f, m.roughness * m.roughness); }

float ggx_d(float cos_h, float alpha) {
  float a2 = alpha * alpha;
  float t = cos_h * cos_h * (a2 - 1) + 1;
  return a2 / (kPi * t * t);
}

float smith_g1(float cos_v, float alpha) {
  float a2 = alpha * alpha;
  return 2 * cos_v / (cos_v + std::sqrt(a2 + (1 - a2) * cos_v * cos_v));
}

Vec3 schlick(const Vec3& f0, float cos_d) {
  float k = std::pow(1 - std::clamp(cos_d, 0.0f, 1.0f), 5.0f);
  return f0 + (Vec3(1.0f) - f0) * k;
}

Vec3 glossy_eval_cos(const ShadingPoint& sp, float alpha, const Vec3& wo, const Vec3& wi) {
  float cos_o = dot(wo, sp.n), cos_i = dot(wi, sp.n);
  if (cos_o <= 0 || cos_i <= 0) return Vec3(0.0f);
  Vec3 h = normalize(wo + wi);
  float d = ggx_d(dot(h, sp.n), alpha);
  float g = smith_g1(cos_o, alpha) * smith_g1(cos_i, alpha);
  return schlick(sp.color, dot(wi, h)) * (d * g / (4 * cos_o));
}

float glossy_pdf(const ShadingPoint& sp, float alpha, const Vec3& wo, const Vec3& wi) {
  if (dot(wo, sp.n) <= 0 || dot(wi, sp.n) <= 0) return 0;
  Vec3 h = normalize(wo + wi);
  float cos_h = dot(h, sp.n);
  return ggx_d(cos_h, alpha) * cos_h / (4 * std::max(1e-7f, dot(wo, h)));
}

}  // namespace

float fresnel_dielectric(float cos_i, float eta_i, float eta_t) {
  cos_i = std::clamp(cos_i, 0.0f, 1.0f);
  float sin_t = eta_i / eta_t * std::sqrt(std::max(0.0f, 1 - cos_i * cos_i));
  if (sin_t >= 1) return 1;
  float cos_t = std::sqrt(std::max(0.0f, 1 - sin_t * sin_t));
  float r_par = (eta_t * cos_i - eta_i * cos_t) / (eta_t * cos_i + eta_i * cos_t);
  float r_perp = (eta_i * cos_i - eta_t * cos_t) / (eta_i * cos_i + eta_t * cos_t);
  return 0.5f * (r_par * r_par + r_perp * r_perp);
}

Vec3 bsdf_eval_cos(const Material& m, const ShadingPoint& sp, const Vec3& wo, const Vec3& wi) {
  if (m.black_bsdf) return Vec3(0.0f);
  switch (m.kind) {
    case MaterialKind::Diffuse: {
      float c = dot(wi, sp.n);
      return c > 0 ? sp.color * (c / kPi) : Vec3(0.0f);
    }
    case MaterialKind::Glossy:
      return glossy_eval_cos(sp, ggx_alpha(m), wo, wi);
    default:
      return Vec3(0.0f);
  }
}

float bsdf_pdf(const Material& m, const ShadingPoint& sp, const Vec3& wo, const Vec3& wi) {
  if (m.black_bsdf) return 0;
  switch (m.kind) {
    case MaterialKind::Diffuse:
      return std::max(0.0f, dot(wi, sp.n)) / kPi;
    case MaterialKind::Glossy:
      return glossy_pdf(sp, ggx_alpha(m), wo, wi);
    default:
      return 0;
  }
}

bool bsdf_sample(const Material& m, const ShadingPoint& sp, const Vec3& wo, float u1, float u2, float u3,
                 BsdfSample& out) {
  if (m.black_bsdf) return false;
  Frame frame(sp.n);
  switch (m.kind) {
    case MaterialKind::Diffuse: {
      // Cosine-weighted hemisphere: the density cancels the cosine and 1/pi of the BRDF.
      float r = std::sqrt(u1), phi = 2 * kPi * u2;
      float z = std::sqrt(std::max(0.0f, 1 - u1));
      out.wi = frame.to_world({r * std::cos(phi), r * std::sin(phi), z});
      out.pdf = z / kPi;
      out.weight = sp.color;
      out.delta = false;
      return out.pdf > 0;
    }
    case MaterialKind::Glossy: {
      // Half vector from D(h) cos(h): tan^2(theta) = alpha^2 u / (1 - u).
      float alpha = ggx_alpha(m);
      float tan2 = alpha * alpha * u1 / std::max(1e-7f, 1 - u1);
      float cos_h = 1 / std::sqrt(1 + tan2);
      float sin_h = std::sqrt(std::max(0.0f, 1 - cos_h * cos_h));
      float phi = 2 * kPi * u2;
      Vec3 h = frame.to_world({sin_h * std::cos(phi), sin_h * std::sin(phi), cos_h});
      out.wi = reflect(-wo, h);
      if (dot(out.wi, sp.n) <= 0) return false;
      out.pdf = glossy_pdf(sp, alpha, wo, out.wi);
      if (!(out.pdf > 0)) return false;
      out.weight = glossy_eval_cos(sp, alpha, wo, out.wi) / out.pdf;
      out.delta = false;
      return true;
    }
    case MaterialKind::Mirror:
      out.wi = reflect(-wo, sp.n);
      out.weight = sp.color;
      out.pdf = 0;
      out.delta = true;
      return true;
    case MaterialKind::Glass: {
      float eta_i = sp.outside ? 1.0f : m.ior;
      float eta_t = sp.outside ? m.ior : 1.0f;
      float cos_i = std::clamp(dot(wo, sp.n), 0.0f, 1.0f);
      float f = fresnel_dielectric(cos_i, eta_i, eta_t);
      out.delta = true;
      out.pdf = 0;
      out.weight = sp.color;  // reflection chosen with probability F, refraction with 1 - F
      if (u3 < f) {
        out.wi = reflect(-wo, sp.n);
      } else {
        float eta = eta_i / eta_t;
        float cos_t = std::sqrt(std::max(0.0f, 1 - eta * eta * (1 - cos_i * cos_i)));
        out.wi = normalize(-wo * eta + sp.n * (eta * cos_i - cos_t));
      }
      return true;
    }
  }
  return false;
}

}  // namespace vx::samples
