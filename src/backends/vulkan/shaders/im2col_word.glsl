// One 16-byte word of an im2col matrix row (im2col.comp and gemm_reduce_im2col.comp write the same
// layout): row k = (channel, kz, ky, kx), column n = output pixel (oz, oy, ox), VEC values a word.
// The includer declares VEC and the window constants IZ .. PX, OY, OX (window_geometry.glsl's or
// gemm_io.glsl's).

// The tap (kz, ky, kx) of tap index t < KZ * KY * KX.
ivec3 im2col_tap(int t) {
  const int kz = t / (KY * KX), kyx = t - kz * (KY * KX), ky = kyx / KX;
  return ivec3(kz, ky, kyx - ky * KX);
}

// The input pixel (iz * IY + iy) * IX + ix that output pixel n reads at `tap`, or -1 where the window
// reads padding or n is past the row's `columns` pixels (the word's zeros).
int im2col_source(ivec3 tap, int n, int columns) {
  const int oz = n / (OY * OX), oyx = n - oz * (OY * OX), oy = oyx / OX, ox = oyx - oy * OX;
  const int iz = oz * SZ - PZ + tap.x * DZ, iy = oy * SY - PY + tap.y * DY, ix = ox * SX - PX + tap.z * DX;
  const bool inside = n < columns && iz >= 0 && iy >= 0 && ix >= 0 && iz < IZ && iy < IY && ix < IX;
  return inside ? (iz * IY + iy) * IX + ix : -1;
}

// VEC values as one word of the matrix's element type.
uvec4 im2col_pack(float v[VEC]) {
#if TX == 1
  return uvec4(packHalf2x16(vec2(v[0], v[1])), packHalf2x16(vec2(v[2], v[3])), packHalf2x16(vec2(v[4], v[5])),
               packHalf2x16(vec2(v[6], v[7])));
#else
  return floatBitsToUint(vec4(v[0], v[1], v[2], v[3]));
#endif
}
