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
        let kind = kind
        return { inputs, outputs in
            for plane in 0..<planes {
                let x = inputs[0]! + plane * height * width, y = outputs[0] + plane * outHeight * outWidth
                for oy in 0..<outHeight {
                    let startY = oy * g.strides[0] - g.padBegin[0]
                    for ox in 0..<outWidth {
                        let startX = ox * g.strides[1] - g.padBegin[1]
                        var largest = -Float.infinity, sum: Float = 0, valid = 0
                        for ky in 0..<g.kernel[0] {
                            let iy = startY + ky * g.dilations[0]
                            guard iy >= 0 && iy < height else { continue }
                            for kx in 0..<g.kernel[1] {
                                let ix = startX + kx * g.dilations[1]
                                guard ix >= 0 && ix < width else { continue }
                                let value = x[iy * width + ix]
                                largest = max(largest, value)
                                sum += value
                                valid += 1
                            }
                        }
                        switch kind {
                        case .max:
                            y[oy * outWidth + ox] = largest
                        case .average(let countIncludePad):
                            var divisor = valid
                            if countIncludePad {
                                // Window positions inside the padded input, padding included.
                                let endY = min(startY + (g.kernel[0] - 1) * g.dilations[0] + 1, height + g.padEnd[0])
                                let endX = min(startX + (g.kernel[1] - 1) * g.dilations[1] + 1, width + g.padEnd[1])
                                divisor = ((endY - startY + g.dilations[0] - 1) / g.dilations[0])
                                    * ((endX - startX + g.dilations[1] - 1) / g.dilations[1])
                            }
                            y[oy * outWidth + ox] = divisor > 0 ? sum / Float(divisor) : 0
                        }
                    }
                }
            }
        }
    }
}
