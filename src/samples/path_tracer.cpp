#include "samples/path_tracer.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/thread_pool.h"
#include "samples/camera_model.h"
#include "samples/materials.h"
#include "samples/rng.h"

namespace vx::samples {

namespace {

constexpr float kRayOffset = 1e-4f;
constexpr int kRouletteDepth = 3;  // paths shorter than this are never cut

struct PixelSample {
  Vec3 radiance, albedo, normal;
};

float power_heuristic(float pdf_a, float pdf_b) {
  float a = pdf_a * pdf_a, b = pdf_b * pdf_b;
  return a + b > 0 ? a / (a + b) : 0;
}

// Starts a ray just off the surface on the side it leaves towards.
Ray spawn(const Hit& hit, const Vec3& dir) {
  Vec3 side = dot(dir, hit.normal) > 0 ? hit.normal : -hit.normal;
  return {hit.position + side * kRayOffset, dir};
}

Vec3 first_hit_albedo(const Scene& scene, const Material& m, const Hit& hit) {
  if (m.black_bsdf) {
    float peak = max_component(m.emission);
    return peak > 0 ? clamp01(m.emission / peak) : Vec3(0.0f);
  }
  // Diffuse: its (textured) colour; glossy, mirror and glass: their specular tint (OIDN's guidance
  // for metallic and perfectly specular surfaces).
  return clamp01(scene.surface_color(hit));
}

PixelSample trace_path(const Scene& scene, Ray ray, int max_depth, Rng& rng) {
  PixelSample out;
  Vec3 beta(1.0f);
  float prev_pdf = 0;       // solid-angle density of the BSDF sample that produced `ray`
  bool prev_delta = true;   // the camera ray counts as a delta "bounce": its emission is never weighted
  for (int depth = 0;; ++depth) {
    Hit hit;
    if (!scene.intersect(ray, INFINITY, hit)) {
      Vec3 sky = scene.sky(ray.dir);
      out.radiance += beta * sky;
      if (depth == 0) out.albedo = clamp01(sky);
      break;
    }
    const Material& m = scene.material_of(hit);
    Vec3 wo = -ray.dir;
    bool outside = dot(wo, hit.normal) > 0;
    ShadingPoint sp{outside ? hit.normal : -hit.normal, outside, scene.surface_color(hit)};

    if (outside && !is_black(m.emission)) {
      float weight = 1;
      if (!prev_delta && scene.is_light(hit.shape)) {
        // This light could also have been reached by next event estimation from the previous vertex.
        float cos_light = dot(wo, hit.normal);
        float light_pdf = scene.light_pdf_area(hit.shape) * hit.t * hit.t / cos_light;
        weight = power_heuristic(prev_pdf, light_pdf);
      }
      out.radiance += beta * m.emission * weight;
    }
    if (depth == 0) {
      out.albedo = first_hit_albedo(scene, m, hit);
      out.normal = hit.normal;
    }
    if (depth >= max_depth) break;

    // Next event estimation: one point on one light, weighted against BSDF sampling.
    if (!m.is_delta() && !m.black_bsdf && scene.has_lights()) {
      float u0 = rng.uniform(), u1 = rng.uniform(), u2 = rng.uniform();
      LightSample ls = scene.sample_light(u0, u1, u2);
      Vec3 to_light = ls.position - hit.position;
      float dist2 = dot(to_light, to_light);
      float dist = std::sqrt(dist2);
      Vec3 wi = to_light / dist;
      float cos_light = -dot(wi, ls.normal);
      if (cos_light > 0 && dot(wi, sp.n) > 0) {
        Vec3 f_cos = bsdf_eval_cos(m, sp, wo, wi);
        if (!is_black(f_cos) && !scene.occluded(spawn(hit, wi), dist - 2 * kRayOffset)) {
          float light_pdf = ls.pdf_area * dist2 / cos_light;
          float weight = power_heuristic(light_pdf, bsdf_pdf(m, sp, wo, wi));
          out.radiance += beta * f_cos * ls.radiance * (weight / light_pdf);
        }
      }
    }

    BsdfSample bs;
    float u1 = rng.uniform(), u2 = rng.uniform(), u3 = rng.uniform();
    if (!bsdf_sample(m, sp, wo, u1, u2, u3, bs)) break;
    beta *= bs.weight;
    prev_pdf = bs.pdf;
    prev_delta = bs.delta;
    ray = spawn(hit, bs.wi);

    if (depth + 1 >= kRouletteDepth) {
      float survive = std::min(0.95f, max_component(beta));
      if (rng.uniform() >= survive) break;
      beta /= survive;
    }
  }
  return out;
}

void check_settings(const RenderSettings& s) {
  VX_CHECK(s.width >= 1 && s.height >= 1 && s.width <= 16384 && s.height <= 16384, InvalidArgument,
           "render size ", s.width, "x", s.height, " must be between 1x1 and 16384x16384");
  VX_CHECK(s.spp >= 1 && s.spp <= (1 << 20), InvalidArgument, "samples per pixel ", s.spp,
           " must be between 1 and 1048576");
  VX_CHECK(s.max_depth >= 1 && s.max_depth <= 1024, InvalidArgument, "max depth ", s.max_depth,
           " must be between 1 and 1024");
}

}  // namespace

RenderOutput render(const Scene& scene, const RenderSettings& settings, ProgressFn progress) {
  check_settings(settings);
  const int w = settings.width, h = settings.height, spp = settings.spp;
  RenderOutput out{Image(w, h, 3), Image(w, h, 3), Image(w, h, 3)};
  CameraModel camera(scene.camera, w, h);

  auto render_rows = [&](int64_t row_begin, int64_t row_end) {
    for (int64_t y = row_begin; y < row_end; ++y) {
      for (int x = 0; x < w; ++x) {
        uint64_t pixel = uint64_t(y) * uint64_t(w) + uint64_t(x);
        double sum[9] = {};
        for (int s = 0; s < spp; ++s) {
          Rng rng(settings.seed, pixel, uint64_t(s));
          float jx = rng.uniform(), jy = rng.uniform();
          PixelSample ps = trace_path(scene, camera.ray(float(x) + jx, float(y) + jy), settings.max_depth, rng);
          if (!finite(ps.radiance)) ps.radiance = Vec3(0.0f);  // a degenerate path counts as black
          for (int c = 0; c < 3; ++c) {
            sum[c] += ps.radiance[c];
            sum[3 + c] += ps.albedo[c];
            sum[6 + c] += ps.normal[c];
          }
        }
        for (int c = 0; c < 3; ++c) {
          out.color.at(x, int(y), c) = float(sum[c] / spp);
          out.albedo.at(x, int(y), c) = float(sum[3 + c] / spp);
          out.normal.at(x, int(y), c) = float(sum[6 + c] / spp);
        }
      }
    }
  };

  // Rows go out in bands so that progress is reported (and cancellation checked) from this thread.
  ThreadPool& pool = ThreadPool::global();
  const int band = std::max(1, pool.size() * 8);
  for (int y0 = 0; y0 < h; y0 += band) {
    int y1 = std::min(h, y0 + band);
    pool.parallel_for(y1 - y0, [&](int64_t b, int64_t e) { render_rows(y0 + b, y0 + e); });
    if (progress && !progress(double(y1) / double(h)))
      fail(ErrorCode::Cancelled, cat("render of ", scene.name, " cancelled at row ", y1, " of ", h));
  }
  return out;
}

RenderOutput render_scene(const RenderSettings& settings, ProgressFn progress) {
  check_settings(settings);
  Scene scene = make_scene(settings.scene);
  return render(scene, settings, std::move(progress));
}

}  // namespace vx::samples
