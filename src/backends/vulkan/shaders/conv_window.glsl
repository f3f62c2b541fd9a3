// The outputs of the direct convolutions (conv_nchw.comp, conv_dot.comp): an output's position
// from its linear index, and the products of one input channel's window added, in tap order (taps
// in the padding skipped), for WINDOW_OUTPUTS neighbouring outputs along x (define it first; 1
// without), each tap's weight loaded once for them. Include after window_geometry.glsl, the
// constants CG and MG (input and output channels per group) and the buffers
// x_data [N, C, IZ, IY, IX] and w_data [M, CG, KZ, KY, KX].
#extension GL_EXT_control_flow_attributes : require
#ifndef WINDOW_OUTPUTS
#define WINDOW_OUTPUTS 1
#endif
struct ConvOutput {
  int n, oc, g;    // image, output channel, its group
  int oz, oy, ox;  // output position
};

// Output element idx of [N, M, OZ, OY, OX].
ConvOutput conv_output(int idx, int m) {
  ConvOutput o;
  o.ox = idx % OX;
  int t = idx / OX;
  o.oy = t % OY;
  t /= OY;
  o.oz = t % OZ;
  t /= OZ;
  o.oc = t % m;
  o.n = t / m;
  o.g = o.oc / MG;
  return o;
}

// acc[j] += the window of input channel ic (of its group) times its weights for the output j
// places along x from o (outputs past the row read only padding or its neighbours: the caller
// drops them); `channels`: C.
void add_channel_window(inout float acc[WINDOW_OUTPUTS], ConvOutput o, int channels, int ic) {
  const int xbase = (o.n * channels + o.g * CG + ic) * (IZ * IY * IX);
  const int wbase = (o.oc * CG + ic) * (KZ * KY * KX);
  for (int kz = 0; kz < KZ; ++kz) {
    const int iz = o.oz * SZ - PZ + kz * DZ;
    if (iz < 0 || iz >= IZ) continue;
    for (int ky = 0; ky < KY; ++ky) {
      const int iy = o.oy * SY - PY + ky * DY;
      if (iy < 0 || iy >= IY) continue;
      const int row = xbase + (iz * IY + iy) * IX;
      for (int kx = 0; kx < KX; ++kx) {
        const float wv = float(w_data[wbase + (kz * KY + ky) * KX + kx]);
        [[unroll]] for (int j = 0; j < WINDOW_OUTPUTS; ++j) {
          const int ix = (o.ox + j) * SX - PX + kx * DX;
          if (ix >= 0 && ix < IX) acc[j] += float(x_data[row + ix]) * wv;
        }
      }
    }
  }
}
