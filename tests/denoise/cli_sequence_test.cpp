// `volvox denoise --sequence` as a farm runs it (issue 14): the pipelined outputs equal per-frame
// denoises, --range selects exactly its frames, a rerun skips the outputs that validate and writes
// nothing, damaged outputs are recomputed, --overwrite recomputes all, --warmup rebuilds a temporal
// history, several devices give one device's outputs (a temporal run: per chunk), --json reports
// the rate, and bad flags or inputs are one line.
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>

#include "backends/vulkan/context.h"
#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "formats/image_io.h"

namespace vx {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;

// A rendered 32x24 animation of `frames` frames with random small weights, in a fresh folder.
struct SeqFixture {
  fs::path dir;
  std::string inputs;  // the denoise flags of every input pattern, weights, hdr, cpu
  std::string render;  // frame f's file of a kind: render + "_000f_color.pfm"

  explicit SeqFixture(int frames, int width = 32, int height = 24) : dir(test::temp_dir()) {
    render = (dir / "r").string();
    write_tza_file(dir / "w.tza", make_random_unet_weights(UNetVariant::small, 9, 4));
    const CommandResult res = test::run_volvox("render --scene spheres --width " + std::to_string(width) +
                                               " --height " + std::to_string(height) + " --spp 2 --frames " +
                                               std::to_string(frames) + " --camera pan --moving --format pfm -o " +
                                               render);
    EXPECT_EQ(res.status, 0) << res.output;
    inputs = " --weights " + (dir / "w.tza").string() + " --color " + render + "_%04d_color.pfm --albedo " + render +
             "_%04d_albedo.pfm --normal " + render + "_%04d_normal.pfm --motion " + render +
             "_%04d_motion.pfm --depth " + render + "_%04d_depth.pfm --hdr --device cpu";
  }
  // Lavapipe instead of the CPU, fp32 (outputs compared byte for byte); `device` ("": each run gives
  // its own --device).
  void use_vulkan(const std::string& device = "--device vulkan") {
    inputs.replace(inputs.find("--device cpu"), 12, device + " --precision fp32");
  }
  std::string out(const std::string& name) const { return (dir / name).string() + "_%d.pfm"; }
  fs::path out_file(const std::string& name, int f) const { return dir / (name + "_" + std::to_string(f) + ".pfm"); }
  CommandResult sequence(const std::string& flags, const std::string& name) const {
    return test::run_volvox("denoise --sequence" + inputs + " " + flags + " -o " + out(name));
  }
};

ino_t inode_of(const fs::path& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// The JSON object the command prints on stdout (its line starts with '{').
nlohmann::json json_of(const std::string& output) {
  for (size_t at = 0; at < output.size();) {
    const size_t end = output.find('\n', at);
    const std::string line = output.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (!line.empty() && line[0] == '{') return nlohmann::json::parse(line);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  ADD_FAILURE() << "no JSON line in\n" << output;
  return {};
}

bool vulkan_available() {
  try {
    return !vk::VulkanContext::list_devices().empty();
  } catch (const Error&) {
    return false;
  }
}

// A run of the fixture on Vulkan under the validation layer when it is installed (the loader
// inserts it; with no messenger of ours it logs each message to stdout, which run_volvox captures):
// it must succeed with no message of the layer.
CommandResult validated_sequence(const SeqFixture& fx, const std::string& flags, const std::string& name) {
  std::optional<test::ScopedEnv> layer;
  if (fs::exists("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"))
    layer.emplace("VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation");
  CommandResult res = fx.sequence(flags, name);
  EXPECT_EQ(res.status, 0) << flags << "\n" << res.output;
  EXPECT_EQ(res.output.find("Validation Error"), std::string::npos) << flags << "\n" << res.output;
  EXPECT_EQ(res.output.find("VUID-"), std::string::npos) << flags << "\n" << res.output;
  return res;
}

float max_abs_difference(const Image& a, const Image& b) {
  EXPECT_EQ(a.pixels.size(), b.pixels.size());
  float worst = 0;
  for (size_t i = 0; i < std::min(a.pixels.size(), b.pixels.size()); ++i)
    worst = std::max(worst, std::fabs(a.pixels[i] - b.pixels[i]));
  return worst;
}

TEST(CliSequence, PipelinedOutputsEqualPerFrameDenoisesAndJsonIsSane) {
  const SeqFixture fx(5);
  const CommandResult res = fx.sequence("--temporal none --io-threads 3 --json", "seq");
  ASSERT_EQ(res.status, 0) << res.output;
  for (int f = 0; f < 5; ++f) {
    const std::string frame = fx.render + "_000" + std::to_string(f);
    const CommandResult one = test::run_volvox(
        "denoise --weights " + (fx.dir / "w.tza").string() + " --color " + frame + "_color.pfm --albedo " + frame +
        "_albedo.pfm --normal " + frame + "_normal.pfm --hdr --device cpu -o " + fx.out_file("one", f).string());
    ASSERT_EQ(one.status, 0) << one.output;
    EXPECT_EQ(read_image(fx.out_file("seq", f)).pixels, read_image(fx.out_file("one", f)).pixels) << "frame " << f;
  }
  const nlohmann::json j = json_of(res.output);
  EXPECT_EQ(j.value("frames", -1), 5) << res.output;
  EXPECT_EQ(j.value("frames_skipped", -1), 0);
  EXPECT_EQ(j.value("first_frame", -1), 0);
  EXPECT_EQ(j.value("last_frame", -1), 4);
  EXPECT_GT(j.value("frames_per_second", 0.0), 0.0);
  EXPECT_GT(j.value("seconds", 0.0), 0.0);
  EXPECT_EQ(j.value("gpu_busy_fraction", -1.0), 0.0);  // the CPU has no device time
  for (const char* stage : {"ms_read", "ms_denoise", "ms_write"}) {
    EXPECT_TRUE(j.contains(stage)) << stage;
    EXPECT_GT(j.value(stage, 0.0), 0.0) << stage;
    EXPECT_LT(j.value(stage, 1e9), j.value("seconds", 0.0) * 1000 + 1) << stage;
  }
  EXPECT_EQ(j.value("frames_in_flight", 0), 3 + 1 + 1 + 3 + 1);  // io-threads + 1 ahead, 1, io-threads + 1 to write
  EXPECT_EQ(j.value("width", 0), 32);
  EXPECT_EQ(j.value("height", 0), 24);
  // Non-terminal stderr: one line per frame.
  EXPECT_NE(res.output.find("frame 4: "), std::string::npos) << res.output;
  EXPECT_NE(res.output.find("denoised 5 frames"), std::string::npos) << res.output;

  // Several filters denoising frames concurrently give the same outputs.
  const CommandResult lanes = fx.sequence("--temporal none --filters 3 --io-threads 1 --json", "lanes");
  ASSERT_EQ(lanes.status, 0) << lanes.output;
  EXPECT_EQ(json_of(lanes.output).value("filters", 0), 3);
  EXPECT_EQ(json_of(lanes.output).value("frames_in_flight", 0), 2 + 3 + 2);
  for (int f = 0; f < 5; ++f)
    EXPECT_EQ(read_image(fx.out_file("lanes", f)).pixels, read_image(fx.out_file("one", f)).pixels) << "frame " << f;
}

// The Vulkan device (lavapipe here): two filters by default without a temporal mode, the outputs
// those of one filter; the device time is reported.
TEST(CliSequence, TwoFiltersOnVulkanEqualOne) {
  if (!vulkan_available()) GTEST_SKIP() << "no Vulkan device (install mesa-vulkan-drivers for lavapipe)";
  SeqFixture fx(4);
  fx.use_vulkan();
  CommandResult res = fx.sequence("--temporal none --json", "two");
  ASSERT_EQ(res.status, 0) << res.output;
  const nlohmann::json j = json_of(res.output);
  EXPECT_EQ(j.value("filters", 0), 2);
  EXPECT_GT(j.value("ms_device", 0.0), 0.0) << res.output;
  EXPECT_GT(j.value("gpu_busy_fraction", 0.0), 0.0) << res.output;
  // The sum of both lanes' device times over the wall time: at most 2 even where their work overlaps.
  EXPECT_LE(j.value("gpu_busy_fraction", 3.0), 2.05) << res.output;
  res = fx.sequence("--temporal none --filters 1", "one");
  ASSERT_EQ(res.status, 0) << res.output;
  for (int f = 0; f < 4; ++f)
    EXPECT_EQ(read_image(fx.out_file("two", f)).pixels, read_image(fx.out_file("one", f)).pixels) << "frame " << f;
}

// Several devices (issue 14 part 2) on lavapipe's one physical device: vulkan:0,0 opens it twice
// (two logical devices, each with its queue and 2 filters); the frames, dealt to the lanes of both,
// come out byte for byte as on one device, and each device reports its share.
TEST(CliSequence, TwoDevicesEqualOne) {
  if (!vulkan_available()) GTEST_SKIP() << "no Vulkan device (install mesa-vulkan-drivers for lavapipe)";
  SeqFixture fx(5);
  fx.use_vulkan("");
  validated_sequence(fx, "--device vulkan:0 --temporal none", "one");
  const CommandResult res = validated_sequence(fx, "--device vulkan:0,0 --temporal none --json", "two");
  if (HasFailure()) return;
  for (int f = 0; f < 5; ++f)
    EXPECT_EQ(read_image(fx.out_file("two", f)).pixels, read_image(fx.out_file("one", f)).pixels) << "frame " << f;
  const nlohmann::json j = json_of(res.output);
  EXPECT_EQ(j.value("frames", 0), 5);
  EXPECT_EQ(j.value("filters", 0), 4) << res.output;  // 2 a device
  ASSERT_EQ(j["devices"].size(), 2u) << res.output;
  int frames = 0;
  for (const nlohmann::json& d : j["devices"]) {
    EXPECT_EQ(d.value("device", "").rfind("vulkan:0 (", 0), 0u) << d;
    EXPECT_EQ(d.value("filters", 0), 2) << d;
    // The other lanes take a frame each while the first frame's set-up holds them: both devices work.
    EXPECT_GE(d.value("frames", 0), 1) << d;
    EXPECT_GT(d.value("ms_device", 0.0), 0.0) << d;
    EXPECT_GT(d.value("gpu_busy_fraction", 0.0), 0.0) << d;
    EXPECT_FALSE(d.contains("first_frame")) << d;  // no chunks without a temporal mode
    frames += d.value("frames", 0);
  }
  EXPECT_EQ(frames, 5);
}

// --temporal taa over two devices: the frames cut into two chunks, one a device, each in order.
// The first chunk is the one-device run's exactly (the same executes in the same order). The
// second starts a new history after its warm-up: with the default (16, here as many as exist:
// frames 0-2) it is exact too; with --warmup 1 it differs, but is close. The tolerance: at the
// chunk's k-th frame the history lost at the warm-up's start weighs blend^(k + 2), and the clamp
// keeps a history within the current frame's neighbourhood (outputs are non-negative: within
// [0, peak]), so |difference| <= 0.8^(k + 2) x the frame's peak (here it is 2 to 8 times below);
// and at the chunk's first frame the warm-up frame brings the output closer than a cold start.
TEST(CliSequence, TemporalChunksOverTwoDevices) {
  if (!vulkan_available()) GTEST_SKIP() << "no Vulkan device (install mesa-vulkan-drivers for lavapipe)";
  SeqFixture fx(6);
  fx.use_vulkan("");
  validated_sequence(fx, "--device vulkan:0 --temporal taa", "one");
  const CommandResult res = validated_sequence(fx, "--device vulkan:0,0 --temporal taa --json", "chunked");
  if (HasFailure()) return;
  const nlohmann::json j = json_of(res.output);
  EXPECT_EQ(j.value("frames", 0), 6);
  EXPECT_EQ(j.value("frames_warmup", -1), 3);
  ASSERT_EQ(j["devices"].size(), 2u) << res.output;
  const int expected[2][4] = {{0, 2, 3, 0}, {3, 5, 3, 3}};  // first, last, frames, warm-up frames
  for (size_t d = 0; d < 2; ++d) {
    const nlohmann::json& e = j["devices"][d];
    EXPECT_EQ(e.value("first_frame", -1), expected[d][0]) << e;
    EXPECT_EQ(e.value("last_frame", -1), expected[d][1]) << e;
    EXPECT_EQ(e.value("frames", -1), expected[d][2]) << e;
    EXPECT_EQ(e.value("frames_warmup", -1), expected[d][3]) << e;
  }
  EXPECT_NE(res.output.find("chunk 2 of 2: frames 3-5 on vulkan:0"), std::string::npos) << res.output;
  for (int f = 0; f < 6; ++f)
    EXPECT_EQ(read_image(fx.out_file("chunked", f)).pixels, read_image(fx.out_file("one", f)).pixels) << f;

  validated_sequence(fx, "--device vulkan:0,0 --temporal taa --warmup 1", "warm1");
  validated_sequence(fx, "--device vulkan:0,0 --temporal taa --warmup 0", "cold");
  if (HasFailure()) return;
  auto mean_abs_difference = [](const Image& a, const Image& b) {
    double sum = 0;
    for (size_t i = 0; i < a.pixels.size(); ++i) sum += std::fabs(a.pixels[i] - b.pixels[i]);
    return sum / double(a.pixels.size());
  };
  for (int f = 0; f < 6; ++f) {
    const Image one = read_image(fx.out_file("one", f)), warm = read_image(fx.out_file("warm1", f)),
                cold = read_image(fx.out_file("cold", f));
    if (f < 3) {
      EXPECT_EQ(warm.pixels, one.pixels) << f;
      EXPECT_EQ(cold.pixels, one.pixels) << f;
      continue;
    }
    float peak = 0;
    for (float v : one.pixels) peak = std::max(peak, std::fabs(v));
    EXPECT_NE(warm.pixels, one.pixels) << f;
    EXPECT_LE(max_abs_difference(warm, one), std::pow(0.8f, float(f - 3 + 2)) * peak) << f;
    if (f == 3) {
      EXPECT_LT(mean_abs_difference(warm, one), mean_abs_difference(cold, one));
    }
  }
}

// --device lists: Vulkan indices only, each existing; a single image takes one device.
TEST(CliSequence, BadDeviceListsAreOneLine) {
  SeqFixture fx(2);
  fx.use_vulkan("");
  auto one_line = [&](const std::string& device, const std::string& must_contain) {
    const CommandResult res = fx.sequence("--temporal none --device " + device, "bad");
    EXPECT_EQ(res.status, 1) << device << "\n" << res.output;
    EXPECT_TRUE(test::is_one_error_line(res.output)) << device << "\n" << res.output;
    EXPECT_NE(res.output.find(must_contain), std::string::npos) << device << "\n" << res.output;
  };
  one_line("vulkan:0,,1", "element 2 of the list is empty");
  one_line("vulkan:0,", "element 2 of the list is empty");
  one_line("vulkan:0,x", "'x' is not a device index");
  one_line("vulkan:0,-1", "'-1' is not a device index");
  one_line("cpu,vulkan:0", "cpu and auto stand alone");
  one_line("vulkan:0,cpu", "cpu and auto stand alone");
  one_line("vulkan:all,1", "vulkan:all stands alone");
  // An index the loader does not list: found when the devices are listed, before any frame.
  one_line("vulkan:0,99", vulkan_available() ? "there is no Vulkan device 99" : "--device vulkan:0,99");
  EXPECT_FALSE(fs::exists(fx.out_file("bad", 0)));
  const CommandResult single = test::run_volvox("denoise --color c.pfm -o o.pfm --device vulkan:0,0");
  EXPECT_EQ(single.status, 1) << single.output;
  EXPECT_TRUE(test::is_one_error_line(single.output)) << single.output;
  EXPECT_NE(single.output.find("several devices are for --sequence"), std::string::npos) << single.output;
}

TEST(CliSequence, RangeSkipsOverwriteAndRecomputesDamagedOutputs) {
  const SeqFixture fx(5);
  CommandResult res = fx.sequence("--temporal none", "all");
  ASSERT_EQ(res.status, 0) << res.output;

  // --range selects exactly its frames (inclusive); one number is one frame.
  res = fx.sequence("--temporal none --range 1-3", "out");
  ASSERT_EQ(res.status, 0) << res.output;
  for (int f = 0; f < 5; ++f) EXPECT_EQ(fs::exists(fx.out_file("out", f)), f >= 1 && f <= 3) << f;
  for (int f = 1; f <= 3; ++f)
    EXPECT_EQ(read_image(fx.out_file("out", f)).pixels, read_image(fx.out_file("all", f)).pixels) << f;
  res = fx.sequence("--temporal none --range 4", "out");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_FALSE(fs::exists(fx.out_file("out", 0)));
  EXPECT_TRUE(fs::exists(fx.out_file("out", 4)));

  // A second run over frames 0-4: 1-4 exist and validate and are skipped (the files untouched: a
  // write would rename a new file over them, a new inode), frame 0 is denoised.
  std::map<int, ino_t> inodes;
  for (int f = 1; f < 5; ++f) inodes[f] = inode_of(fx.out_file("out", f));
  res = fx.sequence("--temporal none --range 0-4 --json", "out");
  ASSERT_EQ(res.status, 0) << res.output;
  for (int f = 1; f < 5; ++f) {
    EXPECT_NE(res.output.find("frame " + std::to_string(f) + ": output exists, skipped"), std::string::npos)
        << res.output;
    EXPECT_EQ(inode_of(fx.out_file("out", f)), inodes[f]) << f;
  }
  EXPECT_EQ(res.output.find("frame 0: output exists"), std::string::npos) << res.output;
  EXPECT_EQ(json_of(res.output).value("frames", -1), 1);
  EXPECT_EQ(json_of(res.output).value("frames_skipped", -1), 4);
  EXPECT_EQ(read_image(fx.out_file("out", 0)).pixels, read_image(fx.out_file("all", 0)).pixels);

  // Everything done: a rerun (without --range: first-frame until the last) writes nothing.
  for (int f = 0; f < 5; ++f) inodes[f] = inode_of(fx.out_file("out", f));
  res = fx.sequence("--temporal none --json", "out");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_EQ(json_of(res.output).value("frames", -1), 0);
  EXPECT_EQ(json_of(res.output).value("frames_skipped", -1), 5);
  EXPECT_GE(json_of(res.output).value("io_threads", 0), 2);  // the default: half the CPUs, 2 to 16
  EXPECT_LE(json_of(res.output).value("io_threads", 99), 16);
  for (int f = 0; f < 5; ++f) EXPECT_EQ(inode_of(fx.out_file("out", f)), inodes[f]) << f;

  // Damaged outputs are recomputed: cut short, a NaN, another size, not an image; frame 4 is kept.
  {
    const std::vector<std::byte> bytes = test::read_bytes(fx.out_file("out", 0));
    std::ofstream(fx.out_file("out", 0), std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size() / 2));
  }
  Image nan = read_image(fx.out_file("out", 1));
  nan.pixels[17] = NAN;
  write_image(fx.out_file("out", 1), nan);
  write_image(fx.out_file("out", 2), Image(31, 24, 3));
  std::ofstream(fx.out_file("out", 3), std::ios::trunc) << "not an image";
  inodes[4] = inode_of(fx.out_file("out", 4));
  res = fx.sequence("--temporal none --json", "out");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_EQ(json_of(res.output).value("frames", -1), 4);
  EXPECT_EQ(json_of(res.output).value("frames_skipped", -1), 1);
  EXPECT_NE(res.output.find("frame 4: output exists, skipped"), std::string::npos) << res.output;
  EXPECT_EQ(inode_of(fx.out_file("out", 4)), inodes[4]);
  for (int f = 0; f < 5; ++f)
    EXPECT_EQ(read_image(fx.out_file("out", f)).pixels, read_image(fx.out_file("all", f)).pixels) << f;

  // --overwrite recomputes every frame of the range.
  for (int f = 0; f < 5; ++f) inodes[f] = inode_of(fx.out_file("out", f));
  res = fx.sequence("--temporal none --overwrite --range 2-3 --json", "out");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_EQ(json_of(res.output).value("frames", -1), 2);
  EXPECT_EQ(json_of(res.output).value("frames_skipped", -1), 0);
  for (int f = 0; f < 5; ++f) EXPECT_EQ(inode_of(fx.out_file("out", f)) != inodes[f], f == 2 || f == 3) << f;
}

// A frame that cannot be read stops the run with one line naming it, after the frames before it are
// written (as a sequential loop would); the rerun after the fix skips those.
TEST(CliSequence, AFailedFrameKeepsTheFramesBeforeItAndARerunResumes) {
  const SeqFixture fx(5);
  CommandResult res = fx.sequence("--temporal none", "all");
  ASSERT_EQ(res.status, 0) << res.output;
  const fs::path color3 = fx.render + "_0003_color.pfm", saved = fx.dir / "saved.pfm";
  fs::copy_file(color3, saved);
  std::ofstream(color3, std::ios::trunc) << "PF\n32 24\n-1\n";  // a header, no pixels
  res = fx.sequence("--temporal none", "out");
  EXPECT_EQ(res.status, 1) << res.output;
  EXPECT_NE(res.output.find("volvox: "), std::string::npos) << res.output;
  EXPECT_NE(res.output.find("0003_color.pfm"), std::string::npos) << res.output;
  for (int f = 0; f < 5; ++f) EXPECT_EQ(fs::exists(fx.out_file("out", f)), f < 3) << f << "\n" << res.output;
  fs::copy_file(saved, color3, fs::copy_options::overwrite_existing);
  res = fx.sequence("--temporal none --json", "out");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_EQ(json_of(res.output).value("frames", -1), 2);
  EXPECT_EQ(json_of(res.output).value("frames_skipped", -1), 3);
  for (int f = 0; f < 5; ++f)
    EXPECT_EQ(read_image(fx.out_file("out", f)).pixels, read_image(fx.out_file("all", f)).pixels) << f;

  // Writes that fail (a file-size limit below one output) leave no output and no temporary file.
  const fs::path limited_dir = fx.dir / "limited";
  fs::create_directories(limited_dir);
  res = test::run_command("bash -c 'ulimit -f 4; exec " + test::cli_path() + " denoise --sequence" + fx.inputs +
                          " --temporal none -o " + (limited_dir / "o_%d.pfm").string() + "'");
  EXPECT_EQ(res.status, 1) << res.output;
  EXPECT_NE(res.output.find("volvox: "), std::string::npos) << res.output;
  EXPECT_TRUE(fs::is_empty(limited_dir)) << res.output;
}

// SIGTERM (a scheduler cancelling the task) mid-sequence: no new frame starts, the frames denoised
// are written, one line and status 1, no temporary file; the same command then completes the rest.
TEST(CliSequence, SigtermStopsCleanlyAndTheSameCommandResumes) {
  const SeqFixture fx(24, 128, 96);  // about 15 ms a frame on 2 cores: the signal comes mid-run
  const std::string frame1 = fx.out_file("out", 1).string();
  CommandResult res = test::run_command(
      "bash -c '" + test::cli_path() + " denoise --sequence" + fx.inputs + " --temporal none --io-threads 1 -o " +
      fx.out("out") + " & pid=$!; for i in $(seq 3000); do [ -e " + frame1 +
      " ] && break; sleep 0.01; done; kill -TERM $pid; wait $pid; echo status=$?'");
  EXPECT_NE(res.output.find("status=1"), std::string::npos) << res.output;
  EXPECT_NE(res.output.find("volvox: interrupted"), std::string::npos) << res.output;
  int written = 0;
  for (const auto& entry : fs::directory_iterator(fx.dir)) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
    if (name.rfind("out_", 0) == 0) {
      ++written;
      EXPECT_EQ(read_image(entry.path()).width, 128) << name;
    }
  }
  EXPECT_GE(written, 2);
  EXPECT_LT(written, 24) << res.output;
  res = fx.sequence("--temporal none --json", "out");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_EQ(json_of(res.output).value("frames_skipped", -1), written);
  EXPECT_EQ(json_of(res.output).value("frames", -1), 24 - written);
}

// TAA chunks: a chunk's first frame starts a new history; --warmup frames before it rebuild it.
// With the warm-up reaching back to the sequence's first frame the chunk equals the unchunked run
// exactly (the same executes in the same order); a shorter warm-up brings it closer than none (the
// history's weight decays as blend^N, so a chunked sequence matches an unchunked one approximately).
TEST(CliSequence, WarmupRebuildsTheTemporalHistory) {
  const SeqFixture fx(6);
  CommandResult res = fx.sequence("--temporal taa", "whole");
  ASSERT_EQ(res.status, 0) << res.output;
  res = fx.sequence("--temporal taa --range 3-5", "cold");
  ASSERT_EQ(res.status, 0) << res.output;
  res = fx.sequence("--temporal taa --range 3-5 --warmup 1", "warm1");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_NE(res.output.find("frame 2: "), std::string::npos) << res.output;
  EXPECT_NE(res.output.find("warm-up (not written)"), std::string::npos) << res.output;
  res = fx.sequence("--temporal taa --range 3-5 --warmup 10 --json", "warm10");  // as many as exist: 0-2
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_EQ(json_of(res.output).value("frames_warmup", -1), 3);
  EXPECT_EQ(json_of(res.output).value("frames", -1), 3);
  for (int f = 0; f < 3; ++f) {
    EXPECT_FALSE(fs::exists(fx.out_file("warm1", f))) << f;
    EXPECT_FALSE(fs::exists(fx.out_file("warm10", f))) << f;
  }
  const Image whole3 = read_image(fx.out_file("whole", 3)), cold3 = read_image(fx.out_file("cold", 3)),
              warm3 = read_image(fx.out_file("warm1", 3));
  for (int f = 3; f < 6; ++f)
    EXPECT_EQ(read_image(fx.out_file("warm10", f)).pixels, read_image(fx.out_file("whole", f)).pixels) << f;
  EXPECT_NE(cold3.pixels, whole3.pixels);
  EXPECT_NE(warm3.pixels, cold3.pixels);
  EXPECT_LT(max_abs_difference(warm3, whole3), max_abs_difference(cold3, whole3));

  // A skipped frame in the middle of a temporal run breaks the history like a range start: with
  // enough warm-up the recomputed frames again equal the unchunked run.
  for (int f = 0; f < 6; ++f) fs::copy_file(fx.out_file("whole", f), fx.out_file("resume", f));
  fs::remove(fx.out_file("resume", 4));
  res = fx.sequence("--temporal taa --warmup 8 --json", "resume");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_EQ(json_of(res.output).value("frames", -1), 1);
  EXPECT_EQ(json_of(res.output).value("frames_warmup", -1), 4);
  EXPECT_EQ(read_image(fx.out_file("resume", 4)).pixels, read_image(fx.out_file("whole", 4)).pixels);
}

// --exr-compression: other lossless encodings of the same pixels.
TEST(CliSequence, ExrCompressionKeepsThePixels) {
  const SeqFixture fx(2);
  const auto exr = [&](const std::string& name) { return (fx.dir / name).string() + "_%d.exr"; };
  auto file = [&](const std::string& name, int f) { return fx.dir / (name + "_" + std::to_string(f) + ".exr"); };
  for (const char* c : {"", "zip:1", "piz", "none", "zips:9"}) {
    const std::string name = std::string("c") + (*c ? c : "default");
    const std::string flag = *c ? std::string(" --exr-compression ") + c : "";
    const CommandResult res =
        test::run_volvox("denoise --sequence" + fx.inputs + " --temporal none" + flag + " -o " + exr(name));
    ASSERT_EQ(res.status, 0) << res.output;
  }
  for (int f = 0; f < 2; ++f)
    for (const char* c : {"zip:1", "piz", "none", "zips:9"})
      EXPECT_EQ(read_image(file(std::string("c") + c, f)).pixels, read_image(file("cdefault", f)).pixels) << c;
  EXPECT_GT(fs::file_size(file("cnone", 0)), fs::file_size(file("cdefault", 0)));
  for (const char* bad : {"zip:0", "zip:10", "piz:3", "lzma", "zip:", "''"}) {
    const CommandResult res = fx.sequence(std::string("--exr-compression ") + bad, "bad");
    EXPECT_TRUE(test::is_one_error_line(res.output)) << bad << "\n" << res.output;
    EXPECT_NE(res.output.find("--exr-compression"), std::string::npos) << bad << "\n" << res.output;
  }
  const CommandResult pfm = fx.sequence("--exr-compression piz", "pfm");  // a .pfm output
  EXPECT_TRUE(test::is_one_error_line(pfm.output)) << pfm.output;
  EXPECT_NE(pfm.output.find("is for .exr outputs"), std::string::npos) << pfm.output;
}

TEST(CliSequence, BadRangesAndFlagsAreOneLine) {
  const SeqFixture fx(2);
  auto one_line = [&](const std::string& flags, const std::string& must_contain) {
    const CommandResult res = fx.sequence(flags, "bad");
    EXPECT_EQ(res.status, 1) << flags << "\n" << res.output;
    EXPECT_TRUE(test::is_one_error_line(res.output)) << flags << "\n" << res.output;
    EXPECT_NE(res.output.find(must_contain), std::string::npos) << flags << "\n" << res.output;
  };
  for (const char* range : {"x", "1-", "-3", "1-2-3", "1:3", "' 1-2'", "123456789", "''"})
    one_line(std::string("--range ") + range, "expected FIRST-LAST");
  one_line("--range 5-2", "the last frame 2 is before the first 5");
  one_line("--range 0-2", "frame 2: the --color input");  // frames 0 and 1 exist
  fs::remove(fx.render + "_0001_depth.pfm");
  one_line("--range 0-1", "frame 1: the --depth input");
  one_line("--temporal none --warmup 2", "--warmup builds a temporal history");
  one_line("--warmup -1", "--warmup");
  one_line("--io-threads -1", "--io-threads");
  one_line("--io-threads 65", "--io-threads");
  one_line("--filters 9", "--filters");
  one_line("--filters 2 --temporal taa", "only with --temporal none");
  const CommandResult single = test::run_volvox("denoise --color c.pfm -o o.pfm --range 1-2");
  EXPECT_TRUE(test::is_one_error_line(single.output)) << single.output;
  EXPECT_NE(single.output.find("flags of --sequence"), std::string::npos) << single.output;
  EXPECT_FALSE(fs::exists(fx.out_file("bad", 0)));
}

}  // namespace
}  // namespace vx
