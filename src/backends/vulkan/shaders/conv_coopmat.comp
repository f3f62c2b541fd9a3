#version 450
// NO_DEFAULT_VARIANT
// VARIANT n1 -DNFRAG=1
// VARIANT n2 -DNFRAG=2
// VARIANT n3 -DNFRAG=3
// VARIANT n4 -DNFRAG=4
// VARIANT n5 -DNFRAG=5
// VARIANT n6 -DNFRAG=6
// VARIANT n7 -DNFRAG=7
// VARIANT n8 -DNFRAG=8
// VARIANT w1 -DNFRAG=1 -DSUBGROUPS=8
// VARIANT w2 -DNFRAG=2 -DSUBGROUPS=8
// VARIANT w3 -DNFRAG=3 -DSUBGROUPS=8
// VARIANT w4 -DNFRAG=4 -DSUBGROUPS=8
// VARIANT w5 -DNFRAG=5 -DSUBGROUPS=8
// VARIANT w6 -DNFRAG=6 -DSUBGROUPS=8
// VARIANT p1 -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT p2 -DNFRAG=2 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT p3 -DNFRAG=3 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT p4 -DNFRAG=4 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT p5 -DNFRAG=5 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT p6 -DNFRAG=6 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT t1 -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1
// VARIANT t2 -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1
// VARIANT t3 -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1
// VARIANT t4 -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DPSTR=2
// VARIANT u1 -DNFRAG=1 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1
// VARIANT u2 -DNFRAG=2 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1
// VARIANT u3 -DNFRAG=3 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1
// VARIANT u4 -DNFRAG=4 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DPSTR=2
// VARIANT e1 -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DNW=8
// VARIANT g1 -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DX3=2
// VARIANT g2 -DNFRAG=2 -DSUBGROUPS=8 -DPREFETCH=1 -DX3=2 -DPSTR=2
// VARIANT c1 -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DX3=3 -O0
// VARIANT c2 -DNFRAG=2 -DSUBGROUPS=8 -DPREFETCH=1 -DX3=3 -DPSTR=2 -O0
// VARIANT pv1 -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1
// VARIANT pv2 -DNFRAG=2 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1
// VARIANT pv3 -DNFRAG=3 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1
// VARIANT pv4 -DNFRAG=4 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1
// VARIANT pv5 -DNFRAG=5 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1
// VARIANT pv6 -DNFRAG=6 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1
// VARIANT tv1 -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1
// VARIANT tv2 -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1
// VARIANT tv3 -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1
// VARIANT tv4 -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DPSTR=2
// VARIANT uv1 -DNFRAG=1 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DEPI16=1
// VARIANT uv2 -DNFRAG=2 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DEPI16=1
// VARIANT uv3 -DNFRAG=3 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DEPI16=1
// VARIANT uv4 -DNFRAG=4 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DEPI16=1 -DPSTR=2
// VARIANT tqv1 -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1
// VARIANT tqv2 -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1
// VARIANT tqv3 -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1
// VARIANT tqv4 -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DPSTR=2
// VARIANT uqv1 -DNFRAG=1 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DMULTI=1 -DEPI16=1
// VARIANT uqv2 -DNFRAG=2 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DMULTI=1 -DEPI16=1
// VARIANT uqv3 -DNFRAG=3 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DMULTI=1 -DEPI16=1
// VARIANT uqv4 -DNFRAG=4 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DPSTR=2
// VARIANT em1 -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DNW=8 -DMULTI=1
// VARIANT tvr1 -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DREUSE=1
// VARIANT tvr2 -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DREUSE=1
// VARIANT tvr3 -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DREUSE=1
// VARIANT tvr4 -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DPSTR=2 -DREUSE=1
// VARIANT tqvr1 -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DREUSE=1
// VARIANT tqvr2 -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DREUSE=1
// VARIANT tqvr3 -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DREUSE=1
// VARIANT tqvr4 -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DPSTR=2 -DREUSE=1
// VARIANT n1h -DNFRAG=1 -DACC16=1
// VARIANT n2h -DNFRAG=2 -DACC16=1
// VARIANT n3h -DNFRAG=3 -DACC16=1
// VARIANT n4h -DNFRAG=4 -DACC16=1
// VARIANT n5h -DNFRAG=5 -DACC16=1
// VARIANT n6h -DNFRAG=6 -DACC16=1
// VARIANT n7h -DNFRAG=7 -DACC16=1
// VARIANT n8h -DNFRAG=8 -DACC16=1
// VARIANT w1h -DNFRAG=1 -DSUBGROUPS=8 -DACC16=1
// VARIANT w2h -DNFRAG=2 -DSUBGROUPS=8 -DACC16=1
// VARIANT w3h -DNFRAG=3 -DSUBGROUPS=8 -DACC16=1
// VARIANT w4h -DNFRAG=4 -DSUBGROUPS=8 -DACC16=1
// VARIANT w5h -DNFRAG=5 -DSUBGROUPS=8 -DACC16=1
// VARIANT w6h -DNFRAG=6 -DSUBGROUPS=8 -DACC16=1
// VARIANT p1h -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT p2h -DNFRAG=2 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT p3h -DNFRAG=3 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT p4h -DNFRAG=4 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT p5h -DNFRAG=5 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT p6h -DNFRAG=6 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT t1h -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DACC16=1
// VARIANT t2h -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DACC16=1
// VARIANT t3h -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DACC16=1
// VARIANT t4h -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DPSTR=2 -DACC16=1
// VARIANT u1h -DNFRAG=1 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DACC16=1
// VARIANT u2h -DNFRAG=2 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DACC16=1
// VARIANT u3h -DNFRAG=3 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DACC16=1
// VARIANT u4h -DNFRAG=4 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DPSTR=2 -DACC16=1
// VARIANT e1h -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DNW=8 -DACC16=1
// VARIANT pv1h -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT pv2h -DNFRAG=2 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT pv3h -DNFRAG=3 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT pv4h -DNFRAG=4 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT pv5h -DNFRAG=5 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT pv6h -DNFRAG=6 -DSUBGROUPS=8 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT tv1h -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT tv2h -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT tv3h -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT tv4h -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DPSTR=2 -DACC16=1
// VARIANT uv1h -DNFRAG=1 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT uv2h -DNFRAG=2 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT uv3h -DNFRAG=3 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DEPI16=1 -DACC16=1
// VARIANT uv4h -DNFRAG=4 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DEPI16=1 -DPSTR=2 -DACC16=1
// VARIANT tqv1h -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DACC16=1
// VARIANT tqv2h -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DACC16=1
// VARIANT tqv3h -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DACC16=1
// VARIANT tqv4h -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DPSTR=2 -DACC16=1
// VARIANT uqv1h -DNFRAG=1 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DACC16=1
// VARIANT uqv2h -DNFRAG=2 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DACC16=1
// VARIANT uqv3h -DNFRAG=3 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DACC16=1
// VARIANT uqv4h -DNFRAG=4 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DPSTR=2 -DACC16=1
// VARIANT em1h -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DNW=8 -DMULTI=1 -DACC16=1
// VARIANT tvr1h -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DREUSE=1 -DACC16=1
// VARIANT tvr2h -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DREUSE=1 -DACC16=1
// VARIANT tvr3h -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DREUSE=1 -DACC16=1
// VARIANT tvr4h -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DEPI16=1 -DPSTR=2 -DREUSE=1 -DACC16=1
// VARIANT tqvr1h -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DREUSE=1 -DACC16=1
// VARIANT tqvr2h -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DREUSE=1 -DACC16=1
// VARIANT tqvr3h -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DREUSE=1 -DACC16=1
// VARIANT tqvr4h -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DMULTI=1 -DEPI16=1 -DPSTR=2 -DREUSE=1 -DACC16=1
// 3x3 conv as an implicit GEMM on tensor cores (GL_NV_cooperative_matrix, 16x16x16 fp16 fragments,
// fp32 accumulators, fp16 in the h twins), with the same fusions as conv_direct. fp16 storage, or fp32 with X3.
//   M = pixels: a workgroup (SUBGROUPS subgroups of 32) computes a TH x 16 pixel tile; subgroup s owns RPS
//       consecutive rows (RPS 16-pixel A fragments); RPS is even, so a fused 2x2 pool stays inside
//       one subgroup.
//   N = output channels: all of them, NFRAG fragments of 16 (n_pad = 16 * NFRAG).
//   K = 9 taps x input channels in chunks of 16. Per chunk, the (TH+2) x 18 halo tile and the
//       chunk's weights for all taps are staged in shared memory once (raw fp16 bits, 16-byte
//       copies, zero padded at borders and past the last channel); every tap then reads its A
//       fragments straight from the halo tile (rows = consecutive pixels, 16 channels each): no
//       im2col copy.
//   n variants: 4 subgroups (4 rows up to 4 fragments, else 2); w: 8 subgroups of 2 rows, for more
//       warps in flight with fewer accumulators each.
//   PREFETCH (every variant but n and w): the global loads of chunk k+1 are issued into registers
//       before the MMAs of chunk k and written to shared memory after them, so their latency hides
//       behind the MMAs (a second shared buffer would not fit 48 KiB). p: 8 subgroups of 2 rows.
//       t: RPS 4 with 8 subgroups (32 x 16 pixel tiles: each staged weight serves twice the pixels),
//       up to 48 outputs; t4 (64 outputs) fits only with unpadded halo pixels (PSTR 2: 2-way bank
//       conflicts on A loads). u: 16 subgroups x 2 rows (32 x 16 tiles as t, each subgroup as p).
//   NW 8 (e, em): 16x8x16 MMAs (N fragments of 8 outputs): half the wasted work for 3 outputs.
//   N split: a workgroup computes NP = NFRAG * NW outputs, those from gl_WorkGroupID.z * NP on
//       (the host dispatches n_pad / NP workgroups along z; z = 1 for a single N block), so a layer
//       can hold half its accumulators per workgroup and re-stage the halo per N block.
//   X3 (g, c variants; fp32 activations): "3xFP16": each fp32 operand x = hi + lo, hi = x with its
//       mantissa cut to fp16's 10 bits (exact in fp16; the bit mask, since a compiler may fold
//       x - fp16(x) to 0), and x * w ~= hi * hi' + hi * lo' + lo * hi' in three fp16 MMAs with fp32
//       accumulation: about fp32 accuracy on tensor cores. One accumulator set, lo unscaled (fp16
//       subnormals for |x| < 2^-4, absolute error <= 2^-25 each); the weights are stored times 256
//       (their lo stays normal), and the epilogue divides by 256. X3 2 (g): the products accumulate
//       in the MMAs; X3 3 (c): see the tap loop.
//   MULTI (em = e; uqv / tqv / tqvr = uv / tv / tvr): a workgroup computes a run of
//       consecutive tiles along x (tiles_x / gl_NumWorkGroups.x of them: the host's dispatch picks
//       the run length); the register prefetch crosses tile boundaries, so the next tile's first
//       chunk loads during the last chunk's MMAs and the epilogue, and the workgroup's start-up is
//       paid once per run.
//   EPI16 (pv / tv / uv = p / t / u with it, and uqv / tqv / tvr / tqvr): the staged epilogue reads
//       8 channels (16 bytes) of shared memory per item and writes them with one 16-byte store
//       (output counts that are a multiple of 8, no pool): half the items, reads and stores of the
//       8-byte path.
//   REUSE (tvr / tqvr = tv / tqv with it; fp16): the tap loop runs by column offset dx: the RPS + 2 halo rows'
//       A fragments at dx are loaded once and serve the three row offsets dy (3 (RPS + 2) A loads
//       per chunk instead of 9 RPS), at RPS + 2 live A fragments instead of RPS. Pays with 4 rows per
//       subgroup (t); with 2 (p, u) it measured level or worse (v10e, NOTES.md).
//   ACC16 (the h twin of every fp16 variant, e.g. tvr4h): fp16 accumulators, OIDN's fastMath for
//       quality below HIGH: half the accumulator registers, about 3x the rounding error.
// Other variants that were measured and dropped (32-channel K steps, scaled lo
// with a second accumulator set, ...) are in git history: bench/vulkan/NOTES.md, "Pruned".
// Weights: f16 B[(tap * k_chunks + chunk) * 16 + k][n], row-major with row length n_pad; X3: the hi
// plane, then the lo plane (256 w = hi + lo).
#if X3
#define TX 0
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#else
#define TX 1
#endif
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#include "element_types.glsl"
#include "conv3x3_io.glsl"

