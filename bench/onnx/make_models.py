#!/usr/bin/python3
"""Exports the CPU benchmark models to bench/models/ (git-ignored), with random weights and a fixed
seed so every run benchmarks the same numbers:

  resnet50.onnx  ResNet-50 (torchvision's layout, written in plain torch.nn: torchvision is not a
                 Debian package here), input "input" [1, 3, 224, 224] float32.
  gpt2_decoder.onnx  a GPT-2-sized decoder: 12 layers, d_model 768, 12 heads, MLP 3072, vocab
                 50257, causal attention over seq 128; input "input_ids" [1, 128] int64, output
                 logits [1, 128, 50257].

Run with Debian's python (python3-torch, python3-onnx): /usr/bin/python3 bench/onnx/make_models.py
"""
import inspect
import math
import os
import sys

import torch
from torch import nn

OUT = os.environ.get("VOLVOX_BENCH_MODELS", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return self.relu(y + identity)


class ResNet50(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
                                  nn.MaxPool2d(3, 2, 1))
        layers, cin = [], 64
        for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
            for i in range(blocks):
                layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
                cin = width * 4
        self.layers = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))


class Block(nn.Module):
    def __init__(self, d, heads, seq):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        mask = torch.full((seq, seq), float("-inf")).triu(1)
        self.register_buffer("mask", mask.view(1, 1, seq, seq))

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        k = k.view(b, t, h, d // h).transpose(1, 2)
        v = v.view(b, t, h, d // h).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1) * (1.0 / math.sqrt(d // h)) + self.mask, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.out(nn.functional.gelu(self.fc(self.ln2(x))))


class Decoder(nn.Module):
    def __init__(self, layers=12, d=768, heads=12, seq=128, vocab=50257):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        self.blocks = nn.Sequential(*[Block(d, heads, seq) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        return self.head(self.ln(self.blocks(self.tok(ids) + self.pos)))


def export(model, example, name, input_name, output_name):
    model.eval()
    path = os.path.join(OUT, name)
    # Newer PyTorch (>= 2.5) defaults to the dynamo exporter, which needs onnxscript: ask for the
    # TorchScript exporter, which Debian's 1.13 uses anyway.
    extra = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    with torch.no_grad():
        torch.onnx.export(model, (example,), path, input_names=[input_name], output_names=[output_name],
                          opset_version=17, do_constant_folding=True, **extra)
    print(f"wrote {os.path.relpath(path)} ({os.path.getsize(path) / 2**20:.1f} MiB)")


def main():
    os.makedirs(OUT, exist_ok=True)
    which = sys.argv[1:] or ["resnet50", "gpt2"]
    torch.manual_seed(0)
    if "resnet50" in which:
        net = ResNet50()
        # Non-trivial BatchNorm statistics, so that folding them is actually exercised.
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
        export(net, torch.randn(1, 3, 224, 224), "resnet50.onnx", "input", "logits")
    if "gpt2" in which:
        export(Decoder(), torch.randint(0, 50257, (1, 128)), "gpt2_decoder.onnx", "input_ids", "logits")


if __name__ == "__main__":
    main()
