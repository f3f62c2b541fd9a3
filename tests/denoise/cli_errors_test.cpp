// The CLI's error contract (issue 10): every failure is exit status 1 with exactly one line
// "volvox: ..." naming the flag or file; flags are validated before anything runs; an output never
// overwrites an input; a failed write leaves the previous output as it was.
#include <filesystem>
#include <fstream>
#include <set>

#include "common/onnx_test_models.h"
#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "formats/image_io.h"
#include "formats/npy.h"

namespace vx {
namespace {

namespace fs = std::filesystem;

void expect_one_error_line(const test::CommandResult& res, const std::string& must_contain, const std::string& what) {
  EXPECT_EQ(res.status, 1) << what << "\n" << res.output;
  EXPECT_TRUE(test::is_one_error_line(res.output)) << what << "\n" << res.output;
  EXPECT_NE(res.output.find(must_contain), std::string::npos) << what << ": expected '" << must_contain << "' in\n"
                                                              << res.output;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Files in `dir` other than `keep` (a failed write must leave no temporary file behind).
std::vector<std::string> other_files(const fs::path& dir, const std::set<std::string>& keep) {
  std::vector<std::string> extra;
  for (const auto& entry : fs::directory_iterator(dir))
    if (!keep.count(entry.path().filename().string())) extra.push_back(entry.path().filename().string());
  return extra;
}

TEST(CliErrors, ParseErrorsAreOneLine) {
  expect_one_error_line(test::run_volvox("denoise --color c.pfm -o x.pfm --bogus-flag"), "--bogus-flag",
                        "unknown flag");
  expect_one_error_line(test::run_volvox("no-such-command"), "no-such-command", "unknown command");
  expect_one_error_line(test::run_volvox("denoise -o x.pfm"), "--color", "missing required flag");
  expect_one_error_line(test::run_volvox("denoise --color c.pfm -o x.pfm --threads many"), "--threads",
                        "a word for a number");
  expect_one_error_line(test::run_volvox(""), "subcommand", "no command");
  // --help is not an error.
  const test::CommandResult help = test::run_volvox("denoise --help");
  EXPECT_EQ(help.status, 0) << help.output;
  EXPECT_NE(help.output.find("--max-memory-mb"), std::string::npos) << help.output;
}

// Bad values are refused before any file is read: the input files here do not even exist.
TEST(CliErrors, FlagValuesAreValidatedBeforeWork) {
  const fs::path model = test::temp_dir() / "empty.onnx";  // exists (CLI11 checks that first), never read
  std::ofstream(model).put('\n');
  const std::string denoise = "denoise --color missing.pfm -o out.pfm ";
  const std::string sequence_compare = "compare --sequence --reference 'r_%d.pfm' --motion 'm_%d.pfm' --depth "
                                       "'d_%d.pfm' --normal 'n_%d.pfm' 'x_%d.pfm' ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {denoise + "--threads -1", "--threads"},
      {denoise + "--threads 100000", "--threads"},
      {denoise + "--max-tile -5", "--max-tile"},
      {denoise + "--max-memory-mb 0", "--max-memory-mb"},
      {denoise + "--max-memory-mb -7", "--max-memory-mb"},
      {denoise + "--repeat 0", "--repeat"},
      {denoise + "--device ''", "--device"},
      {denoise + "--device gpu", "--device"},
      {denoise + "--device vulkan:x", "--device"},
      {denoise + "--input-scale 1e-45", "--input-scale"},
      {denoise + "--input-scale inf", "--input-scale"},
      {denoise + "--input-scale -2", "--input-scale"},
      {denoise + "--target-tile-ms 1e300", "--target-tile-ms"},
      {denoise + "--hdr --srgb", "--srgb"},
      {"denoise --color missing.pfm -o out.xyz", ".xyz"},
      {"bench " + model.string() + " --runs 0", "--runs"},
      {"bench " + model.string() + " --threads 5000", "--threads"},
      {"bench " + model.string() + " --io-binding", "--io-binding needs a Vulkan device"},
      {"run " + model.string() + " --device ''", "--device"},
      {"run " + model.string() + " --input x", "NAME=FILE.npy"},
      {"render --scene room -o r --width 0", "--width"},
      {"render --scene room -o r --spp -3", "--spp"},
      {"render --scene room -o r --frames 0", "--frames"},
      {"render --scene room -o r --frames 2 --camera spiral", "unknown camera path"},
      {"render --scene nowhere -o r", "nowhere"},
      {"weights fetch '../etc/passwd'", "weights name"},
      {"compare --reference r.pfm x.pfm --gif out.gif", "--gif needs --sequence"},
      {sequence_compare + "--gif out.png", "must end in .gif"},
      {sequence_compare + "--gif out.gif --gif-delay-ms 9", "--gif-delay-ms 9 is out of range"},
      {sequence_compare + "--gif out.gif --gif-delay-ms 10001", "--gif-delay-ms 10001 is out of range"},
      {sequence_compare + "--gif-delay-ms 50", "--gif-delay-ms is the frame delay of --gif"},
  };
  for (const auto& [args, flag] : cases) expect_one_error_line(test::run_volvox(args), flag, args);
}

TEST(CliErrors, OutputMustNotOverwriteAnInput) {
  const fs::path dir = test::temp_dir() / "overwrite";
  fs::create_directories(dir);
  Image color(8, 8, 3);
  for (size_t i = 0; i < color.pixels.size(); ++i) color.pixels[i] = float(i % 7) / 7.0f;
  write_image(dir / "c.pfm", color);
  write_tza_file(dir / "w.tza", make_random_unet_weights(UNetVariant::small, 3, 4));
  const std::string before = file_text(dir / "c.pfm"), weights_before = file_text(dir / "w.tza");
  const std::string common = "denoise --device cpu --weights " + (dir / "w.tza").string() + " --color " +
                             (dir / "c.pfm").string();
  // The same file under another spelling is still the same file.
  expect_one_error_line(test::run_volvox(common + " -o " + (dir / "." / "c.pfm").string()), "--color",
                        "output is the colour input");
  expect_one_error_line(test::run_volvox(common + " -o " + (dir / "w.tza").string()), "weights",
                        "output is the weights file");
  EXPECT_EQ(file_text(dir / "c.pfm"), before);
  EXPECT_EQ(file_text(dir / "w.tza"), weights_before);

  // compare --sequence --gif: the GIF may not be an input's frame pattern (here one ending in .gif,
  // spelled another way), checked before any frame is read.
  const std::string frames = "'" + (dir / "f_%d.gif").string() + "'";
  const std::string other_spelling = "'" + (dir / "." / "f_%d.gif").string() + "'";
  const std::string guides = " --motion 'm_%d.pfm' --depth 'd_%d.pfm' --normal 'n_%d.pfm' ";
  expect_one_error_line(test::run_volvox("compare --sequence --reference 'r_%d.pfm'" + guides + frames + " --gif " +
                                         other_spelling),
                        "is one of the sequences compared", "GIF is a compared sequence");
  expect_one_error_line(test::run_volvox("compare --sequence --reference " + frames + guides + "'x_%d.pfm' --gif " +
                                         other_spelling),
                        "is an input", "GIF is the reference");
}

// A file-size limit (ulimit -f) makes every write fail part-way: exit 1, the previous output byte
// for byte, no temporary file left.
TEST(CliErrors, FailedWriteKeepsThePreviousOutput) {
  const fs::path dir = test::temp_dir() / "failed_write";
  fs::create_directories(dir);
  Image color(40, 24, 3);
  for (size_t i = 0; i < color.pixels.size(); ++i) color.pixels[i] = float(i % 13) / 13.0f;
  write_image(dir / "c.pfm", color);
  write_tza_file(dir / "w.tza", make_random_unet_weights(UNetVariant::small, 3, 4));
  const std::string previous = "the previous output, which must survive";
  std::ofstream(dir / "out.pfm") << previous;
  // bash counts ulimit -f in 1024-byte blocks: 4 KB is less than the 11.5 KB output.
  const std::string limited = "ulimit -f 4; exec " + test::cli_path() + " ";
  test::CommandResult res = test::run_command(
      "bash -c '" + limited + "denoise --device cpu --weights " + (dir / "w.tza").string() + " --color " +
      (dir / "c.pfm").string() + " -o " + (dir / "out.pfm").string() + "'");
  expect_one_error_line(res, "out.pfm", "denoise past the file-size limit");
  EXPECT_EQ(file_text(dir / "out.pfm"), previous);
  EXPECT_EQ(other_files(dir, {"c.pfm", "w.tza", "out.pfm"}), std::vector<std::string>{});

  // `volvox run` writes .npy outputs the same way.
  const fs::path model = dir / "m.onnx";
  std::ofstream(model, std::ios::binary) << test::two_output_model("relu", "neg");
  Tensor x = test::random_tensor({2, 3}, 5);
  write_npy(dir / "x.npy", x);
  std::ofstream(dir / "relu.npy") << previous;
  res = test::run_command("bash -c 'ulimit -f 0; exec " + test::cli_path() + " run " + model.string() + " --input x=" +
                          (dir / "x.npy").string() + " -o " + dir.string() + "'");
  expect_one_error_line(res, ".npy", "run past the file-size limit");
  EXPECT_EQ(file_text(dir / "relu.npy"), previous);
  EXPECT_FALSE(fs::exists(dir / "neg.npy"));
  EXPECT_EQ(other_files(dir, {"c.pfm", "w.tza", "out.pfm", "m.onnx", "x.npy", "relu.npy"}), std::vector<std::string>{});
}

TEST(CliErrors, CollidingOutputNamesAreRefusedBeforeRunning) {
  const fs::path dir = test::temp_dir() / "collide";
  fs::create_directories(dir / "out");
  std::ofstream(dir / "m.onnx", std::ios::binary) << test::two_output_model("a/b", "a_b");
  write_npy(dir / "x.npy", test::random_tensor({2, 3}, 5));
  const test::CommandResult res = test::run_volvox("run " + (dir / "m.onnx").string() + " --input x=" +
                                                   (dir / "x.npy").string() + " -o " + (dir / "out").string());
  expect_one_error_line(res, "a_b.npy", "colliding output names");
  EXPECT_NE(res.output.find("'a/b'"), std::string::npos) << res.output;
  EXPECT_TRUE(fs::is_empty(dir / "out"));

  // An output file that is an input file: output "y" would be written to y.npy, the input.
  std::ofstream(dir / "m2.onnx", std::ios::binary) << test::two_output_model("y", "z");
  write_npy(dir / "y.npy", test::random_tensor({2, 3}, 6));
  const std::string y_before = file_text(dir / "y.npy");
  expect_one_error_line(test::run_volvox("run " + (dir / "m2.onnx").string() + " --input x=" + (dir / "y.npy").string() +
                                         " -o " + dir.string()),
                        "y.npy", "output overwrites the input");
  EXPECT_EQ(file_text(dir / "y.npy"), y_before);
}

// An allocation that fails (here: under a 1.5 GB address-space limit, a 1500x1500 image untiled
// needs a 1.4 GB arena) is one clear line, not std::bad_alloc or a crash.
TEST(CliErrors, FailedAllocationIsOneLine) {
  const fs::path dir = test::temp_dir() / "allocation";
  fs::create_directories(dir);
  write_image(dir / "c.pfm", Image(1500, 1500, 3));
  write_tza_file(dir / "w.tza", make_random_unet_weights(UNetVariant::base, 3, 4));
  const test::CommandResult res = test::run_command(
      "bash -c 'ulimit -v 1500000; exec " + test::cli_path() + " denoise --device cpu --weights " +
      (dir / "w.tza").string() + " --color " + (dir / "c.pfm").string() + " -o " + (dir / "o.pfm").string() +
      " --max-memory-mb 100000'");
  expect_one_error_line(res, "allocat", "denoise past the address-space limit");
  EXPECT_FALSE(fs::exists(dir / "o.pfm"));
}

// The ONNX executor refuses a plan above --max-memory-mb before allocating it, and says what it
// needs; under the limit the same run works and --profile reports the arena.
TEST(CliErrors, RunRefusesAPlanAboveTheMemoryLimit) {
  const fs::path dir = test::temp_dir() / "memory_limit";
  fs::create_directories(dir);
  std::ofstream(dir / "m.onnx", std::ios::binary) << test::sigmoid_exp_model();
  write_npy(dir / "x.npy", test::random_tensor({1 << 20}, 8));  // 4 MiB: the arena holds two of these
  const std::string run = "run " + (dir / "m.onnx").string() + " --input x=" + (dir / "x.npy").string() + " -o " +
                          dir.string();
  expect_one_error_line(test::run_volvox(run + " --max-memory-mb 2"), "above the limit of 2 MB (maxMemoryMB)",
                        "run over the memory limit");
  EXPECT_FALSE(fs::exists(dir / "y.npy"));
  const test::CommandResult ok = test::run_volvox(run + " --max-memory-mb 64 --profile");
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(ok.output.find("MB activation arena"), std::string::npos) << ok.output;
  EXPECT_TRUE(fs::exists(dir / "y.npy"));
}

}  // namespace
}  // namespace vx