#ifndef SUBGROUPS
#define SUBGROUPS 4  // n variants; the others 8 or 16, for more warps in flight with fewer accumulators each
#endif
#ifndef RPS
#if NFRAG <= 4 && SUBGROUPS == 4
#define RPS 4  // rows (16-pixel A fragments) per subgroup: more reuse of each B fragment
#else
#define RPS 2  // fewer rows where many accumulators already fill the registers
#endif
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif
#ifndef X3
#define X3 0
#endif
#ifndef ACC16
#define ACC16 0
#endif
#if ACC16 && X3
#error fp16 accumulators are for fp16 activations (3xFP16 needs fp32 sums)
#endif
// 16-channel chunks per staging step: always 1 now (the 2 of the pruned k variants needed shared
// memory for twice the channels); the index arithmetic keeps the name so that every variant's
// SPIR-V stays as measured (the -O0 c variants depend on the exact expressions).
#define KSUB 1
#ifndef NW
#define NW 16
#endif
#ifndef MULTI
#define MULTI 0
#endif
#ifndef EPI16
#define EPI16 0
#endif
#ifndef REUSE
#define REUSE 0
#endif
#if X3 != 0 && X3 != 2 && X3 != 3
#error X3 is 2 (g) or 3 (c)
#endif
#if REUSE && X3
#error REUSE is for fp16 (one operand plane)
#endif
#if MULTI && X3
#error MULTI restarts only the main accumulators per tile
#endif
#if EPI16 && (X3 || NW != 16)
#error EPI16 needs fp16 storage and 16-wide fragments
#endif
#define AMAT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define BMAT fcoopmatNV<16, gl_ScopeSubgroup, 16, NW>
#if ACC16  // OIDN's fastMath (quality below HIGH): fp16 accumulators, fewer registers per fragment
#define CMAT fcoopmatNV<16, gl_ScopeSubgroup, 16, NW>
#else
#define CMAT fcoopmatNV<32, gl_ScopeSubgroup, 16, NW>
#endif
#define TH (SUBGROUPS * RPS)
#define THREADS (32 * SUBGROUPS)
#define TW 16
#define HH (TH + 2)
#define HW (TW + 2)
#define NP (NFRAG * NW)  // outputs of one workgroup
#define NP8 (NP / 8)     // uvec4 (8 fp16) per weight row
#define LO_SCALE 1.0  // conv_x3.glsl's scale of lo: none (the weights are stored times 256 instead)
#define W_SCALE_INV (1.0 / 256.0)  // X3: the weights are stored times 256
// Row strides in shared memory, in uvec4 (8 fp16), padded by one uvec4 so that the 8 rows one
// fragment load reads at a time fall in different banks (unpadded: 2-way conflicts on A, up to
// 8-way on B).
#ifndef PSTR
#define PSTR (2 * KSUB + 1)  // halo pixel: 16 * KSUB channels + pad
#endif
#define WSTR (NP8 + 1)  // weight row: NP outputs + pad
#if X3
#define PLANES 2
#else
#define PLANES 1
#endif
#define HALO_PLANE (HH * HW * PSTR)
#define W_PLANE (9 * KSUB * 16 * WSTR)

layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;
// Raw views of the same buffers: fp16: 4 channels = uvec2, 8 = uvec4; fp32 (X3): 4 channels = uvec4.
#if X3
layout(std430, binding = 0) readonly buffer RawA { uvec4 raw_a[]; };
layout(std430, binding = 1) readonly buffer RawB { uvec4 raw_b[]; };
#define RAW4 uvec4
#else
layout(std430, binding = 0) readonly buffer RawA { uvec2 raw_a[]; };
layout(std430, binding = 1) readonly buffer RawB { uvec2 raw_b[]; };
#define RAW4 uvec2
#endif
layout(std430, binding = 2) readonly buffer Weights { uvec4 wts[]; };
#if EPI16  // the output as 8 fp16 per element, for 16-byte stores
layout(std430, binding = 4) writeonly buffer RawDst8 { uvec4 raw_dst8[]; };
#endif

// [plane][halo pixel][2 x 8 channels + pad]; reused as epilogue scratch
shared uvec4 s_in[PLANES * HALO_PLANE];
shared uvec4 s_w[PLANES * W_PLANE];  // [plane][tap][k][n + pad] fp16 of the current step's chunks

RAW4 load_raw(int y, int x, int c4) {
  if (y < 0 || x < 0 || y >= p.H || x >= p.W) return RAW4(0);
  if (p.upcat != 0) {
    if (c4 < p.cin4_a) return raw_a[((y >> 1) * (p.W >> 1) + (x >> 1)) * p.cin4_a + c4];
    return raw_b[(y * p.W + x) * p.cin4_b + (c4 - p.cin4_a)];
  }
  return raw_a[(y * p.W + x) * p.cin4_a + c4];
}

