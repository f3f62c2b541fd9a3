// The operands of vx.Attention's kernels (attention.comp, attention_coopmat.comp; kernels/attention.cpp):
//   binding 0: Q [batch, Sq, D]; 1: K [batch, Sk, D] (or [batch, D, Sk] with flags & 2);
//   2: V [batch, Sk, Dv]; 3: Mask (flags & 1; read at batch offset + row * m_row + key * m_col);
//   4: Y [batch, Sq, Dv]. Batch offsets from up to three batch axes with per-tensor strides
//   (0 along broadcast axes). Rows (query / key positions) of Q, K (not transposed), V and Y are
//   q_row / k_row / v_row / y_row elements apart, so the heads-interleaved layout [B, S, H, D]
//   (vx.Attention's "bshd") reads and writes in place; D and Dv are always contiguous.

// Matches AttentionPush in kernels/attention.cpp.
layout(push_constant) uniform Params {
  int sq, sk, d, dv;
  int bdims[3];
  int qs[3], ks[3], vs[3], ms[3], ys[3];
  int q_row, k_row, v_row, y_row;
  int m_row, m_col;
  int flags;  // 1: mask, 2: K transposed ([D, Sk])
  float scale;
} p;

// Element offsets of one batch in Q, K, V, the mask and Y.
struct AttentionOffsets {
  int q, k, v, m, y;
};

// The offsets of batch `index` (the workgroup's y).
AttentionOffsets attention_offsets(int index) {
  AttentionOffsets o = AttentionOffsets(0, 0, 0, 0, 0);
  for (int a = 2; a >= 0; --a) {
    int c = index % p.bdims[a];
    index /= p.bdims[a];
    o.q += c * p.qs[a];
    o.k += c * p.ks[a];
    o.v += c * p.vs[a];
    o.m += c * p.ms[a];
    o.y += c * p.ys[a];
  }
  return o;
}
