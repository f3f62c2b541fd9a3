// tests/farm/slurm_test.sh under ctest (label farm): tools/slurm/ on a one-node Slurm started for
// the test, a job array with one task cancelled halfway and resubmitted, every output checked against
// a single-process run. This wrapper gives the script random weights (the same U-Net as OIDN's
// rt_hdr_alb_nrm, so the same cost per frame), so that it needs no real ones, and the CLI's path.
#include <cstdio>

#include "common/test_util.h"
#include "denoise/unet_spec.h"
#include "formats/tza.h"

namespace vx {
namespace {

TEST(Farm, SlurmJobArrayResumesACancelledTaskWithoutLosingOrRewritingFrames) {
  const auto dir = test::temp_dir();
  write_tza_file(dir / "w.tza", make_random_unet_weights(UNetVariant::base, 9, 14));
  test::ScopedEnv cli("VOLVOX_CLI", test::cli_path());
  const test::CommandResult res = test::run_command("bash " VOLVOX_SOURCE_DIR "/tests/farm/slurm_test.sh '" +
                                                    (dir / "w.tza").string() + "'");
  EXPECT_EQ(res.status, 0) << res.output;
  EXPECT_NE(res.output.find("slurm test passed"), std::string::npos) << res.output;
  std::printf("%s", res.output.c_str());  // the run's summary in ctest's log
}

}  // namespace
}  // namespace vx