// Staging of one K chunk: item i < HALO_ITEMS is half a halo pixel (8 channels), the rest are
// weight pieces (8 outputs of one tap and k).
#define HALO_ITEMS (HH * HW * 2 * KSUB)
#define W_ITEMS (9 * KSUB * 16 * NP8)
#define HALO_PER_THREAD ((HALO_ITEMS + THREADS - 1) / THREADS)
#define W_PER_THREAD ((W_ITEMS + THREADS - 1) / THREADS)

#if X3
#include "conv_x3.glsl"
#endif

// step: KSUB consecutive 16-channel chunks. X3: also the lo halves (8 fp16) in lo.
uvec4 fetch_halo(int idx, int step, int x0, int y0, int cin4, out uvec4 lo) {
  int pix = idx / (2 * KSUB), c4 = step * 4 * KSUB + (idx % (2 * KSUB)) * 2;
  int y = y0 + pix / HW - 1, x = x0 + pix % HW - 1;
  RAW4 a = c4 < cin4 ? load_raw(y, x, c4) : RAW4(0);
  RAW4 b = c4 + 1 < cin4 ? load_raw(y, x, c4 + 1) : RAW4(0);
#if X3
  uvec2 ha, la, hb, lb;
  split4(a, ha, la);
  split4(b, hb, lb);
  lo = uvec4(la, lb);
  return uvec4(ha, hb);
#else
  lo = uvec4(0);
  return uvec4(a, b);
#endif
}
void store_halo(int idx, uvec4 v, uvec4 lo) {
  int at = (idx / (2 * KSUB)) * PSTR + idx % (2 * KSUB);
  s_in[at] = v;
#if X3
  s_in[HALO_PLANE + at] = lo;
#endif
}
// The weight piece idx of step for this workgroup's N block (global rows are n_pad long); X3: the
// lo plane's piece in lo.
uvec4 fetch_w(int idx, int step, out uvec4 lo) {
  int t = idx / (KSUB * 16 * NP8), rest = idx % (KSUB * 16 * NP8);
  int chunk = step * KSUB + rest / (16 * NP8), rr = rest % (16 * NP8);
  lo = uvec4(0);
  if (chunk >= p.k_chunks) return uvec4(0);  // past the last chunk (only ever with KSUB > 1)
  int row8 = p.n_pad / 8;
  int at = ((t * p.k_chunks + chunk) * 16 + rr / NP8) * row8 + int(gl_WorkGroupID.z) * NP8 + rr % NP8;
#if X3
  lo = wts[9 * p.k_chunks * 16 * row8 + at];
#endif
  return wts[at];
}
void store_w(int idx, uvec4 v, uvec4 lo) {
  int t = idx / (KSUB * 16 * NP8), rest = idx % (KSUB * 16 * NP8);
  int at = (t * KSUB * 16 + rest / NP8) * WSTR + rest % NP8;
  s_w[at] = v;
#if X3
  s_w[W_PLANE + at] = lo;
#endif
}

