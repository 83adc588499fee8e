#!/usr/bin/env python3
"""Converts the PlantVillage leaf CNN of `plant-disease-classification-models` 0.1.0 (MIT) to ONNX, with numpy
and onnx only (no torch), and writes a PlantGuide model folder: model.onnx, labels.tsv, config.json.

Usage: convert_plant_cnn.py WHEEL OUTPUT_DIR

The checkpoint is a PyTorch zip; its pickle is read by an unpickler that allows only the three globals a
state_dict of float tensors needs. Facts about the network: docs/models/plant-cnn.md.
"""
import collections
import hashlib
import io
import json
import os
import pickle
import sys
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CHECKPOINT = "plant_disease_classification_models/models/model_1.pt"
CHECKPOINT_SHA256 = "cef88050b8589bc546a9c50b856ddc5a0f01caac8dd0b8d61573ca062498a804"

# The 38 PlantVillage classes in ASCII order (upstream's c_0 … c_37), with the crop's scientific name.
CROPS = {
    "Apple": ("Malus domestica", "apple"),
    "Blueberry": ("Vaccinium corymbosum", "blueberry"),
    "Cherry_(including_sour)": ("Prunus avium", "cherry"),
    "Corn_(maize)": ("Zea mays", "maize"),
    "Grape": ("Vitis vinifera", "grape"),
    "Orange": ("Citrus sinensis", "orange"),
    "Peach": ("Prunus persica", "peach"),
    "Pepper,_bell": ("Capsicum annuum", "bell pepper"),
    "Potato": ("Solanum tuberosum", "potato"),
    "Raspberry": ("Rubus idaeus", "raspberry"),
    "Soybean": ("Glycine max", "soybean"),
    "Squash": ("Cucurbita pepo", "squash"),
    "Strawberry": ("Fragaria × ananassa", "strawberry"),
    "Tomato": ("Solanum lycopersicum", "tomato"),
}
CLASSES = """Apple___Apple_scab Apple___Black_rot Apple___Cedar_apple_rust Apple___healthy Blueberry___healthy
Cherry_(including_sour)___Powdery_mildew Cherry_(including_sour)___healthy
Corn_(maize)___Cercospora_leaf_spot_Gray_leaf_spot Corn_(maize)___Common_rust_ Corn_(maize)___Northern_Leaf_Blight
Corn_(maize)___healthy Grape___Black_rot Grape___Esca_(Black_Measles) Grape___Leaf_blight_(Isariopsis_Leaf_Spot)
Grape___healthy Orange___Haunglongbing_(Citrus_greening) Peach___Bacterial_spot Peach___healthy
Pepper,_bell___Bacterial_spot Pepper,_bell___healthy Potato___Early_blight Potato___Late_blight Potato___healthy
Raspberry___healthy Soybean___healthy Squash___Powdery_mildew Strawberry___Leaf_scorch Strawberry___healthy
Tomato___Bacterial_spot Tomato___Early_blight Tomato___Late_blight Tomato___Leaf_Mold Tomato___Septoria_leaf_spot
Tomato___Spider_mites_Two-spotted_spider_mite Tomato___Target_Spot Tomato___Tomato_Yellow_Leaf_Curl_Virus
Tomato___Tomato_mosaic_virus Tomato___healthy""".split()
assert len(CLASSES) == 38 and CLASSES == sorted(CLASSES)


def read_state_dict(checkpoint: bytes) -> dict:
    archive = zipfile.ZipFile(io.BytesIO(checkpoint))
    pickle_name = next(n for n in archive.namelist() if n.endswith("/data.pkl"))
    prefix = pickle_name[: -len("data.pkl")]

    def rebuild(storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None):
        view = np.lib.stride_tricks.as_strided(storage[offset:], shape=size, strides=[s * 4 for s in stride])
        return np.array(view, dtype=np.float32)

    class Restricted(pickle.Unpickler):
        def find_class(self, module, name):
            allowed = {
                ("collections", "OrderedDict"): collections.OrderedDict,
                ("torch._utils", "_rebuild_tensor_v2"): rebuild,
                ("torch", "FloatStorage"): "float32",
            }
            if (module, name) not in allowed:
                raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a weights file")
            return allowed[(module, name)]

        def persistent_load(self, pid):
            _, storage_type, key, _, numel = pid
            if storage_type != "float32":
                raise pickle.UnpicklingError(f"storage {storage_type} is not float32")
            data = np.frombuffer(archive.read(f"{prefix}data/{key}"), dtype="<f4")
            assert data.size == numel, (key, data.size, numel)
            return data

    return Restricted(io.BytesIO(archive.read(pickle_name))).load()


