#!/usr/bin/env bash
# Session 31, call 1: where a GEMM's time goes on the GPU (it ran on an H100), with vx_exp: main (699bbdd)
# plus two experiments behind environment switches (without them it runs main's kernels):
# VOLVOX_VK_STAGED_N64 (the staged tensor-core GEMM on 64 x 64 tiles), VOLVOX_VK_STAGED_SPLITK (its
# K splits forced), VOLVOX_VK_IM2COL_PAD (the materialised im2col matrix's rows padded to 16-byte
# words, so that the staged GEMM loads them as vectors).
# Per-node profiles (`volvox bench --profile`, 20 runs after 5 and 1 s) of DeepLabV3 (its ASPP
# layers: 2.4 G multiply-adds each on the materialised im2col + staged tensor-core GEMM), the
# transformer encoder and ResNet-50 at fp16, as chosen and with the K splits forced
# (VOLVOX_VK_SPLITK), and of one-MatMul probes (make_gemm_models.py: ASPP's product with N 1089 and
# padded to 1096, a one-K-step product, the encoder's QKV). The SM clock sampled throughout.
# Carry .gl: the debs, .gl/onnx/vxlib.tar.xz, .gl/t/vx_exp.xz. Device command:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; bash bench/onnx/results/session31_2026-12-05/h100_call1/run.sh
set -uo pipefail
R=$OUT/r; mkdir -p $R /tmp/vxlib /tmp/t /tmp/m /tmp/g
tar -C /tmp -xJf .gl/onnx/vxlib.tar.xz
export LD_LIBRARY_PATH=/tmp/vxlib
xz -dc .gl/t/vx_exp.xz > /tmp/t/vx_head; chmod +x /tmp/t/vx_head
V=/tmp/t/vx_head
pack() { (cd $OUT && tar -cJf s31a.tar.xz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,pstate --format=csv > $R/gpu.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv -lms 250 > $R/clocks.csv 2>&1 &
SMI=$!
python3 bench/onnx/make_gemm_models.py /tmp/g aspp aspp_pad k32 qkv512 > $R/gemm_models.txt 2>&1
timeout 150 python3 bench/onnx/zoo/torch_zoo_gpu.py --export-dir /tmp/m --json $R/torch.json --runs 20 --warmup 5 \
  --warmup-seconds 1 --no-compile --models deeplabv3_mobilenet_v3_large,transformer_encoder,resnet50 > $R/torch.log 2>&1
declare -A S; while read -r n s; do S[$n]=$s; done < /tmp/m/shapes.txt
# m TAG MODEL [ENV=VALUE ...]: a profile of a zoo model at fp16
m() { local tag=$1 model=$2; shift 2
  env "$@" timeout 60 $V bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > $R/$tag.txt 2>&1; }
# g TAG NAME [ENV=VALUE ...]: a profile of a one-MatMul probe at fp16
g() { local tag=$1 name=$2; shift 2
  env "$@" timeout 60 $V bench /tmp/g/gemm_$name.onnx --device vulkan --precision fp16 \
    --runs 20 --warmup 5 --warmup-seconds 1 --io-binding --profile > $R/$tag.txt 2>&1; }
timeout 60 $V bench /tmp/m/resnet50.onnx --device vulkan --precision fp16 --shape "${S[resnet50]}" --runs 20 --warmup 5 --warmup-seconds 4 > $R/ramp.txt 2>&1
m deeplab_auto deeplabv3_mobilenet_v3_large VOLVOX_X=0
m deeplab_split1 deeplabv3_mobilenet_v3_large VOLVOX_VK_SPLITK=1
m deeplab_split3 deeplabv3_mobilenet_v3_large VOLVOX_VK_SPLITK=3
m deeplab_gather deeplabv3_mobilenet_v3_large VOLVOX_VK_IM2COL_MIN_MACS=1e15
m deeplab_pad deeplabv3_mobilenet_v3_large VOLVOX_VK_IM2COL_PAD=1
m deeplab_n64 deeplabv3_mobilenet_v3_large VOLVOX_VK_STAGED_N64=1
pack
for t in auto split1 split9 split3; do
  e=VOLVOX_X=0; [ $t != auto ] && e=VOLVOX_VK_SPLITK=${t#split}
  g aspp_$t aspp $e; g aspp_pad_$t aspp_pad $e
done
for t in auto split1 split2 split4; do
  e=VOLVOX_X=0; [ $t != auto ] && e=VOLVOX_VK_SPLITK=${t#split}
  g qkv512_$t qkv512 $e
done
g k32_staged k32 VOLVOX_VK_GEMM=staged; g k32_tiled k32 VOLVOX_VK_GEMM=tiled
pack
m transformer_auto transformer_encoder VOLVOX_X=0
m transformer_split1 transformer_encoder VOLVOX_VK_SPLITK=1
m transformer_n64 transformer_encoder VOLVOX_VK_STAGED_N64=1
m transformer_n64_split1 transformer_encoder VOLVOX_VK_STAGED_N64=1 VOLVOX_VK_STAGED_SPLITK=1
m resnet_auto resnet50 VOLVOX_X=0
m resnet_n64 resnet50 VOLVOX_VK_STAGED_N64=1
pack
# Whole-model times without per-node timestamps, settings interleaved, two rounds.
# t TAG MODEL [ENV=VALUE ...]
t() { local tag=$1 model=$2; shift 2
  env "$@" timeout 60 $V bench /tmp/m/$model.onnx --device vulkan --precision fp16 --shape "${S[$model]}" \
    --runs 30 --warmup 5 --warmup-seconds 1 --io-binding > $R/$tag.txt 2>&1; }
for round in 1 2; do
  t w${round}_transformer_auto transformer_encoder VOLVOX_X=0
  t w${round}_transformer_n64 transformer_encoder VOLVOX_VK_STAGED_N64=1
  t w${round}_transformer_split1 transformer_encoder VOLVOX_VK_STAGED_SPLITK=1
  t w${round}_transformer_n64_split1 transformer_encoder VOLVOX_VK_STAGED_N64=1 VOLVOX_VK_STAGED_SPLITK=1
  t w${round}_deeplab_auto deeplabv3_mobilenet_v3_large VOLVOX_X=0
  t w${round}_deeplab_pad deeplabv3_mobilenet_v3_large VOLVOX_VK_IM2COL_PAD=1
  t w${round}_deeplab_n64 deeplabv3_mobilenet_v3_large VOLVOX_VK_STAGED_N64=1
  t w${round}_resnet_auto resnet50 VOLVOX_X=0
  t w${round}_resnet_n64 resnet50 VOLVOX_VK_STAGED_N64=1
done
pack
# The experiments' outputs against main's kernels (fp16 on this GPU), max |difference| and peak.
python3 -c "import numpy as n; n.random.seed(0); n.save('/tmp/x_dl.npy', n.random.rand(1,3,520,520).astype(n.float32)); n.save('/tmp/x_tr.npy', n.random.randn(1,128,512).astype(n.float32))"
o() { local dir=$1 model=$2 input=$3; shift 3
  mkdir -p /tmp/o/$dir; env "$@" timeout 60 $V run /tmp/m/$model.onnx -i $input --device vulkan --precision fp16 -o /tmp/o/$dir > /tmp/o/$dir.log 2>&1; }
o dl_base deeplabv3_mobilenet_v3_large input=/tmp/x_dl.npy VOLVOX_X=0
o dl_exp deeplabv3_mobilenet_v3_large input=/tmp/x_dl.npy VOLVOX_VK_IM2COL_PAD=1 VOLVOX_VK_STAGED_N64=1
o tr_base transformer_encoder src=/tmp/x_tr.npy VOLVOX_X=0
o tr_exp transformer_encoder src=/tmp/x_tr.npy VOLVOX_VK_STAGED_N64=1 VOLVOX_VK_STAGED_SPLITK=1
python3 - > $R/outputs.txt 2>&1 <<'PY'
import glob, os, numpy as n
for a, b in (("dl_base", "dl_exp"), ("tr_base", "tr_exp")):
    for f in sorted(glob.glob(f"/tmp/o/{a}/*.npy")):
        x, y = n.load(f), n.load(f.replace(a, b))
        print(a, b, os.path.basename(f), x.shape, "max|diff|", float(n.abs(x.astype(n.float64) - y).max()), "peak", float(n.abs(x).max()))
PY
cat /tmp/o/*.log >> $R/outputs.txt
kill $SMI
(cd $R && for f in *.txt; do echo "$f $(head -2 $f | sed 's/.*: 20 runs, //;s/ (first.*//;s/device time.*: //' | tr '\n' ' ')"; done) > $R/summary.txt
cat $R/summary.txt
pack
