#!/usr/bin/env python3
"""Builds the models and cases PlantGuideInference is checked against, in ONNX's node-test layout (model.onnx,
test_data_set_N/input_K.pb and output_K.pb), so that NodeTest and `check-onnx-test` run them all:

- mobilenetv2: MobileNetV2-shaped (inverted residuals, depthwise convolutions, batch norm, ReLU6 as Clip, global
  average pool, Gemm), random weights, 224×224; expected outputs from onnxruntime.
- resnet18: ResNet-18-shaped (7×7 stem, max pool, basic blocks with 1×1 downsampling), random weights.
- plant-cnn: the default model (when the model repository has it) on random [-1, 1] inputs.
- vit, deit, swin, convnext (and vit-opset13, swin-opset17, convnext-opset13, vit-gelu20: the same architectures
  exported at other opsets, LayerNorm decomposed or not, GELU through Erf or the Gelu operator): small
  transformer and ConvNeXt graphs written as torch.onnx.export writes them (transformer_models.py), random
  weights, batches of 1 and 8; expected outputs from onnxruntime.
- repository/zero-shot-demo: a CLIP-style zero-shot entry whose right answers are known by construction: the
  "encoder" embeds a photo as its mean colour (GlobalAveragePool), and each label's text embedding is the colour
  it is named after (Rosa rubra red, Ficus viridis green, Iris caerulea blue, Helianthus aureus yellow).
- linear-packed, depthwise-small: Linear layers with constant weights (Gemm's transposes, C shapes, α, a fused
  Relu; MatMul with its bias) and depthwise 3×3 convolutions (paddings, strides, fused activations), the cases the
  executor's packed and whole-image kernels take; expected outputs from onnxruntime.
- pad_edge_float, pad_reflect_float: float versions of ONNX's edge/reflect Pad tests (whose own data is int32),
  gelu_none, gelu_tanh (Debian's ONNX test data predates Gelu), equal_int64 and range_int64 (its own are int32);
  expected outputs from ONNX's reference
  evaluator.
- repository/mobilenetv2-random: the MobileNetV2-shaped model as a model-repository entry (config.json, 1000
  placeholder labels), for load tests where the model, not the photo, is the work (Scripts/bench
  scaling). Its answers mean nothing.

Usage: make_test_models.py OUTPUT_DIR [MODEL_REPOSITORY]. Deterministic (fixed seeds).
"""
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import transformer_models


