// One output element of the direct convolutions (conv_nchw.comp, conv_dot.comp): its position from
// its linear index, and (conv_dot.comp) the products of one input channel's window added to acc in
// tap order (taps in the padding skipped). Include after window_geometry.glsl, the constants CG and
// MG (input and output channels per group) and the buffers x_data [N, C, IZ, IY, IX] and
// w_data [M, CG, KZ, KY, KX].
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

// acc += the window of input channel ic (of its group) times its weights; `channels`: C.
void add_channel_window(inout float acc, ConvOutput o, int channels, int ic) {
  int xbase = (o.n * channels + o.g * CG + ic) * (IZ * IY * IX);
  int wbase = (o.oc * CG + ic) * (KZ * KY * KX);
  for (int kz = 0; kz < KZ; ++kz) {
    int iz = o.oz * SZ - PZ + kz * DZ;
    if (iz < 0 || iz >= IZ) continue;
    for (int ky = 0; ky < KY; ++ky) {
      int iy = o.oy * SY - PY + ky * DY;
      if (iy < 0 || iy >= IY) continue;
      for (int kx = 0; kx < KX; ++kx) {
        int ix = o.ox * SX - PX + kx * DX;
        if (ix < 0 || ix >= IX) continue;
        acc += float(x_data[xbase + (iz * IY + iy) * IX + ix]) * float(w_data[wbase + (kz * KY + ky) * KX + kx]);
      }
    }
  }
}
