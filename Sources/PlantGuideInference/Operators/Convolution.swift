import CInferenceKernels

/// Conv over one or two spatial dimensions, with groups, strides, dilations, pads and auto_pad. Three kernels:
/// pointwise (1×1: one matrix product), depthwise (one filter per channel: SIMD loops in CInferenceKernels) and
/// general (im2col and a matrix product per group). The products run on weights packed at plan time where the
/// kernels run AVX-512 or AVX2 (``PackedProduct``), else on OpenBLAS. Batch normalization and an activation after
/// it are folded in at load.
struct ConvOperator: Operator {
    let window: WindowAttributes
    let groups: Int
    var activation: Activation = .identity

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try requiredFloat(inputs, 0, "X"), w = try requiredFloat(inputs, 1, "W")
        guard x.shape.count >= 3, w.shape.count == x.shape.count else {
            throw shapeError("X \(x.shape) and W \(w.shape) must be [N, C, spatial...] and [M, C/group, kernel...]")
        }
        let channels = x.shape[1], filters = w.shape[0]
        guard groups > 0, channels % groups == 0, filters % groups == 0, w.shape[1] == channels / groups else {
            throw shapeError("W \(w.shape) does not fit \(channels) input channels in \(groups) groups")
        }
        if inputs.count > 2, let b = inputs[2], b.shape != [filters] {
            throw shapeError("B \(b.shape) is not [\(filters)]")
        }
        let geometry = try window.resolve(input: Array(x.shape[2...]), kernel: Array(w.shape[2...]))
        return [.float([x.shape[0], filters] + geometry.output)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let xShape = inputs[0]!.shape, wShape = inputs[1]!.shape
        let g = try window.resolve(input: Array(xShape[2...]), kernel: Array(wShape[2...])).planar()
        let batch = xShape[0], channels = xShape[1], filters = wShape[0], groups = groups
        let groupChannels = channels / groups, groupFilters = filters / groups
        let (height, width) = (g.input[0], g.input[1]), (outHeight, outWidth) = (g.output[0], g.output[1])
        let (kernelHeight, kernelWidth) = (g.kernel[0], g.kernel[1])
        let inPlane = height * width, outPlane = outHeight * outWidth
        let depth = groupChannels * kernelHeight * kernelWidth
        let hasBias = inputs.count > 2 && inputs[2] != nil
        let activation = activation

        /// Bias and activation over each output plane.
        func finish(_ y: UnsafeMutablePointer<Float>, _ bias: UnsafePointer<Float>?) {
            guard bias != nil || activation != .identity else { return }
            for n in 0..<batch {
                for m in 0..<filters {
                    activation.finish(y + (n * filters + m) * outPlane, count: outPlane, bias: bias?[m] ?? 0)
                }
            }
        }

        let isPointwise = kernelHeight == 1 && kernelWidth == 1 && g.strides == [1, 1]
            && g.padBegin == [0, 0] && g.padEnd == [0, 0]
        if groups == 1, channels <= Int(PG_CONV3X3_DIRECT_MAX_CHANNELS), filters % 4 == 0, InferenceISA.current == .avx2,
           g.kernel == [3, 3], g.dilations == [1, 1], g.strides[1] <= 2 {
            // An image's stem (RGB in, MobileNetV2's 32 filters at stride 2) on the AVX2 path: computed directly from
            // padded copies of the input planes (conv3x3_direct.c), where im2col writes 27 rows as long as the output
            // plane for a product only 27 deep. MobileNetV2's stem in the model: 0.41 → 0.37 ms. On AVX-512 im2col
            // and the packed product take 0.27, and stay.
            var window = g.cWindow
            let scratch = Scratch(count: pg_conv3x3_direct_scratch_size(&window, Int32(channels)))
            let (kind, low, high) = activation.fusedEpilogue
            return { inputs, outputs in
                let x = inputs[0]!, w = inputs[1]!, y = outputs[0], bias = hasBias ? inputs[2] : nil
                for n in 0..<batch {
                    pg_conv3x3_direct(&window, Int32(channels), Int32(filters), x + n * channels * inPlane, w, bias, kind, low, high,
                                      y + n * filters * outPlane, scratch.pointer)
                }
                if !activation.isFusedByKernels { activation.apply(y, y, count: batch * filters * outPlane) }
            }
        }
        // Fixed weights on the AVX-512 or AVX2 path: packed once, bias and Relu/Clip applied as the product is stored.
        if groups == 1, let weights = inputs[1]?.constant, weights.elementType == .float,
           let product = weights.floats.withUnsafeBufferPointer({ PackedProduct(weights: $0.baseAddress!, rows: filters, depth: depth) }) {
            let columns = isPointwise ? nil : Scratch(count: depth * outPlane)
            return { inputs, outputs in
                let x = inputs[0]!, y = outputs[0], bias = hasBias ? inputs[2] : nil
                for n in 0..<batch {
                    var source = x + n * channels * inPlane
                    if let columns {
                        im2col(source, channels: channels, into: columns.pointer, g)
                        source = UnsafePointer(columns.pointer)
                    }
                    product.run(source, columns: outPlane, pitch: outPlane, into: y + n * filters * outPlane, bias: bias, activation: activation)
                }
            }
        }
        if isPointwise {
            return { inputs, outputs in
                let x = inputs[0]!, w = inputs[1]!, y = outputs[0]
                for n in 0..<batch {
                    for group in 0..<groups {
                        multiply(
                            w + group * groupFilters * groupChannels, x + (n * channels + group * groupChannels) * inPlane,
                            into: y + (n * filters + group * groupFilters) * outPlane, m: groupFilters, n: outPlane, k: groupChannels)
                    }
                }
                finish(y, hasBias ? inputs[2] : nil)
            }
        }

        if groupChannels == 1 && groupFilters == 1 && PackedProduct.isAvailable && g.kernel == [3, 3] && g.dilations == [1, 1]
            && g.strides[1] <= 2 {
            // MobileNet's and EfficientNet's depthwise 3×3: every channel of an image in one call, the activation
            // applied as it stores (depthwise3x3_avx512.c, _avx2.c); on MobileNetV2's layers 0.02-0.06 ms where the
            // per-plane loop below takes 0.05-0.10, and 0.25 where it takes 0.30-0.35 on the 112×112 one at
            // stride 2. Planes narrower than a vector whose output rows are as wide as the input's (7×7, 14×14
            // with "same" padding) are read as one long row each: 4 vectors for a 7×7 plane instead of 7 mostly
            // empty ones, and no padded copy.
            var window = g.cWindow
            let isFlat = g.strides == [1, 1] && outWidth == width && width <= 16
            let scratch = Scratch(count: isFlat ? 0 : pg_depthwise3x3_scratch_size(&window))
            let (kind, low, high) = activation.fusedEpilogue
            return { inputs, outputs in
                let x = inputs[0]!, w = inputs[1]!, y = outputs[0], bias = hasBias ? inputs[2] : nil
                for n in 0..<batch {
                    let source = x + n * channels * inPlane, destination = y + n * channels * outPlane
                    if isFlat {
                        pg_depthwise3x3_flat(&window, Int32(channels), source, w, bias, kind, low, high, destination)
                    } else {
                        pg_depthwise3x3(&window, Int32(channels), source, w, bias, kind, low, high, destination, scratch.pointer)
                    }
                }
                if !activation.isFusedByKernels { activation.apply(y, y, count: batch * channels * outPlane) }
            }
        }
        if groupChannels == 1 && groupFilters == 1 {
            var window = g.cWindow
            let padded = Scratch(count: pg_padded_plane_size(&window))
            return { inputs, outputs in
                let x = inputs[0]!, w = inputs[1]!, y = outputs[0], bias = hasBias ? inputs[2] : nil
                for n in 0..<batch {
                    for c in 0..<channels {
                        let plane = y + (n * channels + c) * outPlane
                        pg_depthwise_conv2d(
                            &window, x + (n * channels + c) * inPlane, w + c * kernelHeight * kernelWidth, bias?[c] ?? 0, plane,
                            padded.pointer)
                        activation.finish(plane, count: outPlane, bias: 0)
                    }
                }
            }
        }

        let columns = Scratch(count: depth * outPlane)
        return { inputs, outputs in
            let x = inputs[0]!, w = inputs[1]!, y = outputs[0]
            for n in 0..<batch {
                for group in 0..<groups {
                    im2col(x + (n * channels + group * groupChannels) * inPlane, channels: groupChannels, into: columns.pointer, g)
                    multiply(
                        w + group * groupFilters * depth, columns.pointer, into: y + (n * filters + group * groupFilters) * outPlane,
                        m: groupFilters, n: outPlane, k: depth)
                }
            }
            finish(y, hasBias ? inputs[2] : nil)
        }
    }
}