vec4 unpack4(uvec2 u) { return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)); }
#if X3
vec4 scratch32(int at) { return uintBitsToFloat(s_in[at]) * W_SCALE_INV; }
#endif

// The accumulators' start (per tile with MULTI).
#define INIT_ACC()                      \
  [[unroll]] for (int r = 0; r < RPS; ++r) \
    [[unroll]] for (int n = 0; n < NFRAG; ++n) acc[r][n] = CMAT(0.0);

void main() {
  int lid = int(gl_LocalInvocationID.x);
  int sg = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
#if MULTI  // this workgroup's run of tiles along x
  const int tiles_x = (p.W + TW - 1) / TW, run = (tiles_x + int(gl_NumWorkGroups.x) - 1) / int(gl_NumWorkGroups.x);
  const int tile0 = int(gl_WorkGroupID.x) * run, ntiles = min(run, tiles_x - tile0);
  if (ntiles <= 0) return;
  int x0 = tile0 * TW, y0 = int(gl_WorkGroupID.y) * TH;
#else
  int x0 = int(gl_WorkGroupID.x) * TW, y0 = int(gl_WorkGroupID.y) * TH;
#endif
  int cin4 = p.cin4_a + p.cin4_b;

  CMAT acc[RPS][NFRAG];
#if !MULTI
  INIT_ACC()
#endif

#if PREFETCH
  uvec4 pf_in[HALO_PER_THREAD], pf_w[W_PER_THREAD];
#if X3
  uvec4 pf_in_lo[HALO_PER_THREAD], pf_w_lo[W_PER_THREAD];
#define PF_IN_LO(i) pf_in_lo[i]
#define PF_W_LO(i) pf_w_lo[i]
#else
  uvec4 unused_lo;
#define PF_IN_LO(i) unused_lo
#define PF_W_LO(i) unused_lo
#endif
  [[unroll]] for (int i = 0; i < HALO_PER_THREAD; ++i)
    if (lid + i * THREADS < HALO_ITEMS) pf_in[i] = fetch_halo(lid + i * THREADS, 0, x0, y0, cin4, PF_IN_LO(i));
  [[unroll]] for (int i = 0; i < W_PER_THREAD; ++i)
    if (lid + i * THREADS < W_ITEMS) pf_w[i] = fetch_w(lid + i * THREADS, 0, PF_W_LO(i));
#endif
  const int steps = (p.k_chunks + KSUB - 1) / KSUB;
#if MULTI
  for (int tile = 0; tile < ntiles; ++tile, x0 += TW) {
  INIT_ACC()
#endif
  for (int chunk = 0; chunk < steps; ++chunk) {
    barrier();
#if PREFETCH
    [[unroll]] for (int i = 0; i < HALO_PER_THREAD; ++i)
      if (lid + i * THREADS < HALO_ITEMS) store_halo(lid + i * THREADS, pf_in[i], PF_IN_LO(i));
    [[unroll]] for (int i = 0; i < W_PER_THREAD; ++i)
      if (lid + i * THREADS < W_ITEMS) store_w(lid + i * THREADS, pf_w[i], PF_W_LO(i));
    barrier();
#if MULTI  // the next step's loads in flight during this step's MMAs: the next chunk, or the next tile's first
    const bool last = chunk + 1 == steps;
    if (!last || tile + 1 < ntiles) {
      const int next = last ? 0 : chunk + 1, nx0 = last ? x0 + TW : x0;
#else  // next chunk's loads in flight during this chunk's MMAs
    if (chunk + 1 < steps) {
      const int next = chunk + 1, nx0 = x0;
#endif
      [[unroll]] for (int i = 0; i < HALO_PER_THREAD; ++i)
        if (lid + i * THREADS < HALO_ITEMS) pf_in[i] = fetch_halo(lid + i * THREADS, next, nx0, y0, cin4, PF_IN_LO(i));
      [[unroll]] for (int i = 0; i < W_PER_THREAD; ++i)
        if (lid + i * THREADS < W_ITEMS) pf_w[i] = fetch_w(lid + i * THREADS, next, PF_W_LO(i));
    }
#else
    for (int idx = lid; idx < HALO_ITEMS; idx += THREADS) {
      uvec4 lo, v = fetch_halo(idx, chunk, x0, y0, cin4, lo);
      store_halo(idx, v, lo);
    }
    for (int idx = lid; idx < W_ITEMS; idx += THREADS) {
      uvec4 lo, v = fetch_w(idx, chunk, lo);
      store_w(idx, v, lo);
    }
    barrier();
#endif
#if REUSE
    [[unroll]] for (int dx = 0; dx < 3; ++dx)
      [[unroll]] for (int ks = 0; ks < KSUB; ++ks) {
        AMAT a[RPS + 2];  // halo rows sg * RPS .. sg * RPS + RPS + 1 at column offset dx
        [[unroll]] for (int r = 0; r < RPS + 2; ++r)
          coopMatLoadNV(a[r], s_in, uint(((sg * RPS + r) * HW + dx) * PSTR + 2 * ks), uint(PSTR), false);
        [[unroll]] for (int dy = 0; dy < 3; ++dy)
          [[unroll]] for (int n = 0; n < NFRAG; ++n) {
            BMAT b;
            coopMatLoadNV(b, s_w, uint(((dy * 3 + dx) * KSUB + ks) * 16 * WSTR + n * (NW / 8)), uint(WSTR), false);
            [[unroll]] for (int r = 0; r < RPS; ++r) acc[r][n] = coopMatMulAddNV(a[r + dy], b, acc[r][n]);
          }
      }
#else
    [[unroll]] for (int t = 0; t < 9; ++t)
      [[unroll]] for (int ks = 0; ks < KSUB; ++ks) {
        const int dy = t / 3, dx = t % 3;
        AMAT a[RPS];
        [[unroll]] for (int r = 0; r < RPS; ++r)
          coopMatLoadNV(a[r], s_in, uint(((sg * RPS + r + dy) * HW + dx) * PSTR + 2 * ks), uint(PSTR), false);
#if X3
        AMAT a_lo[RPS];
        [[unroll]] for (int r = 0; r < RPS; ++r)
          coopMatLoadNV(a_lo[r], s_in, uint(HALO_PLANE + ((sg * RPS + r + dy) * HW + dx) * PSTR + 2 * ks), uint(PSTR), false);
#endif
        [[unroll]] for (int n = 0; n < NFRAG; ++n) {
          BMAT b;
          coopMatLoadNV(b, s_w, uint((t * KSUB + ks) * 16 * WSTR + n * (NW / 8)), uint(WSTR), false);
#if X3 != 3
          [[unroll]] for (int r = 0; r < RPS; ++r) acc[r][n] = coopMatMulAddNV(a[r], b, acc[r][n]);
#endif
#if X3
          BMAT b_lo;
          coopMatLoadNV(b_lo, s_w, uint(W_PLANE + (t * KSUB + ks) * 16 * WSTR + n * (NW / 8)), uint(WSTR), false);
          [[unroll]] for (int r = 0; r < RPS; ++r) {
#if X3 == 2
            acc[r][n] = coopMatMulAddNV(a[r], b_lo, acc[r][n]);
            acc[r][n] = coopMatMulAddNV(a_lo[r], b, acc[r][n]);
#else  // X3 3: this tap's three products in a fresh fragment, then into acc by fp32 (round to
       // nearest) adds instead of the MMA's truncating accumulation (built with -O0: glslc -O
       // crashes on adding two matrices; the driver optimises anyway).
            CMAT c = coopMatMulAddNV(a_lo[r], b, CMAT(0.0));
            c = coopMatMulAddNV(a[r], b_lo, c);
            c = coopMatMulAddNV(a[r], b, c);
            acc[r][n] = acc[r][n] + c;
#endif
          }
#endif
        }
      }
#endif
  }  // chunk

  // Epilogue: each subgroup stages two rows x NW channels at a time in its own slice of s_in
  // (32 pixels x CPR uvec4: fp16, or fp32 for X3), then adds bias, applies ReLU / pool and stores.
#if X3
  const int CPR = NW / 4;
#else
  const int CPR = NW / 8;
#endif
  const int QB = NW / 4;  // output vec4 blocks per fragment row
  barrier();
  const int sbase = sg * 32 * CPR;
  [[unroll]] for (int rp = 0; rp < RPS / 2; ++rp) {
    [[unroll]] for (int n = 0; n < NFRAG; ++n) {
#if X3  // fp32 sums into s_in, scaled back in the scalar code below
      coopMatStoreNV(acc[2 * rp][n], s_in, uint(sbase), uint(CPR), false);
      coopMatStoreNV(acc[2 * rp + 1][n], s_in, uint(sbase + 16 * CPR), uint(CPR), false);
#else
      BMAT h0 = BMAT(acc[2 * rp][n]);
      BMAT h1 = BMAT(acc[2 * rp + 1][n]);
      coopMatStoreNV(h0, s_in, uint(sbase), uint(CPR), false);
      coopMatStoreNV(h1, s_in, uint(sbase + 16 * CPR), uint(CPR), false);
#endif
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      const int ob = (int(gl_WorkGroupID.z) * NP + n * NW) / 4;  // first output block of fragment n
      if (p.pool != 0) {
        int j = lane / QB, q = lane % QB, o = ob + q;
        int oy = y0 / 2 + sg * (RPS / 2) + rp, ox = x0 / 2 + j;
        if (lane < 8 * QB && o < p.cout4 && oy < p.out_h && ox < p.out_w) {
          vec4 m = vec4(-3.0e38);
          for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c) {
              int pix = r * 16 + 2 * j + c;
#if X3
              m = max(m, scratch32(sbase + pix * CPR + q));
#else
              uvec4 w = s_in[sbase + pix * CPR + (q >> 1)];
              m = max(m, unpack4((q & 1) == 0 ? w.xy : w.zw));
#endif
            }
          dst[(oy * p.out_w + ox) * p.cout4 + o] = elem4_t(activate(m + bias[o]));
        }
#if EPI16
      } else if ((p.cout4 & 1) == 0) {  // 8 channels per item: one 16-byte shared read and global store
        [[unroll]] for (int k = 0; k < 2; ++k) {
          int item = lane + 32 * k, pix = item >> 1, o = ob + 2 * (item & 1);
          int y = y0 + sg * RPS + 2 * rp + (pix >> 4), x = x0 + (pix & 15);
          if (o < p.cout4 && y < p.out_h && x < p.out_w) {
            uvec4 w = s_in[sbase + pix * CPR + (item & 1)];
            vec4 v0 = activate(unpack4(w.xy) + bias[o]);
            vec4 v1 = activate(unpack4(w.zw) + bias[o + 1]);
            raw_dst8[((y * p.out_w + x) * p.cout4 + o) >> 1] =
                uvec4(packHalf2x16(v0.xy), packHalf2x16(v0.zw), packHalf2x16(v1.xy), packHalf2x16(v1.zw));
          }
        }
#endif
      } else {
        for (int k = 0; k < QB; ++k) {
          int item = lane + 32 * k, pix = item / QB, q = item % QB, o = ob + q;
          int y = y0 + sg * RPS + 2 * rp + (pix >> 4), x = x0 + (pix & 15);
          if (o < p.cout4 && y < p.out_h && x < p.out_w) {
#if X3
            vec4 v = scratch32(sbase + pix * CPR + q);
#else
            uvec4 w = s_in[sbase + pix * CPR + (q >> 1)];
            vec4 v = unpack4((q & 1) == 0 ? w.xy : w.zw);
#endif
            dst[(y * p.out_w + x) * p.cout4 + o] = elem4_t(activate(v + bias[o]));
          }
        }
      }
      subgroupBarrier();
    }
  }
#if MULTI
  }  // tile
#endif
}