def build_model(weights: dict) -> onnx.ModelProto:
    expected = {"conv1.weight": (10, 3, 3, 3), "conv1.bias": (10,), "conv2.weight": (20, 10, 3, 3), "conv2.bias": (20,),
                "fc1.weight": (1024, 18000), "fc1.bias": (1024,), "fc2.weight": (38, 1024), "fc2.bias": (38,)}
    for name, shape in expected.items():
        assert weights[name].shape == shape, (name, weights[name].shape)
    nodes = [
        helper.make_node("Conv", ["image", "conv1.weight", "conv1.bias"], ["conv1"], name="conv1", kernel_shape=[3, 3]),
        helper.make_node("MaxPool", ["conv1"], ["pool1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Relu", ["pool1"], ["relu1"], name="relu1"),
        helper.make_node("Conv", ["relu1", "conv2.weight", "conv2.bias"], ["conv2"], name="conv2", kernel_shape=[3, 3]),
        helper.make_node("MaxPool", ["conv2"], ["pool2"], name="pool2", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Relu", ["pool2"], ["relu2"], name="relu2"),
        helper.make_node("Flatten", ["relu2"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc1.weight", "fc1.bias"], ["fc1"], name="fc1", transB=1),
        helper.make_node("Relu", ["fc1"], ["relu3"], name="relu3"),
        helper.make_node("Gemm", ["relu3", "fc2.weight", "fc2.bias"], ["logits"], name="fc2", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "plant-cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 128, 128])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 38])],
        [numpy_helper.from_array(weights[name], name) for name in expected])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="plantguide-fetch-models")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main() -> None:
    wheel, output = sys.argv[1], sys.argv[2]
    checkpoint = zipfile.ZipFile(wheel).read(CHECKPOINT)
    digest = hashlib.sha256(checkpoint).hexdigest()
    if digest != CHECKPOINT_SHA256:
        sys.exit(f"{CHECKPOINT} has sha256 {digest}, expected {CHECKPOINT_SHA256}")
    model = build_model(read_state_dict(checkpoint))
    os.makedirs(output, exist_ok=True)
    onnx.save(model, os.path.join(output, "model.onnx"))
    with open(os.path.join(output, "labels.tsv"), "w") as labels:
        labels.write("scientific_name\tcommon_name\tcondition\tupstream_label\n")
        for label in CLASSES:
            crop, condition = label.split("___")
            scientific, common = CROPS[crop]
            condition = "healthy" if condition == "healthy" else condition.strip("_").replace("_", " ")
            labels.write(f"{scientific}\t{common}\t{condition}\t{label}\n")
    config = {
        "name": "plant-cnn",
        "version": "0.1.0",
        "task": "leaf-condition",
        "experimental": True,
        "description": "PlantVillage leaf CNN (38 crop/condition classes). Its label order is not trustworthy "
                       "upstream: answers are experimental and never a confident identification.",
        "source": "PyPI plant-disease-classification-models 0.1.0 (MIT), " + CHECKPOINT + ", sha256 " + CHECKPOINT_SHA256,
        "input": {"name": "image", "width": 128, "height": 128, "layout": "NCHW", "channel_order": "RGB",
                  "resize": "stretch", "crop": 1.0, "scale": 1 / 255, "mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5]},
        "output": {"name": "logits", "kind": "logits"},
        "labels": "labels.tsv",
        "max_confidence": 0.5,
    }
    with open(os.path.join(output, "config.json"), "w") as file:
        json.dump(config, file, indent=2)
        file.write("\n")
    print(f"wrote {output}: model.onnx ({os.path.getsize(os.path.join(output, 'model.onnx')):,} bytes), 38 labels")


if __name__ == "__main__":
    main()