/// Unfolds the windows of `channels` planes into a [channels·kH·kW, outH·outW] matrix (zeros for padding).
private func im2col(_ x: UnsafePointer<Float>, channels: Int, into columns: UnsafeMutablePointer<Float>, _ g: WindowGeometry) {
    let (height, width) = (g.input[0], g.input[1]), (outHeight, outWidth) = (g.output[0], g.output[1])
    let (strideY, strideX) = (g.strides[0], g.strides[1])
    var row = columns
    for c in 0..<channels {
        let plane = x + c * height * width
        for ky in 0..<g.kernel[0] {
            let rows = g.validRange(axis: 0, offset: ky * g.dilations[0])
            for kx in 0..<g.kernel[1] {
                let offsetX = kx * g.dilations[1] - g.padBegin[1]
                let xs = g.validRange(axis: 1, offset: kx * g.dilations[1])
                for oy in 0..<outHeight {
                    let out = row + oy * outWidth
                    guard rows.contains(oy), !xs.isEmpty else {
                        out.update(repeating: 0, count: outWidth)
                        continue
                    }
                    let source = plane + (oy * strideY - g.padBegin[0] + ky * g.dilations[0]) * width + offsetX
                    out.update(repeating: 0, count: xs.lowerBound)
                    if strideX == 1 {
                        (out + xs.lowerBound).update(from: source + xs.lowerBound, count: xs.count)
                    } else {
                        pg_copy_strided(source + xs.lowerBound * strideX, strideX, out + xs.lowerBound, xs.count)
                    }
                    (out + xs.upperBound).update(repeating: 0, count: outWidth - xs.upperBound)
                }
                row += outHeight * outWidth
            }
        }
    }
}