class GraphBuilder:
    """Collects nodes and random initializers of a convolutional network."""

    def __init__(self, seed: int):
        self.random = np.random.default_rng(seed)
        self.nodes, self.initializers = [], []
        self.count = 0

    def name(self, kind: str) -> str:
        self.count += 1
        return f"{kind}{self.count}"

    def constant(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(array.astype(np.float32), name))
        return name

    def conv_bn(self, x: str, cin: int, cout: int, kernel: int, stride: int = 1, groups: int = 1, act: str = "relu") -> str:
        name = self.name("conv")
        fan_in = cin // groups * kernel * kernel
        w = self.random.normal(0, np.sqrt(2.0 / fan_in), (cout, cin // groups, kernel, kernel))
        pad = kernel // 2
        self.nodes.append(helper.make_node(
            "Conv", [x, self.constant(name + ".w", w)], [name], name=name, kernel_shape=[kernel, kernel],
            strides=[stride, stride], pads=[pad] * 4, group=groups))
        bn = name + ".bn"
        self.nodes.append(helper.make_node(
            "BatchNormalization",
            [name, self.constant(bn + ".scale", self.random.uniform(0.5, 1.5, cout)),
             self.constant(bn + ".bias", self.random.normal(0, 0.1, cout)),
             self.constant(bn + ".mean", self.random.normal(0, 0.1, cout)),
             self.constant(bn + ".var", self.random.uniform(0.5, 1.5, cout))],
            [bn], name=bn, epsilon=1e-5))
        if act == "relu":
            self.nodes.append(helper.make_node("Relu", [bn], [bn + ".relu"], name=bn + ".relu"))
            return bn + ".relu"
        if act == "relu6":
            low, high = self.constant(bn + ".min", np.array(0.0)), self.constant(bn + ".max", np.array(6.0))
            self.nodes.append(helper.make_node("Clip", [bn, low, high], [bn + ".relu6"], name=bn + ".relu6"))
            return bn + ".relu6"
        return bn

    def add(self, a: str, b: str) -> str:
        name = self.name("add")
        self.nodes.append(helper.make_node("Add", [a, b], [name], name=name))
        return name

    def relu(self, x: str) -> str:
        self.nodes.append(helper.make_node("Relu", [x], [x + ".relu"], name=x + ".relu"))
        return x + ".relu"

    def head(self, x: str, features: int, classes: int) -> str:
        self.nodes.append(helper.make_node("GlobalAveragePool", [x], ["pooled"], name="pool"))
        self.nodes.append(helper.make_node("Flatten", ["pooled"], ["features"], name="flatten", axis=1))
        w = self.random.normal(0, np.sqrt(1.0 / features), (classes, features))
        self.nodes.append(helper.make_node(
            "Gemm", ["features", self.constant("fc.w", w), self.constant("fc.b", self.random.normal(0, 0.01, classes))],
            ["logits"], name="fc", transB=1))
        return "logits"

    def model(self, name: str, size: int, classes: int) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, name, [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, size, size])],
            [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", classes])], self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="plantguide-tests")
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def mobilenet_v2() -> onnx.ModelProto:
    g = GraphBuilder(seed=2)
    x = g.conv_bn("image", 3, 32, 3, stride=2, act="relu6")
    channels = 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = channels * t
            y = x if t == 1 else g.conv_bn(x, channels, hidden, 1, act="relu6")
            y = g.conv_bn(y, hidden, hidden, 3, stride=stride, groups=hidden, act="relu6")
            y = g.conv_bn(y, hidden, c, 1, act="none")
            x = g.add(x, y) if stride == 1 and channels == c else y
            channels = c
    x = g.conv_bn(x, channels, 1280, 1, act="relu6")
    g.head(x, 1280, 1000)
    return g.model("mobilenetv2", 224, 1000)


def resnet18() -> onnx.ModelProto:
    g = GraphBuilder(seed=18)
    x = g.conv_bn("image", 3, 64, 7, stride=2)
    g.nodes.append(helper.make_node("MaxPool", [x], ["stem.pool"], name="stem.pool", kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4))
    x, channels = "stem.pool", 64
    for c, s in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        for i in range(2):
            stride = s if i == 0 else 1
            y = g.conv_bn(x, channels, c, 3, stride=stride)
            y = g.conv_bn(y, c, c, 3, act="none")
            shortcut = g.conv_bn(x, channels, c, 1, stride=stride, act="none") if stride != 1 or channels != c else x
            x = g.relu(g.add(y, shortcut))
            channels = c
    g.head(x, 512, 1000)
    return g.model("resnet18", 224, 1000)


def write_case(folder: str, model: onnx.ModelProto, inputs: list, reference: str = "onnxruntime") -> None:
    os.makedirs(folder, exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    if reference == "onnxruntime":
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        run = lambda feed: session.run(None, feed)
    else:
        evaluator = ReferenceEvaluator(model)
        run = lambda feed: evaluator.run(None, feed)
    names = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    for index, values in enumerate(inputs):
        data = os.path.join(folder, f"test_data_set_{index}")
        os.makedirs(data, exist_ok=True)
        for k, (name, value) in enumerate(zip(names, values)):
            onnx.save_tensor(numpy_helper.from_array(value, name), os.path.join(data, f"input_{k}.pb"))
        for k, value in enumerate(run(dict(zip(names, values)))):
            onnx.save_tensor(numpy_helper.from_array(value), os.path.join(data, f"output_{k}.pb"))


def pad_case(mode: str) -> onnx.ModelProto:
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)
    graph = helper.make_graph(
        [node], f"pad_{mode}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 5]),
                                helper.make_tensor_value_info("pads", TensorProto.INT64, [8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def gelu_case(approximate: str) -> onnx.ModelProto:
    node = helper.make_node("Gelu", ["x"], ["y"], approximate=approximate)
    graph = helper.make_graph([node], f"gelu_{approximate}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def shape_arithmetic_case(op: str) -> onnx.ModelProto:
    """Equal (with broadcasting) or Range on int64 inputs, which a plan knows before the run."""
    if op == "Equal":
        inputs = [helper.make_tensor_value_info("a", TensorProto.INT64, [3, 4]), helper.make_tensor_value_info("b", TensorProto.INT64, [4])]
        output = helper.make_tensor_value_info("y", TensorProto.BOOL, None)
    else:
        inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, []) for n in ("a", "b", "c")]
        output = helper.make_tensor_value_info("y", TensorProto.INT64, None)
    node = helper.make_node(op, [i.name for i in inputs], ["y"])
    return helper.make_model(helper.make_graph([node], op.lower(), inputs, [output]), opset_imports=[helper.make_opsetid("", 13)])


def linear_packed_case() -> onnx.ModelProto:
    """Linear layers with constant weights, which the executor packs at load: Gemm with B as given or transposed,
    C of one row (taken as a column bias), of every row, or none, α ≠ 1, a fused Relu, and MatMul over tokens with
    its bias. Sizes that are no multiple of the kernel's 8 rows and 32 columns."""
    random = np.random.default_rng(11)
    m, k, n = 3, 37, 45
    constants, nodes = [], []

    def constant(name: str, shape: tuple) -> str:
        constants.append(numpy_helper.from_array(random.standard_normal(shape).astype(np.float32), name))
        return name

    nodes.append(helper.make_node("Gemm", ["x", constant("b_t", (n, k)), constant("c_row", (n,))], ["gemm_t"], transB=1))
    nodes.append(helper.make_node("Relu", ["gemm_t"], ["relu"]))
    nodes.append(helper.make_node("Gemm", ["x", constant("b", (k, n)), constant("c_one_row", (1, n))], ["gemm_row"]))
    nodes.append(helper.make_node("Gemm", ["x", "b", constant("c_full", (m, n))], ["gemm_full"], beta=0.5))
    nodes.append(helper.make_node("Gemm", ["x", "b"], ["gemm_alpha"], alpha=0.25))
    constants.append(numpy_helper.from_array(np.array([1, m, k], dtype=np.int64), "tokens_shape"))
    nodes.append(helper.make_node("Reshape", ["x", "tokens_shape"], ["tokens"]))
    nodes.append(helper.make_node("MatMul", ["tokens", "b"], ["linear"]))
    nodes.append(helper.make_node("Add", ["linear", constant("bias", (n,))], ["linear_bias"]))
    outputs = ["relu", "gemm_row", "gemm_full", "gemm_alpha", "linear_bias"]
    graph = helper.make_graph(nodes, "linear_packed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs], constants)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def depthwise_small_case() -> onnx.ModelProto:
    """Depthwise 3×3 convolutions, which the executor takes every channel of in one call: symmetric padding with a
    fused Clip, asymmetric padding with a bias, no padding, and stride 2 with a fused Relu or asymmetric padding;
    widths that leave a partial vector, and planes narrower than a vector. (MobileNetV2 has the large planes.)"""
    random = np.random.default_rng(13)
    channels = 6
    weights = lambda name: numpy_helper.from_array(random.standard_normal((channels, 1, 3, 3)).astype(np.float32), name)
    constants = [weights("w_same"), weights("w_skewed"), weights("w_valid"),
                 numpy_helper.from_array(random.standard_normal(channels).astype(np.float32), "bias"),
                 numpy_helper.from_array(np.array(0, dtype=np.float32), "zero"), numpy_helper.from_array(np.array(6, dtype=np.float32), "six")]
    nodes = [
        helper.make_node("Conv", ["x", "w_same"], ["same"], group=channels, pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["same", "zero", "six"], ["same_clipped"]),
        helper.make_node("Conv", ["x", "w_skewed", "bias"], ["skewed"], group=channels, pads=[0, 1, 1, 0]),
        helper.make_node("Conv", ["x", "w_valid"], ["valid"], group=channels),
        helper.make_node("Conv", ["x", "w_same", "bias"], ["strided"], group=channels, pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["strided"], ["strided_relu"]),
        helper.make_node("Conv", ["x", "w_skewed"], ["strided_skewed"], group=channels, pads=[0, 0, 1, 1], strides=[2, 2]),
    ]
    # Narrower than a vector, rows as wide as the input's: each plane read as one row.
    nodes.append(helper.make_node("Conv", ["narrow", "w_same", "bias"], ["narrow_same"], group=channels, pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("Conv", ["narrow", "w_skewed"], ["narrow_skewed"], group=channels, pads=[0, 2, 2, 0]))
    outputs = ["same_clipped", "skewed", "valid", "strided_relu", "strided_skewed", "narrow_same", "narrow_skewed"]
    graph = helper.make_graph(nodes, "depthwise_small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", channels, 11, 23]),
                                                         helper.make_tensor_value_info("narrow", TensorProto.FLOAT, ["batch", channels, 5, 13])],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs], constants)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def write_zero_shot_demo(entry: str) -> None:
    os.makedirs(entry, exist_ok=True)
    nodes = [helper.make_node("GlobalAveragePool", ["image"], ["pooled"]), helper.make_node("Flatten", ["pooled"], ["embedding"], axis=1)]
    graph = helper.make_graph(nodes, "mean-colour-encoder", [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 32, 32])],
                              [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", 3])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(entry, "model.onnx"))
    species = [("Rosa rubra", "red rose", [1, -1, -1]), ("Ficus viridis", "green fig", [-1, 1, -1]),
               ("Iris caerulea", "blue iris", [-1, -1, 1]), ("Helianthus aureus", "golden sunflower", [1, 1, -1])]
    with open(os.path.join(entry, "labels.tsv"), "w") as labels:
        labels.write("scientific_name\tcommon_name\n" + "".join(f"{name}\t{common}\n" for name, common, _ in species))
    # Unnormalized on purpose: the service makes every row unit length.
    np.array([2.0 * np.array(colour) for _, _, colour in species], dtype="<f4").tofile(os.path.join(entry, "species-embeddings.f32"))
    with open(os.path.join(entry, "config.json"), "w") as config:
        json.dump({"name": "zero-shot-demo", "version": "0", "task": "species", "experimental": True,
                   "description": "mean colour as the image embedding, colours as the labels' text embeddings: for tests",
                   "labels": "labels.tsv",
                   "output": {"name": "embedding", "kind": "embedding", "text_embeddings": "species-embeddings.f32", "logit_scale": 10},
                   "input": {"name": "image", "width": 32, "height": 32, "mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5]}},
                  config, indent=2)


def main() -> None:
    output = sys.argv[1]
    repository = sys.argv[2] if len(sys.argv) > 2 else None
    random = np.random.default_rng(7)
    image = lambda batch, size: random.standard_normal((batch, 3, size, size)).astype(np.float32)
    write_case(os.path.join(output, "mobilenetv2"), mobilenet_v2(), [[image(1, 224)], [image(3, 224)]])
    write_case(os.path.join(output, "resnet18"), resnet18(), [[image(1, 224)], [image(2, 224)]])
    small = lambda batch: random.standard_normal((batch, 3, 32, 32)).astype(np.float32)
    for name, model in [
        ("vit", transformer_models.vit()), ("vit-opset13", transformer_models.vit(opset=13)),
        ("vit-gelu20", transformer_models.vit(opset=20)), ("deit", transformer_models.vit(distilled=True, opset=13)),
        ("swin", transformer_models.swin()), ("swin-opset17", transformer_models.swin(opset=17)),
        ("convnext", transformer_models.convnext()), ("convnext-opset13", transformer_models.convnext(opset=13)),
    ]:
        write_case(os.path.join(output, name), model, [[small(1)], [small(8)]])
    write_case(os.path.join(output, "linear-packed"), linear_packed_case(),
               [[random.standard_normal((3, 37)).astype(np.float32)], [random.uniform(-4, 4, (3, 37)).astype(np.float32)]])
    planes = lambda batch: [random.standard_normal((batch, 6, 11, 23)).astype(np.float32), random.standard_normal((batch, 6, 5, 13)).astype(np.float32)]
    write_case(os.path.join(output, "depthwise-small"), depthwise_small_case(), [planes(1), planes(3)])
    if repository and os.path.exists(os.path.join(repository, "plant-cnn", "model.onnx")):
        model = onnx.load(os.path.join(repository, "plant-cnn", "model.onnx"))
        uniform = lambda batch: random.uniform(-1, 1, (batch, 3, 128, 128)).astype(np.float32)
        write_case(os.path.join(output, "plant-cnn"), model, [[uniform(1)], [uniform(8)]])
    entry = os.path.join(output, "repository", "mobilenetv2-random")
    os.makedirs(entry, exist_ok=True)
    onnx.save(mobilenet_v2(), os.path.join(entry, "model.onnx"))
    with open(os.path.join(entry, "labels.tsv"), "w") as labels:
        labels.write("scientific_name\n" + "".join(f"Placeholder species {k}\n" for k in range(1000)))
    with open(os.path.join(entry, "config.json"), "w") as config:
        json.dump({"name": "mobilenetv2-random", "version": "0", "task": "species", "experimental": True,
                   "description": "MobileNetV2-shaped, random weights: for load tests only",
                   "labels": "labels.tsv", "output": {"name": "logits", "kind": "logits"},
                   "input": {"name": "image", "width": 224, "height": 224, "resize": "center-crop", "crop": 0.875,
                             "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]}}, config, indent=2)
    write_zero_shot_demo(os.path.join(output, "repository", "zero-shot-demo"))
    for mode in ("edge", "reflect"):
        x = random.standard_normal((1, 3, 4, 5)).astype(np.float32)
        write_case(os.path.join(output, f"pad_{mode}_float"), pad_case(mode),
                   [[x, np.array([0, 0, 1, 2, 0, 0, 2, 3], dtype=np.int64)]], reference="onnx")
    for approximate in ("none", "tanh"):
        write_case(os.path.join(output, f"gelu_{approximate}"), gelu_case(approximate),
                   [[(3 * random.standard_normal((3, 4, 5))).astype(np.float32)]], reference="onnx")
    write_case(os.path.join(output, "equal_int64"), shape_arithmetic_case("Equal"),
               [[random.integers(0, 3, (3, 4)), random.integers(0, 3, 4)]], reference="onnx")
    write_case(os.path.join(output, "range_int64"), shape_arithmetic_case("Range"),
               [[np.array(10), np.array(-4), np.array(-3)], [np.array(2), np.array(9), np.array(2)]], reference="onnx")
    print(f"wrote test models to {output}")


if __name__ == "__main__":
    main()
