// A user's image in a storage buffer, as the denoiser's shaders address it (image processing,
// the temporal stage). Images are read and written as raw 32-bit words so that one shader handles
// f32 and f16 pixels with any byte strides (no 16-bit storage needed): an image is a byte offset, a
// pixel stride, a row stride, a channel count and an element type (vk::DenoiseImageDesc on the host).
struct ImageDesc {
  uint offset;        // bytes from the start of the bound range to pixel (0, 0)
  uint pixel_stride;  // bytes
  uint row_stride;    // bytes
  int channels;       // 1, 2 or 3
  int half_type;      // 1: f16 elements, 0: f32
  int pad0, pad1, pad2;
};

// Element c of pixel (x, y) of image `d` stored in `words`.
#define LOAD_ELEM(words, d, x, y, c, result)                                                    \
  {                                                                                             \
    uint byte_ = d.offset + uint(y) * d.row_stride + uint(x) * d.pixel_stride;                  \
    if (d.half_type != 0) {                                                                     \
      byte_ += uint(c) * 2u;                                                                    \
      result = unpackHalf2x16(words[byte_ >> 2] >> ((byte_ & 2u) * 8u)).x;                      \
    } else {                                                                                    \
      byte_ += uint(c) * 4u;                                                                    \
      result = uintBitsToFloat(words[byte_ >> 2]);                                              \
    }                                                                                           \
  }

// Three channels as OIDN broadcasts them: 1 channel -> (v, v, v), 2 -> (v0, v1, v1).
#define LOAD_RGB(words, d, x, y, rgb)                 \
  {                                                   \
    float a_, b_ = 0.0, c_ = 0.0;                     \
    LOAD_ELEM(words, d, x, y, 0, a_);                 \
    if (d.channels == 1) {                            \
      rgb = vec3(a_);                                 \
    } else {                                          \
      LOAD_ELEM(words, d, x, y, 1, b_);               \
      c_ = b_;                                        \
      if (d.channels >= 3) LOAD_ELEM(words, d, x, y, 2, c_); \
      rgb = vec3(a_, b_, c_);                         \
    }                                                 \
  }

// Writes element c of pixel (x, y). f16 elements share 32-bit words with their neighbours (other
// invocations' pixels, or an alpha the filter keeps): they are written with atomics on their half.
#define STORE_ELEM(words, d, x, y, c, value)                                   \
  {                                                                            \
    uint byte_ = d.offset + uint(y) * d.row_stride + uint(x) * d.pixel_stride; \
    if (d.half_type != 0) {                                                    \
      byte_ += uint(c) * 2u;                                                   \
      uint shift_ = (byte_ & 2u) * 8u;                                         \
      uint bits_ = packHalf2x16(vec2(value, 0.0)) & 0xffffu;                   \
      atomicAnd(words[byte_ >> 2], ~(0xffffu << shift_));                      \
      atomicOr(words[byte_ >> 2], bits_ << shift_);                            \
    } else {                                                                   \
      byte_ += uint(c) * 4u;                                                   \
      words[byte_ >> 2] = floatBitsToUint(value);                              \
    }                                                                          \
  }
