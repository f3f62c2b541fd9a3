// The sample-scene path tracer: determinism across thread counts, convergence, feature-image ranges,
// and analytic checks (a furnace room, a glass sphere under a uniform sky, a plane lit by a
// rectangle) that pin down the estimator's bias, not only that it runs.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "common/test_util.h"
#include "formats/image_io.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "samples/materials.h"
#include "samples/animation.h"
#include "samples/motion.h"
#include "samples/path_tracer.h"

namespace vx::samples {
namespace {

double channel_mean(const Image& img, int c) {
  double sum = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) sum += img.at(x, y, c);
  return sum / (double(img.width) * img.height);
}

double image_mean(const Image& img) { return (channel_mean(img, 0) + channel_mean(img, 1) + channel_mean(img, 2)) / 3; }

// Restores the default global pool when a test changes it.
struct PoolGuard {
  ~PoolGuard() { ThreadPool::set_global_threads(0); }
};

TEST(PathTracer, SameSeedGivesBitwiseEqualImagesForAnyThreadCount) {
  PoolGuard guard;
  RenderSettings s{"room", 48, 40, 3, 7, 8};
  ThreadPool::set_global_threads(1);
  RenderOutput one = render_scene(s);
  ThreadPool::set_global_threads(3);
  RenderOutput three = render_scene(s);
  EXPECT_EQ(one.color.pixels, three.color.pixels);
  EXPECT_EQ(one.albedo.pixels, three.albedo.pixels);
  EXPECT_EQ(one.normal.pixels, three.normal.pixels);
  // A different seed gives different noise.
  s.seed = 8;
  EXPECT_NE(render_scene(s).color.pixels, one.color.pixels);
}

TEST(PathTracer, EveryScenesMeanConvergesWithSamples) {
  for (const std::string& name : scene_names()) {
    RenderOutput low = render_scene({name, 32, 32, 64, 1, 8});
    RenderOutput high = render_scene({name, 32, 32, 512, 2, 8});
    for (int c = 0; c < 3; ++c) {
      double lo = channel_mean(low.color, c), hi = channel_mean(high.color, c);
      EXPECT_GT(hi, 0.01) << name;
      EXPECT_NEAR(lo, hi, 0.03 * hi) << name << " channel " << c;  // 3%: the 64-spp mean's noise
    }
  }
}

TEST(PathTracer, FeatureImagesAreInRangeAndNormalsAreUnitWhereHit) {
  for (const std::string& name : scene_names()) {
    // At 1 spp every pixel holds one first hit, so its normal is exactly unit length or zero (sky).
    RenderOutput out = render_scene({name, 40, 30, 1, 3, 8});
    int hits = 0;
    for (int y = 0; y < out.normal.height; ++y)
      for (int x = 0; x < out.normal.width; ++x) {
        double len2 = 0;
        for (int c = 0; c < 3; ++c) {
          float a = out.albedo.at(x, y, c);
          EXPECT_TRUE(a >= 0 && a <= 1) << name << " albedo " << a << " at " << x << "," << y;
          EXPECT_TRUE(std::isfinite(out.color.at(x, y, c)) && out.color.at(x, y, c) >= 0);
          len2 += double(out.normal.at(x, y, c)) * out.normal.at(x, y, c);
        }
        if (len2 > 0) {
          ++hits;
          EXPECT_NEAR(std::sqrt(len2), 1.0, 1e-5) << name << " at " << x << "," << y;
        }
      }
    if (name == "spheres")
      EXPECT_LT(hits, 40 * 30);  // the sky is visible: no hit, zero normal
    else
      EXPECT_EQ(hits, 40 * 30);  // closed rooms: every camera ray hits
  }
}

TEST(PathTracer, RoomIsHdrNearTheLightAndNoisyAtFourSamples) {
  RenderOutput out = render_scene({"room", 64, 64, 4, 1, 8});
  float peak = 0;
  for (float v : out.color.pixels) peak = std::max(peak, v);
  EXPECT_GT(peak, 4.0f);  // the visible light is far above display white
}

// A closed sphere seen from inside whose every point emits E and reflects diffusely with albedo a:
// radiance is E (1 + a + a^2 + ...) = E / (1 - a) everywhere.
TEST(PathTracer, FurnaceRoomMatchesGeometricSeries) {
  Scene s;
  s.name = "furnace";
  s.camera = {Vec3(0.1f, 0.2f, 0), Vec3(1, 0.3f, 0.2f), Vec3(0, 1, 0), 70};
  Material m;
  m.color = Vec3(0.5f, 0.7f, 0.3f);
  m.emission = Vec3(1.0f, 0.5f, 0.25f);
  s.add_sphere(Vec3(0, 0, 0), 2.0f, s.add_material(m), /*inward=*/true);
  RenderOutput out = render(s, {"", 16, 16, 128, 5, 200});
  for (int c = 0; c < 3; ++c) {
    double expected = m.emission[c] / (1 - m.color[c]);
    EXPECT_NEAR(channel_mean(out.color, c), expected, 0.01 * expected) << "channel " << c;
    for (int y = 0; y < 16; ++y)
      for (int x = 0; x < 16; ++x) ASSERT_NEAR(out.color.at(x, y, c), expected, 0.3 * expected) << x << "," << y;  // 128-spp noise
  }
  // max_depth truncates the series: with one bounce only E (1 + a) remains.
  RenderOutput direct = render(s, {"", 8, 8, 256, 5, 1});
  for (int c = 0; c < 3; ++c) {
    double expected = m.emission[c] * (1 + m.color[c]);
    EXPECT_NEAR(channel_mean(direct.color, c), expected, 0.01 * expected) << "channel " << c;
  }
}

// Clear glass and a perfect mirror neither absorb nor emit: under a uniform sky every pixel sees
// exactly the sky's radiance, whatever the Fresnel split between reflection and refraction.
TEST(PathTracer, LosslessSpecularSpheresUnderUniformSkyAreInvisible) {
  Scene s;
  s.name = "glass furnace";
  s.sky_top = s.sky_horizon = Vec3(1.0f, 2.0f, 0.5f);
  s.camera = {Vec3(0, 0, 3), Vec3(0, 0, 0), Vec3(0, 1, 0), 40};
  s.add_sphere(Vec3(-0.5f, 0, 0), 0.6f, s.add_material([] { Material g; g.kind = MaterialKind::Glass; g.color = Vec3(1.0f); g.ior = 1.5f; return g; }()));
  s.add_sphere(Vec3(0.7f, 0, -0.3f), 0.5f, s.add_material([] { Material g; g.kind = MaterialKind::Mirror; g.color = Vec3(1.0f); return g; }()));
  RenderOutput out = render(s, {"", 24, 24, 64, 9, 64});
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(channel_mean(out.color, c), s.sky_top[c], 0.01 * s.sky_top[c]);
  // The albedo of a perfect specular surface is its tint (white here), like the sky it shows.
  for (float a : out.albedo.pixels) EXPECT_LE(a, 1.0f);
}

// Form factor from a point to a parallel rectangle centred above it: four corner rectangles of
// size a x b at height c, each 1/(2 pi) [A/sqrt(1+A^2) atan(B/sqrt(1+A^2)) + (A <-> B)].
double centred_rectangle_form_factor(double half_a, double half_b, double c) {
  double A = half_a / c, B = half_b / c;
  double sa = std::sqrt(1 + A * A), sb = std::sqrt(1 + B * B);
  double corner = (A / sa * std::atan(B / sa) + B / sb * std::atan(A / sb)) / (2 * M_PI);
  return 4 * corner;
}

// A diffuse plane under a rectangular light: outgoing radiance = albedo * L * F. Direct light only,
// so next event estimation and BSDF hits of the light must combine (MIS) to the exact value.
TEST(PathTracer, PlaneUnderRectangleLightMatchesClosedFormIrradiance) {
  const float albedo = 0.6f, height = 1.0f, half = 0.5f, radiance = 10.0f;
  Scene s;
  s.name = "lit plane";
  int ground = s.add_material([&] { Material m; m.color = Vec3(albedo); return m; }());
  s.add_quad(Vec3(-50, 0, -50), Vec3(0, 0, 100), Vec3(100, 0, 0), ground);
  int light = s.add_material([&] { Material m; m.color = Vec3(0.0f); m.black_bsdf = true; m.emission = Vec3(radiance); return m; }());
  s.add_quad(Vec3(-half, height, -half), Vec3(2 * half, 0, 0), Vec3(0, 0, 2 * half), light, true);
  // Looking straight down from under the light with a narrow view: every pixel sees the centre.
  s.camera = {Vec3(0, 0.5f, 0), Vec3(0, 0, 0), Vec3(0, 0, -1), 1};
  double expected = albedo * radiance * centred_rectangle_form_factor(half, half, height);
  RenderOutput out = render(s, {"", 8, 8, 512, 11, 1});
  EXPECT_NEAR(image_mean(out.color), expected, 0.005 * expected);
  // With more bounces nothing changes: the plane sees no other lit surface... except itself, which
  // it cannot see (flat), and the light's black back side.
  RenderOutput deep = render(s, {"", 8, 8, 512, 11, 8});
  EXPECT_NEAR(image_mean(deep.color), expected, 0.005 * expected);
}

TEST(PathTracer, FresnelMatchesKnownValues) {
  EXPECT_NEAR(fresnel_dielectric(1.0f, 1.0f, 1.5f), 0.04, 1e-6);  // ((n-1)/(n+1))^2 at normal incidence
  EXPECT_NEAR(fresnel_dielectric(0.0f, 1.0f, 1.5f), 1.0, 1e-6);   // grazing: all reflected
  EXPECT_EQ(fresnel_dielectric(0.3f, 1.5f, 1.0f), 1.0f);          // beyond the critical angle (cos 0.745)
}

TEST(PathTracer, UnknownSceneNamesTheKnownOnes) {
  try {
    render_scene({"kitchen", 8, 8, 1, 1, 8});
    FAIL() << "no error for an unknown scene";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    std::string msg = e.what();
    EXPECT_NE(msg.find("kitchen"), std::string::npos) << msg;
    for (const auto& name : scene_names()) EXPECT_NE(msg.find(name), std::string::npos) << msg;
  }
  EXPECT_GE(scene_names().size(), 3u);
}

TEST(PathTracer, RejectsBadSettingsAndHonoursCancellation) {
  for (RenderSettings bad : {RenderSettings{"room", 0, 8, 1, 1, 8}, RenderSettings{"room", 8, 8, 0, 1, 8},
                             RenderSettings{"room", 8, 8, 1, 1, 0}, RenderSettings{"room", 8, 100000, 1, 1, 8}}) {
    try {
      render_scene(bad);
      ADD_FAILURE() << "accepted " << bad.width << "x" << bad.height << " spp " << bad.spp;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    }
  }
  double last = -1;
  try {
    render_scene({"room", 16, 64, 1, 1, 8}, [&](double f) {
      EXPECT_GT(f, last);
      last = f;
      return f < 0.5;
    });
    ADD_FAILURE() << "cancellation ignored";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Cancelled) << e.what();
  }
  EXPECT_GE(last, 0.5);
  EXPECT_LT(last, 1.0);
}


