# A 6-layer nn.TransformerEncoder (d 384, 6 heads, FFN 1536, batch_first) with a key padding mask (the
# last 28 of 128 tokens), exported with the mask as an input; writes enc.onnx, x.npy, mask.npy and
# PyTorch's output want.npy. Exported with autograd on: under no_grad PyTorch 1.13 takes its fused
# encoder kernel, which the exporter cannot write. Session 27 (BENCHMARKS.md):
#   /usr/bin/python3 make_padded_encoder.py
#   volvox bench enc.onnx -i x=x.npy mask=mask.npy --threads 2 --runs 30 --warmup 3
#   node bench/onnx/ort_bench_model.js --model enc.onnx --input x:float32:1x128x384 --input mask:int64:1x128 --threads 2 --warmup 3 --runs 30
import torch
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=384, nhead=6, dim_feedforward=1536, batch_first=True, dropout=0.0)
enc = torch.nn.TransformerEncoder(layer, num_layers=6, enable_nested_tensor=False).eval()
class M(torch.nn.Module):
    def __init__(s): super().__init__(); s.enc = enc
    def forward(s, x, mask): return s.enc(x, src_key_padding_mask=mask == 0)
x = torch.randn(1, 128, 384); mask = torch.ones(1, 128, dtype=torch.int64); mask[0, 100:] = 0
if True:
    torch.onnx.export(M().eval(), (x, mask), 'enc.onnx', input_names=['x', 'mask'], opset_version=14)
    import numpy as np
    np.save('x.npy', x.numpy()); np.save('mask.npy', mask.numpy()); np.save('want.npy', M()(x, mask).detach().numpy())
