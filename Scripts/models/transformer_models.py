"""ViT-, DeiT-, Swin- and ConvNeXt-shaped ONNX graphs with random weights, written node by node the way
`torch.onnx.export` writes those architectures (no torch here): shapes computed in the graph (Shape, Gather,
Unsqueeze, Concat, the Expand/Where/Equal pattern of `tensor.expand(B, -1, -1)`), Linear layers as MatMul + Add,
GELU through Erf (or the Gelu operator from opset 20), LayerNorm as the LayerNormalization operator (opset 17 and
later) or decomposed into ReduceMean/Sub/Pow/Sqrt/Div, `torch.roll` as Slice + Concat, Swin's relative position
bias as a Gather from its table. Used by make_test_models.py (small, for the tests) and by the inference benchmark
(ViT-tiny and ConvNeXt-tiny sizes)."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class TorchStyleGraph:
    """Nodes and random initializers, with the helpers an exported transformer is made of."""

    def __init__(self, seed: int, opset: int):
        self.random = np.random.default_rng(seed)
        self.opset = opset
        self.nodes, self.initializers = [], []
        self.count = 0

    def fresh(self, kind: str) -> str:
        self.count += 1
        return f"/{kind}_{self.count}"

    def node(self, op: str, inputs: list, outputs: int = 1, **attributes) -> str | list:
        name = self.fresh(op)
        names = [f"{name}_output_{k}" for k in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, names, name=name, **attributes))
        return names[0] if outputs == 1 else names

    def weight(self, shape, scale: float | None = None) -> str:
        fan_in = shape[0] if len(shape) == 2 else int(np.prod(shape[1:]))
        values = self.random.normal(0, scale if scale is not None else np.sqrt(1.0 / max(fan_in, 1)), shape)
        name = self.fresh("weight")
        self.initializers.append(numpy_helper.from_array(values.astype(np.float32), name))
        return name

    def constant(self, values, dtype=np.int64) -> str:
        """A Constant node, as the exporter writes literals."""
        return self.node("Constant", [], value=numpy_helper.from_array(np.array(values, dtype=dtype)))

    def dimension(self, x: str, axis: int) -> str:
        """Dimension `axis` of x as a 1-element int64 tensor: Shape → Gather → Unsqueeze."""
        gathered = self.node("Gather", [self.node("Shape", [x]), self.constant(axis)], axis=0)
        return self.unsqueeze(gathered, [0])

    def unsqueeze(self, x: str, axes: list) -> str:
        if self.opset < 13:
            return self.node("Unsqueeze", [x], axes=axes)
        return self.node("Unsqueeze", [x, self.constant(axes)])

    def reshape(self, x: str, dims: list) -> str:
        """Reshape to dims, where an entry is an int or a computed 1-element tensor's name."""
        parts = [d if isinstance(d, str) else self.constant([d]) for d in dims]
        return self.node("Reshape", [x, self.node("Concat", parts, axis=0)])

    def linear(self, x: str, inputs: int, outputs: int, bias: bool = True) -> str:
        y = self.node("MatMul", [x, self.weight((inputs, outputs))])
        return self.node("Add", [y, self.weight((outputs,), 0.02)]) if bias else y

    def layer_norm(self, x: str, dim: int, decomposed: bool = False, axis: int = -1) -> str:
        scale = self.initializer(self.random.uniform(0.5, 1.5, dim))
        bias = self.initializer(self.random.normal(0, 0.1, dim))
        if not decomposed and axis == -1 and self.opset >= 17:
            return self.node("LayerNormalization", [x, scale, bias], axis=-1, epsilon=1e-6)
        # torch < 17, and ConvNeXt's channels-first LayerNorm: mean, variance, normalize, scale and shift.
        mean = self.reduce_mean(x, [axis])
        centered = self.node("Sub", [x, mean])
        variance = self.reduce_mean(self.node("Pow", [centered, self.constant(2.0, np.float32)]), [axis])
        deviation = self.node("Sqrt", [self.node("Add", [variance, self.constant(1e-6, np.float32)])])
        normalized = self.node("Div", [centered, deviation])
        if axis != -1:  # weight[:, None, None] * x + bias[:, None, None]
            scale = self.unsqueeze(scale, [1, 2])
            bias = self.unsqueeze(bias, [1, 2])
        return self.node("Add", [self.node("Mul", [normalized, scale]), bias])

    def reduce_mean(self, x: str, axes: list, keepdims: int = 1) -> str:
        if self.opset < 18:
            return self.node("ReduceMean", [x], axes=axes, keepdims=keepdims)
        return self.node("ReduceMean", [x, self.constant(axes)], keepdims=keepdims)

    def initializer(self, values) -> str:
        name = self.fresh("parameter")
        self.initializers.append(numpy_helper.from_array(np.asarray(values, dtype=np.float32), name))
        return name

    def gelu(self, x: str) -> str:
        if self.opset >= 20:
            return self.node("Gelu", [x])
        erf = self.node("Erf", [self.node("Div", [x, self.constant(1.4142135381698608, np.float32)])])
        return self.node("Mul", [self.node("Mul", [x, self.node("Add", [erf, self.constant(1.0, np.float32)])]),
                                 self.constant(0.5, np.float32)])

    def mlp(self, x: str, dim: int, hidden: int) -> str:
        return self.linear(self.gelu(self.linear(x, dim, hidden)), hidden, dim)

    def attention(self, x: str, dim: int, heads: int, bias: str | None = None, mask: str | None = None,
                  windows: int = 0) -> str:
        """Multi-head self-attention over x [B, N, dim], in timm's layout: one qkv Linear, heads split by a
        computed Reshape, q·kᵀ scaled, optional bias (and Swin's shift mask, per window), softmax, ·v."""
        batch, tokens = self.dimension(x, 0), self.dimension(x, 1)
        head_dim = dim // heads
        qkv = self.reshape(self.linear(x, dim, 3 * dim), [batch, tokens, 3, heads, head_dim])
        qkv = self.node("Transpose", [qkv], perm=[2, 0, 3, 1, 4])
        q, k, v = (self.node("Gather", [qkv, self.constant(index)], axis=0) for index in range(3))
        q = self.node("Mul", [q, self.constant(head_dim ** -0.5, np.float32)])
        scores = self.node("MatMul", [q, self.node("Transpose", [k], perm=[0, 1, 3, 2])])
        if bias is not None:
            scores = self.node("Add", [scores, bias])
        if mask is not None:  # [B·nW, h, N, N] → [B, nW, h, N, N] + mask[nW, 1, N, N] → back
            count = self.constant([windows])
            per_window = self.reshape(scores, [self.node("Div", [batch, count]), windows, heads, self.dimension(x, 1),
                                               self.dimension(x, 1)])
            scores = self.reshape(self.node("Add", [per_window, mask]), [-1, heads, self.dimension(x, 1), self.dimension(x, 1)])
        attention = self.node("Softmax", [scores], axis=-1)
        context = self.node("Transpose", [self.node("MatMul", [attention, v])], perm=[0, 2, 1, 3])
        return self.linear(self.reshape(context, [batch, tokens, dim]), dim, dim)

    def expand_like_torch(self, x: str, batch: str) -> str:
        """x [1, …] expanded to the batch, as `x.expand(B, -1, -1)` exports: -1s replaced by 1s via Where."""
        shape = self.node("Concat", [batch, self.constant([-1]), self.constant([-1])], axis=0)
        ones = self.node("ConstantOfShape", [self.node("Shape", [shape])],
                         value=numpy_helper.from_array(np.array([1], dtype=np.int64)))
        minus = self.node("Mul", [ones, self.constant(-1)])
        fixed = self.node("Where", [self.node("Equal", [shape, minus]), ones, shape])
        return self.node("Expand", [x, fixed])

    def model(self, name: str, image: int, output: str, classes: int) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, name, [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, image, image])],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["batch", classes])], self.initializers)
        graph.node[-1].output[0] = output
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)], producer_name="plantguide-tests")
        model.ir_version = 8 if self.opset < 19 else 9
        onnx.checker.check_model(model)
        return model