TEST(PathTracer, CliWritesTheSameImagesAsTheLibrary) {
  std::string cli = test::cli_path();
  if (!std::filesystem::exists(cli)) GTEST_SKIP() << "volvox CLI not built at " << cli;
  std::filesystem::path prefix = test::temp_dir() / "room";
  std::string cmd = cli + " render --scene room --spp 2 --width 24 --height 16 --seed 4 --reference-spp 8 --format pfm -o " +
                    prefix.string() + " 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  RenderOutput lib = render_scene({"room", 24, 16, 2, 4, 8});
  EXPECT_EQ(read_image(prefix.string() + "_color.pfm").pixels, lib.color.pixels);
  EXPECT_EQ(read_image(prefix.string() + "_albedo.pfm").pixels, lib.albedo.pixels);
  EXPECT_EQ(read_image(prefix.string() + "_normal.pfm").pixels, lib.normal.pixels);
  Image ref = read_image(prefix.string() + "_reference.pfm");
  EXPECT_EQ(ref.width, 24);
  EXPECT_NEAR(image_mean(ref), image_mean(lib.color), 0.5 * image_mean(lib.color));
  std::string bad = cli + " render --scene nowhere --spp 1 -o " + prefix.string() + " 2>/dev/null";
  EXPECT_NE(std::system(bad.c_str()), 0);

  // An animation: numbered frames with depth and motion; frame 1 as the library renders it.
  const std::string anim = cli + " render --scene spheres --spp 2 --width 24 --height 16 --seed 4 --frames 2 "
                                 "--camera orbit --moving --format pfm -o " + prefix.string() + " 2>/dev/null";
  ASSERT_EQ(std::system(anim.c_str()), 0) << anim;
  const Animation a{2, CameraPath::orbit, true};
  const Scene base = make_scene("spheres"), f0 = animated_scene(base, a, 0), f1 = animated_scene(base, a, 1);
  RenderSettings s1{"spheres", 24, 16, 2, 4 + 0x9E3779B97F4A7C15ull, 8};
  EXPECT_EQ(read_image(prefix.string() + "_0001_color.pfm").pixels, render(f1, s1).color.pixels);
  const GeometryImages g = render_geometry(f1, f0, 24, 16);
  const Image motion = read_image(prefix.string() + "_0001_motion.pfm"), depth = read_image(prefix.string() + "_0001_depth.pfm");
  ASSERT_EQ(motion.channels, 3);
  for (size_t p = 0; p < size_t(24 * 16); ++p) {
    EXPECT_EQ(motion.pixels[p * 3], g.motion.pixels[p * 2]);
    EXPECT_EQ(motion.pixels[p * 3 + 1], g.motion.pixels[p * 2 + 1]);
    EXPECT_EQ(motion.pixels[p * 3 + 2], 0.0f);
  }
  EXPECT_EQ(depth.pixels, g.depth.pixels);
  const std::string bad_path = cli + " render --scene room -o " + prefix.string() + " --frames 2 --camera spiral 2>/dev/null";
  EXPECT_NE(std::system(bad_path.c_str()), 0);
}

}  // namespace
}  // namespace vx::samples
