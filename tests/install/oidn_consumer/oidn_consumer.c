/* OIDN's documented C example, as a renderer would write it against OIDN 2.4: the default device,
 * buffers filled through oidnGetBufferData, the RT filter with OIDN's built-in weights (or the
 * weights file given), errors read with oidnGetDeviceError. Checks that a noisy grey stays grey.
 * Usage: oidn_consumer [weights.tza]. Prints "ok" and exits 0 when every check holds. */
#include <OpenImageDenoise/oidn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int failed(OIDNDevice device, const char* what) {
  const char* message = NULL;
  if (oidnGetDeviceError(device, &message) == OIDN_ERROR_NONE) return 0;
  printf("%s: %s\n", what, message ? message : "(no message)");
  return 1;
}

static void* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  void* data = malloc(*size);
  if (data && fread(data, 1, *size, f) != *size) {
    free(data);
    data = NULL;
  }
  fclose(f);
  return data;
}

int main(int argc, char** argv) {
  const size_t w = 37, h = 23, bytes = w * h * 3 * sizeof(float);
  OIDNDevice device = oidnNewDevice(OIDN_DEVICE_TYPE_DEFAULT);
  if (!device) return failed(NULL, "oidnNewDevice");
  oidnCommitDevice(device);
  if (failed(device, "oidnCommitDevice")) return 1;
  if (oidnGetDeviceInt(device, "versionMajor") != 2) {
    printf("versionMajor %d, expected 2\n", oidnGetDeviceInt(device, "versionMajor"));
    return 1;
  }

  OIDNBuffer color = oidnNewBuffer(device, bytes);
  if (failed(device, "oidnNewBuffer")) return 1;
  float* pixels = (float*)oidnGetBufferData(color);
  for (size_t i = 0; i < w * h; ++i)
    for (size_t c = 0; c < 3; ++c) pixels[i * 3 + c] = 0.5f + (((i % w) + (i / w)) % 2 ? 0.05f : -0.05f);

  OIDNFilter filter = oidnNewFilter(device, "RT");
  oidnSetFilterImage(filter, "color", color, OIDN_FORMAT_FLOAT3, w, h, 0, 0, 0);
  oidnSetFilterImage(filter, "output", color, OIDN_FORMAT_FLOAT3, w, h, 0, 0, 0); /* in place */
  void* weights = NULL;
  size_t weights_size = 0;
  if (argc > 1) {
    weights = read_file(argv[1], &weights_size);
    if (!weights) {
      printf("cannot read %s\n", argv[1]);
      return 1;
    }
    oidnSetSharedFilterData(filter, "weights", weights, weights_size);
  }
  oidnCommitFilter(filter);
  oidnExecuteFilter(filter);
  if (failed(device, "denoising")) return 1;

  double sum = 0;
  for (size_t i = 0; i < w * h * 3; ++i) {
    if (!isfinite(pixels[i]) || pixels[i] < 0.0f || pixels[i] > 1.0f) {
      printf("output value %g is not a pixel of a grey image\n", (double)pixels[i]);
      return 1;
    }
    sum += pixels[i];
  }
  const double mean = sum / (double)(w * h * 3);
  if (fabs(mean - 0.5) > 0.05) {
    printf("mean %.4f, expected 0.5 +- 0.05\n", mean);
    return 1;
  }
  /* An unknown filter type is an error with OIDN's code. */
  if (oidnNewFilter(device, "NoSuchFilter") != NULL || oidnGetDeviceError(device, NULL) != OIDN_ERROR_INVALID_ARGUMENT) {
    printf("an unknown filter type did not give OIDN_ERROR_INVALID_ARGUMENT\n");
    return 1;
  }
  oidnReleaseFilter(filter);
  oidnReleaseBuffer(color);
  oidnReleaseDevice(device);
  free(weights);
  printf("ok (mean %.4f)\n", mean);
  return 0;
}