def vit(dim=48, depth=2, heads=3, image=32, patch=8, classes=10, distilled=False, opset=17, seed=31) -> onnx.ModelProto:
    """ViT (and DeiT with `distilled`: a distillation token and a second head, averaged at inference)."""
    g = TorchStyleGraph(seed, opset)
    patches = g.node("Conv", ["image", g.weight((dim, 3, patch, patch)), g.weight((dim,), 0.02)],
                     kernel_shape=[patch, patch], strides=[patch, patch])
    batch = g.dimension(patches, 0)
    tokens = g.node("Transpose", [g.reshape(patches, [batch, g.dimension(patches, 1), -1])], perm=[0, 2, 1])
    extra = 2 if distilled else 1
    prefix = [g.expand_like_torch(g.initializer(g.random.normal(0, 0.02, (1, 1, dim))), batch) for _ in range(extra)]
    x = g.node("Concat", prefix + [tokens], axis=1)
    count = (image // patch) ** 2 + extra
    x = g.node("Add", [x, g.initializer(g.random.normal(0, 0.02, (1, count, dim)))])
    for _ in range(depth):
        x = g.node("Add", [x, g.attention(g.layer_norm(x, dim, decomposed=opset < 17), dim, heads)])
        x = g.node("Add", [x, g.mlp(g.layer_norm(x, dim, decomposed=opset < 17), dim, 4 * dim)])
    x = g.layer_norm(x, dim, decomposed=opset < 17)

    def head(token: int) -> str:
        picked = g.node("Gather", [x, g.constant(token)], axis=1) if token == 0 else \
            g.node("Squeeze", [g.node("Slice", [x, g.constant([token]), g.constant([token + 1]), g.constant([1])]),
                               g.constant([1])])
        return g.node("Gemm", [picked, g.weight((classes, dim)), g.weight((classes,), 0.02)], transB=1)

    logits = head(0)
    if distilled:
        logits = g.node("Div", [g.node("Add", [logits, head(1)]), g.constant(2.0, np.float32)])
    return g.model("deit" if distilled else "vit", image, "logits", classes)


def swin(dims=(32, 64), depths=(2, 2), heads=(2, 4), image=32, patch=2, window=4, classes=10, opset=14,
         seed=41) -> onnx.ModelProto:
    """Swin: windowed attention with relative position bias, every other block shifted (torch.roll as
    Slice + Concat, with the shift mask), patch merging between stages."""
    g = TorchStyleGraph(seed, opset)
    x = g.node("Conv", ["image", g.weight((dims[0], 3, patch, patch)), g.weight((dims[0],), 0.02)],
               kernel_shape=[patch, patch], strides=[patch, patch])
    side = image // patch
    x = g.node("Transpose", [g.reshape(x, [g.dimension(x, 0), dims[0], -1])], perm=[0, 2, 1])
    x = g.layer_norm(x, dims[0], decomposed=opset < 17)
    coordinates = np.stack(np.meshgrid(np.arange(window), np.arange(window), indexing="ij")).reshape(2, -1)
    relative = (coordinates[:, :, None] - coordinates[:, None, :]).transpose(1, 2, 0) + window - 1
    index = (relative[:, :, 0] * (2 * window - 1) + relative[:, :, 1]).reshape(-1)
    for stage, (dim, depth, head_count) in enumerate(zip(dims, depths, heads)):
        if stage > 0:
            x = merge_patches(g, x, side, dims[stage - 1], dim)
            side //= 2
        for block in range(depth):
            shift = window // 2 if block % 2 == 1 and side > window else 0
            table = g.initializer(g.random.normal(0, 0.02, ((2 * window - 1) ** 2, head_count)))
            bias = g.node("Gather", [table, g.constant(index)], axis=0)
            bias = g.unsqueeze(g.node("Transpose", [g.reshape(bias, [window ** 2, window ** 2, head_count])], perm=[2, 0, 1]), [0])
            shortcut = x
            y = g.reshape(g.layer_norm(x, dim, decomposed=opset < 17), [g.dimension(x, 0), side, side, dim])
            if shift:
                y = roll(g, roll(g, y, -shift, 1, side), -shift, 2, side)
            windows = (side // window) ** 2
            y = g.reshape(y, [-1, side // window, window, side // window, window, dim])
            y = g.reshape(g.node("Transpose", [y], perm=[0, 1, 3, 2, 4, 5]), [-1, window * window, dim])
            mask = g.initializer(shift_mask(side, window, shift)[:, None]) if shift else None
            y = g.attention(y, dim, head_count, bias=bias, mask=mask, windows=windows)
            y = g.reshape(y, [-1, side // window, side // window, window, window, dim])
            y = g.reshape(g.node("Transpose", [y], perm=[0, 1, 3, 2, 4, 5]), [-1, side, side, dim])
            if shift:
                y = roll(g, roll(g, y, shift, 1, side), shift, 2, side)
            x = g.node("Add", [shortcut, g.reshape(y, [g.dimension(shortcut, 0), side * side, dim])])
            x = g.node("Add", [x, g.mlp(g.layer_norm(x, dim, decomposed=opset < 17), dim, 4 * dim)])
    x = g.reduce_mean(g.layer_norm(x, dims[-1], decomposed=opset < 17), [1], keepdims=0)
    g.node("Gemm", [x, g.weight((classes, dims[-1])), g.weight((classes,), 0.02)], transB=1)
    return g.model("swin", image, "logits", classes)


def roll(g: TorchStyleGraph, x: str, shift: int, axis: int, size: int) -> str:
    """torch.roll(x, shift, axis) as the exporter writes it: two Slices and a Concat."""
    shift %= size
    tail = g.node("Slice", [x, g.constant([-shift]), g.constant([np.iinfo(np.int64).max]), g.constant([axis])])
    head = g.node("Slice", [x, g.constant([0]), g.constant([-shift]), g.constant([axis])])
    return g.node("Concat", [tail, head], axis=axis)


def shift_mask(side: int, window: int, shift: int) -> np.ndarray:
    """Swin's attention mask for shifted windows: -100 between tokens that came from different regions."""
    regions = np.zeros((side, side))
    label = 0
    for rows in (slice(0, -window), slice(-window, -shift), slice(-shift, None)):
        for columns in (slice(0, -window), slice(-window, -shift), slice(-shift, None)):
            regions[rows, columns] = label
            label += 1
    windows = regions.reshape(side // window, window, side // window, window).transpose(0, 2, 1, 3).reshape(-1, window * window)
    return np.where(windows[:, None, :] != windows[:, :, None], -100.0, 0.0)


def merge_patches(g: TorchStyleGraph, x: str, side: int, dim: int, out: int) -> str:
    """Swin's patch merging: the four 2×2 neighbours (strided Slices) concatenated, normalized, projected."""
    grid = g.reshape(x, [g.dimension(x, 0), side, side, dim])
    parts = [g.node("Slice", [grid, g.constant([r, c]), g.constant([side, side]), g.constant([1, 2]), g.constant([2, 2])])
             for r, c in ((0, 0), (1, 0), (0, 1), (1, 1))]
    merged = g.reshape(g.node("Concat", parts, axis=-1), [g.dimension(x, 0), -1, 4 * dim])
    return g.linear(g.layer_norm(merged, 4 * dim, decomposed=g.opset < 17), 4 * dim, out, bias=False)


def convnext(dims=(16, 32), depths=(1, 1), image=32, classes=10, opset=17, seed=51) -> onnx.ModelProto:
    """ConvNeXt: 4×4 stem, blocks of 7×7 depthwise conv, LayerNorm (channels last), Linear, GELU, Linear,
    layer scale, residual; channels-first LayerNorm (decomposed, as timm exports it) and 2×2 convs between
    stages; global average, LayerNorm, Linear head."""
    g = TorchStyleGraph(seed, opset)
    x = g.node("Conv", ["image", g.weight((dims[0], 3, 4, 4)), g.weight((dims[0],), 0.02)], kernel_shape=[4, 4], strides=[4, 4])
    x = g.layer_norm(x, dims[0], decomposed=True, axis=1)
    for stage, (dim, depth) in enumerate(zip(dims, depths)):
        if stage > 0:
            x = g.layer_norm(x, dims[stage - 1], decomposed=True, axis=1)
            x = g.node("Conv", [x, g.weight((dim, dims[stage - 1], 2, 2)), g.weight((dim,), 0.02)], kernel_shape=[2, 2], strides=[2, 2])
        for _ in range(depth):
            y = g.node("Conv", [x, g.weight((dim, 1, 7, 7), 0.1), g.weight((dim,), 0.02)], kernel_shape=[7, 7], pads=[3] * 4, group=dim)
            y = g.layer_norm(g.node("Transpose", [y], perm=[0, 2, 3, 1]), dim)
            y = g.node("Mul", [g.mlp(y, dim, 4 * dim), g.initializer(g.random.uniform(0.1, 1.0, dim))])
            x = g.node("Add", [x, g.node("Transpose", [y], perm=[0, 3, 1, 2])])
    x = g.layer_norm(g.reduce_mean(x, [2, 3], keepdims=0), dims[-1])
    g.node("Gemm", [x, g.weight((classes, dims[-1])), g.weight((classes,), 0.02)], transB=1)
    return g.model("convnext", image, "logits", classes)


def main() -> None:
    """Writes the benchmark's ViT-tiny and ConvNeXt-tiny shaped models (random weights) into OUTPUT_DIR."""
    import os
    import sys
    output = sys.argv[1]
    os.makedirs(output, exist_ok=True)
    onnx.save(vit(dim=192, depth=12, heads=3, image=224, patch=16, classes=1000), os.path.join(output, "vit-tiny.onnx"))
    onnx.save(convnext(dims=(96, 192, 384, 768), depths=(3, 3, 9, 3), image=224, classes=1000),
              os.path.join(output, "convnext-tiny.onnx"))
    print(f"wrote vit-tiny.onnx and convnext-tiny.onnx to {output}")


if __name__ == "__main__":
    main()
