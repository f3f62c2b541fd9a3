# One attention layer masked as PyTorch's masked_fill exports it (Where(mask == 0, -inf, scores) before
# the Softmax), BERT-base sized (12 heads, 128 tokens, 64 per head, the last 28 keys masked), with its
# inputs and PyTorch's output as .npy in the current folder. Session 27 (BENCHMARKS.md):
#   /usr/bin/python3 make_masked_attention.py
#   volvox bench mf.onnx -i q=q.npy k=k.npy v=v.npy mask=mask.npy --threads 2 --runs 100 --warmup 10
import torch, math
class A(torch.nn.Module):
    def forward(self, q, k, v, mask):
        s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        s = s.masked_fill(mask[:, None, None, :] == 0, float('-inf'))
        return torch.softmax(s, -1) @ v
q = torch.randn(1, 12, 128, 64); k = torch.randn(1, 12, 128, 64); v = torch.randn(1, 12, 128, 64)
mask = torch.ones(1, 128, dtype=torch.int64); mask[0, 100:] = 0
torch.onnx.export(A(), (q, k, v, mask), 'mf.onnx', input_names=['q','k','v','mask'], opset_version=14)
import numpy as np
for n, t in zip('q k v mask'.split(), (q, k, v, mask)): np.save(n + '.npy', t.numpy())
np.save('want.npy', A()(q, k, v, mask).numpy())
