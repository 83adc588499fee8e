import CInferenceKernels

/// The sliding-window arithmetic Conv and the pooling operators share: kernel, strides, dilations, pads (explicit
/// or from auto_pad), and ceil mode, resolved against one input's spatial dimensions.
struct WindowAttributes: Sendable {
    var kernelShape: [Int]?
    var strides: [Int]?
    var dilations: [Int]?
    var pads: [Int]?
    var autoPad: String = "NOTSET"
    var ceilMode = false

    init(_ attributes: NodeAttributes) throws(InferenceError) {
        kernelShape = attributes.ints("kernel_shape")
        strides = attributes.ints("strides")
        dilations = attributes.ints("dilations")
        pads = attributes.ints("pads")
        autoPad = attributes.string("auto_pad", default: "NOTSET")
        ceilMode = attributes.int("ceil_mode", default: 0) != 0
        guard ["NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"].contains(autoPad) else {
            throw attributes.error(.malformedModel, "auto_pad '\(autoPad)' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER")
        }
    }

    /// The geometry for these spatial input sizes (and kernel sizes, when the weights give them).
    func resolve(input: [Int], kernel fallbackKernel: [Int]? = nil) throws(InferenceError) -> WindowGeometry {
        let rank = input.count
        guard let kernel = kernelShape ?? fallbackKernel, kernel.count == rank else {
            throw shapeError("kernel_shape \(kernelShape ?? fallbackKernel ?? []) does not match \(rank) spatial dimensions")
        }
        let strides = strides ?? Array(repeating: 1, count: rank)
        let dilations = dilations ?? Array(repeating: 1, count: rank)
        guard strides.count == rank, dilations.count == rank, strides.allSatisfy({ $0 > 0 }), dilations.allSatisfy({ $0 > 0 }) else {
            throw shapeError("strides \(strides) or dilations \(dilations) do not fit \(rank) spatial dimensions")
        }
        var begin = Array(repeating: 0, count: rank), end = Array(repeating: 0, count: rank)
        var output = Array(repeating: 0, count: rank)
        for axis in 0..<rank {
            let span = (kernel[axis] - 1) * dilations[axis] + 1
            switch autoPad {
            case "SAME_UPPER", "SAME_LOWER":
                output[axis] = (input[axis] + strides[axis] - 1) / strides[axis]
                let total = max(0, (output[axis] - 1) * strides[axis] + span - input[axis])
                begin[axis] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2
                end[axis] = total - begin[axis]
            default:
                if autoPad == "NOTSET", let pads {
                    guard pads.count == 2 * rank else { throw shapeError("pads \(pads) do not have 2 × \(rank) values") }
                    begin[axis] = pads[axis]
                    end[axis] = pads[axis + rank]
                }
                let room = input[axis] + begin[axis] + end[axis] - span
                guard room >= 0 else { throw shapeError("the window \(kernel) is larger than the padded input \(input)") }
                output[axis] = (ceilMode ? (room + strides[axis] - 1) / strides[axis] : room / strides[axis]) + 1
                // A last window that would start past the padded input is dropped (as in ONNX's reference).
                if ceilMode && (output[axis] - 1) * strides[axis] >= input[axis] + begin[axis] { output[axis] -= 1 }
            }
        }
        return WindowGeometry(input: input, kernel: kernel, strides: strides, dilations: dilations, padBegin: begin, padEnd: end, output: output)
    }
}

/// A resolved window geometry. Up to two spatial dimensions are run (1-D as a height of one).
struct WindowGeometry {
    var input: [Int], kernel: [Int], strides: [Int], dilations: [Int], padBegin: [Int], padEnd: [Int], output: [Int]

    /// The same geometry in two dimensions, 1-D becoming 1×W.
    func planar() throws(InferenceError) -> WindowGeometry {
        switch input.count {
        case 2: return self
        case 1:
            return WindowGeometry(
                input: [1] + input, kernel: [1] + kernel, strides: [1] + strides, dilations: [1] + dilations,
                padBegin: [0] + padBegin, padEnd: [0] + padEnd, output: [1] + output)
        default:
            throw InferenceError(.unsupportedModel, "\(input.count)-D windows are not supported, only 1-D and 2-D")
        }
    }

    /// The C kernels' description of this (planar) geometry.
    var cWindow: pg_window {
        pg_window(
            height: Int32(input[0]), width: Int32(input[1]), out_height: Int32(output[0]), out_width: Int32(output[1]),
            kernel_y: Int32(kernel[0]), kernel_x: Int32(kernel[1]), stride_y: Int32(strides[0]), stride_x: Int32(strides[1]),
            dilation_y: Int32(dilations[0]), dilation_x: Int32(dilations[1]), pad_top: Int32(padBegin[0]), pad_left: Int32(padBegin[1]))
    }

    /// The output positions `o` along `axis` whose input `o·stride − padBegin + offset` lies inside the input.
    func validRange(axis: Int, offset: Int) -> Range<Int> {
        let s = strides[axis], shift = offset - padBegin[axis]
        // o·s + shift ≥ 0 and o·s + shift ≤ input − 1
        let low = shift >= 0 ? 0 : (-shift + s - 1) / s
        let highInclusive = input[axis] - 1 - shift
        let high = highInclusive < 0 ? 0 : min(output[axis], highInclusive / s + 1)
        return low < high ? low..<high : 0..<0
    }
}
