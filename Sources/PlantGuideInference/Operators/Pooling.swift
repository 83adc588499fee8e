import CInferenceKernels

/// MaxPool and AveragePool over one or two spatial dimensions.
struct PoolOperator: Operator {
    enum Kind: Sendable { case max, average(countIncludePad: Bool) }
    let kind: Kind
    let window: WindowAttributes

    func outputs(for inputs: [ValueInfo?]) throws(InferenceError) -> [OutputInfo] {
        let x = try requiredFloat(inputs, 0, "X")
        guard x.shape.count >= 3 else { throw shapeError("X \(x.shape) must be [N, C, spatial...]") }
        let geometry = try window.resolve(input: Array(x.shape[2...]))
        _ = try geometry.planar()
        return [.float(Array(x.shape[..<2]) + geometry.output)]
    }

    func kernel(inputs: [ValueInfo?], outputs: [ValueInfo]) throws(InferenceError) -> Kernel? {
        let shape = inputs[0]!.shape
        let g = try window.resolve(input: Array(shape[2...])).planar()
        let planes = shape[0] * shape[1]
        let (height, width) = (g.input[0], g.input[1]), (outHeight, outWidth) = (g.output[0], g.output[1])
        if case .max = kind {
            var window = g.cWindow
            let padded = Scratch(count: pg_padded_plane_size(&window))
            return { inputs, outputs in
                for plane in 0..<planes {
                    pg_max_pool2d(&window, inputs[0]! + plane * height * width, outputs[0] + plane * outHeight * outWidth, padded.pointer)
                }
            }
        }
        let kind = kind
        let (kernelY, kernelX) = (g.kernel[0], g.kernel[1]), (strideY, strideX) = (g.strides[0], g.strides[1])
        let (dilationY, dilationX) = (g.dilations[0], g.dilations[1]), (padY, padX) = (g.padBegin[0], g.padBegin[1])
        let (padEndY, padEndX) = (g.padEnd[0], g.padEnd[1])
        return { inputs, outputs in
            for plane in 0..<planes {
                let x = inputs[0]! + plane * height * width, y = outputs[0] + plane * outHeight * outWidth
                for oy in 0..<outHeight {
                    let startY = oy * strideY - padY
                    // The kernel rows inside the input.
                    let firstKY = startY >= 0 ? 0 : (-startY + dilationY - 1) / dilationY
                    let lastKY = min(kernelY, (height - startY + dilationY - 1) / dilationY)
                    for ox in 0..<outWidth {
                        let startX = ox * strideX - padX
                        let firstKX = startX >= 0 ? 0 : (-startX + dilationX - 1) / dilationX
                        let lastKX = min(kernelX, (width - startX + dilationX - 1) / dilationX)
                        var largest = -Float.infinity, sum: Float = 0
                        if firstKY < lastKY && firstKX < lastKX {
                            for ky in firstKY..<lastKY {
                                let row = x + (startY + ky * dilationY) * width + startX
                                for kx in firstKX..<lastKX {
                                    let value = row[kx * dilationX]
                                    largest = max(largest, value)
                                    sum += value
                                }
                            }
                        }
                        switch kind {
                        case .max:
                            y[oy * outWidth + ox] = largest
                        case .average(let countIncludePad):
                            var divisor = max(0, lastKY - firstKY) * max(0, lastKX - firstKX)
                            if countIncludePad {
                                // Window positions inside the padded input, padding included.
                                let endY = min(startY + (kernelY - 1) * dilationY + 1, height + padEndY)
                                let endX = min(startX + (kernelX - 1) * dilationX + 1, width + padEndX)
                                divisor = ((endY - startY + dilationY - 1) / dilationY) * ((endX - startX + dilationX - 1) / dilationX)
                            }
                            y[oy * outWidth + ox] = divisor > 0 ? sum / Float(divisor) : 0
                        }
                    }
                }
            }
        }
    }
}
