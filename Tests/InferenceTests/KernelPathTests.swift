import CInferenceKernels
import Foundation
import PlantGuideInference
import PlantGuideTestSupport
import Testing

/// The hand-written kernels of the path in use (Scripts/test runs this suite once per path the CPU has, through
/// PLANTGUIDE_INFERENCE_ISA) against plain loops in Double, on the shapes where their vectors end: partial tiles and
/// panels, single rows, planes narrower and wider than a vector, both strides.
@Suite(.cpuHeavy) struct KernelPathTests {
    @Test("the path in use is the one PLANTGUIDE_INFERENCE_ISA names, else the CPU's best")
    func pathInUse() throws {
        let requested = ProcessInfo.processInfo.environment[InferenceISA.environmentVariable]
        #expect(try InferenceISA.configured() == InferenceISA.current)
        if let requested, !requested.isEmpty {
            #expect(InferenceISA.current.description == requested)
        } else {
            #expect(InferenceISA.current == InferenceISA.cpu)
        }
        #expect(InferenceISA.supported.contains(InferenceISA.current))
        #expect(InferenceModel.matrixKernels.contains(InferenceISA.current == .avx512 ? "AVX-512" : InferenceISA.current == .avx2 ? "AVX2" : "portable"))
    }

    @Test("instruction-sets lists the CPU's paths, marks the forced one and refuses a name it does not know")
    func instructionSetsCommand() async throws {
        let binary = BuildProducts.url(of: "plantguide-identification")
        let names = try await ChildProcess.run(binary, ["instruction-sets", "--names"], environment: ["PLANTGUIDE_INFERENCE_ISA": ""])
        #expect(names.status == 0)
        #expect(names.output.split(separator: "\n").map(String.init) == InferenceISA.supported.map(\.description))
        let forced = try await ChildProcess.run(binary, ["instruction-sets"], environment: ["PLANTGUIDE_INFERENCE_ISA": "portable"])
        #expect(forced.status == 0)
        #expect(forced.output.contains("* portable"))
        let unknown = try await ChildProcess.run(binary, ["instruction-sets"], environment: ["PLANTGUIDE_INFERENCE_ISA": "avx3"])
        #expect(unknown.status == 2)
        #expect(unknown.output.contains("PLANTGUIDE_INFERENCE_ISA must be one of portable, avx2, avx512"))
    }

    @Test("the packed product matches a plain one at every edge of its panels and tiles", arguments: [
        (1, 1, 1), (1, 9, 33), (1, 64, 100), (3, 5, 7), (4, 17, 16), (8, 32, 32), (9, 3, 65), (13, 70, 45), (16, 130, 96), (24, 27, 12544 / 8),
        // Shallow (k ≤ 64, AVX2 takes its own kernel): a last panel of five rows, of one, a last tile of 8 columns.
        (21, 16, 1000), (17, 64, 72),
        // A small plane (33 to 55 columns, AVX2 takes its own kernel, in blocks of 8 to 11 columns): blocks of 10 and 9,
        // of 9 and 8, of 11; a last panel of 7 rows, of 4.
        (20, 40, 49), (7, 33, 35), (12, 50, 34), (9, 200, 55),
        // Weights larger than L2 against few columns: each panel against every tile (as planes on AVX2, the small-plane
        // kernel).
        (520, 600, 49),
    ])
    func packedProduct(_ shape: (Int, Int, Int)) {
        let (m, k, n) = shape
        var random = SeededRandom(seed: UInt64(m * 10_000 + k * 100 + n))
        let w = (0..<m * k).map { _ in random.nextFloat() }, x = (0..<k * n).map { _ in random.nextFloat() }
        let bias = (0..<m).map { _ in random.nextFloat() }, columnBias = (0..<n).map { _ in random.nextFloat() }
        var packedW = [Float](repeating: .nan, count: pg_packed_weights_size(Int32(m), Int32(k)))
        pg_pack_weights(w, Int32(m), Int32(k), &packedW)
        var packedX = [Float](repeating: .nan, count: pg_packed_columns_size(Int32(k), Int32(n)))
        pg_pack_columns(x, Int32(k), Int32(n), 0, &packedX)
        for (activation, low, high) in [(PG_ACTIVATION_NONE, Float(0), Float(0)), (PG_ACTIVATION_RELU, 0, 0), (PG_ACTIVATION_CLIP, -0.5, 0.5)] {
            // X as row-major planes (a convolution) with a row bias, and X packed in tiles (a Linear layer) with a
            // column bias.
            // 64 floats past y, which no kernel may write: a vector stored whole past a tile's last column would.
            var planes = [Float](repeating: .nan, count: m * n + 64), tiles = planes
            pg_packed_gemm(packedW, Int32(m), Int32(k), x, Int32(n), n, 32, &planes, bias, nil, Int32(activation), low, high)
            pg_packed_gemm(packedW, Int32(m), Int32(k), packedX, Int32(n), 32, 32 * k, &tiles, nil, columnBias, Int32(activation), low, high)
            var worstPlanes = 0.0, worstTiles = 0.0
            for row in 0..<m {
                for column in 0..<n {
                    var sum = 0.0, scale = 1.0
                    for step in 0..<k {
                        sum += Double(w[row * k + step]) * Double(x[step * n + column])
                        scale += abs(Double(w[row * k + step]) * Double(x[step * n + column]))
                    }
                    let expectedPlanes = apply(activation, sum + Double(bias[row]), low, high)
                    let expectedTiles = apply(activation, sum + Double(columnBias[column]), low, high)
                    worstPlanes = max(worstPlanes, abs(Double(planes[row * n + column]) - expectedPlanes) / scale)
                    worstTiles = max(worstTiles, abs(Double(tiles[row * n + column]) - expectedTiles) / scale)
                }
            }
            #expect(planes[(m * n)...].allSatisfy(\.isNaN) && tiles[(m * n)...].allSatisfy(\.isNaN), "wrote past y: \(m)×\(k)×\(n)")
            #expect(worstPlanes < 1e-5, "\(InferenceISA.current), \(m)×\(k)×\(n), activation \(activation): \(worstPlanes)")
            #expect(worstTiles < 1e-5, "\(InferenceISA.current), \(m)×\(k)×\(n), activation \(activation): \(worstTiles)")
        }
    }

    @Test("rows times packed columns (a Linear layer, its activations unpacked) match a plain product, at every edge of its tiles", arguments: [
        (1, 1, 1), (1, 7, 5), (1, 33, 32), (1, 64, 38), (1, 1001, 100), (1, 18, 1024),
        // Several rows (AVX-512 only): a panel of 3, one whole, one and a part, several and a part; columns of more
        // than 1 MB, which it leaves to the packed product.
        (3, 7, 5), (8, 33, 32), (13, 64, 38), (20, 192, 100), (9, 2048, 160),
    ])
    func rowsTimesPackedColumns(_ shape: (Int, Int, Int)) {
        let (m, k, n) = shape
        var random = SeededRandom(seed: UInt64(m * 1_000_000 + k * 10_000 + n))
        let a = (0..<m * k).map { _ in random.nextFloat() }, b = (0..<k * n).map { _ in random.nextFloat() }
        let columnBias = (0..<n).map { _ in random.nextFloat() }
        var packed = [Float](repeating: .nan, count: pg_packed_columns_size(Int32(k), Int32(n)))
        pg_pack_columns(b, Int32(k), Int32(n), 0, &packed)
        // One row has a kernel on every path (the portable one plain C); several rows only on AVX-512, against at
        // most 1 MB of columns.
        let hasKernel = m == 1 || (InferenceISA.current == .avx512 && packed.count * 4 <= 1 << 20)
        for (activation, low, high) in [(PG_ACTIVATION_NONE, Float(0), Float(0)), (PG_ACTIVATION_RELU, 0, 0), (PG_ACTIVATION_CLIP, -0.5, 0.5)] {
            for bias in [nil, columnBias] {
                // 64 floats past y, which the kernel may not write: a tile's vectors stored whole would.
                var y = [Float](repeating: .nan, count: m * n + 64)
                let done = pg_rows_packed_columns(a, Int32(m), Int32(k), packed, Int32(n), &y, bias, Int32(activation), low, high)
                #expect((done == 1) == hasKernel, "\(InferenceISA.current), \(m) rows: done \(done)")
                guard done == 1 else { continue }
                var worst = 0.0
                for row in 0..<m {
                    for column in 0..<n {
                        var sum = Double(bias?[column] ?? 0), scale = 1.0
                        for step in 0..<k {
                            sum += Double(a[row * k + step]) * Double(b[step * n + column])
                            scale += abs(Double(a[row * k + step]) * Double(b[step * n + column]))
                        }
                        worst = max(worst, abs(Double(y[row * n + column]) - apply(activation, sum, low, high)) / scale)
                    }
                }
                let pastY = y[(m * n)...].allSatisfy(\.isNaN)
                #expect(pastY, "wrote past y: \(m)×\(k)×\(n)")
                #expect(worst < 1e-5, "\(InferenceISA.current), \(m)×\(k)×\(n), activation \(activation), bias \(bias != nil): \(worst)")
            }
        }
    }

    @Test("depthwise 3×3 matches a plain loop, padded or flat, at stride 1 and 2", arguments: [
        (7, 7, 1), (14, 14, 1), (5, 11, 1), (16, 16, 1), (13, 17, 1), (56, 56, 1), (9, 9, 2), (14, 14, 2), (112, 112, 2), (13, 31, 2),
    ])
    func depthwise3x3(_ shape: (Int, Int, Int)) {
        let (height, width, stride) = shape
        let channels = 5
        var random = SeededRandom(seed: UInt64(height * 1000 + width * 10 + stride))
        let input = (0..<channels * height * width).map { _ in random.nextFloat() }
        let weights = (0..<channels * 9).map { _ in random.nextFloat() }, bias = (0..<channels).map { _ in random.nextFloat() }
        var window = Self.window3x3(height: height, width: width, stride: stride)
        let (outHeight, outWidth) = (Int(window.out_height), Int(window.out_width))
        let outPlane = outHeight * outWidth
        var padded = [Float](repeating: .nan, count: channels * outPlane + 64)
        var scratch = [Float](repeating: 0, count: pg_depthwise3x3_scratch_size(&window) + 64)
        // The kernels align the scratch they are given: the executor's is 64-byte aligned, as this one.
        scratch.withUnsafeMutableBufferPointer { buffer in
            let aligned = UnsafeMutableRawPointer(buffer.baseAddress!).alignedUp(toMultipleOf: 64).assumingMemoryBound(to: Float.self)
            pg_depthwise3x3(&window, Int32(channels), input, weights, bias, Int32(PG_ACTIVATION_CLIP), -0.3, 0.3, &padded, aligned)
        }
        var flat = [Float](repeating: .nan, count: channels * outPlane + 64)
        let isFlat = stride == 1 && width <= 16
        if isFlat { pg_depthwise3x3_flat(&window, Int32(channels), input, weights, bias, Int32(PG_ACTIVATION_CLIP), -0.3, 0.3, &flat) }
        var worst = 0.0, worstFlat = 0.0
        for c in 0..<channels {
            for oy in 0..<outHeight {
                for ox in 0..<outWidth {
                    var sum = Double(bias[c])
                    for ky in 0..<3 {
                        for kx in 0..<3 {
                            let (y, x) = (oy * stride + ky - 1, ox * stride + kx - 1)
                            guard (0..<height).contains(y), (0..<width).contains(x) else { continue }
                            sum += Double(weights[c * 9 + ky * 3 + kx]) * Double(input[(c * height + y) * width + x])
                        }
                    }
                    let expected = apply(PG_ACTIVATION_CLIP, sum, -0.3, 0.3), index = c * outPlane + oy * outWidth + ox
                    worst = max(worst, abs(Double(padded[index]) - expected))
                    if isFlat { worstFlat = max(worstFlat, abs(Double(flat[index]) - expected)) }
                }
            }
        }
        #expect(padded[(channels * outPlane)...].allSatisfy(\.isNaN) && flat[(channels * outPlane)...].allSatisfy(\.isNaN), "wrote past")
        #expect(worst < 1e-5, "\(InferenceISA.current), \(height)×\(width) stride \(stride): \(worst)")
        #expect(worstFlat < 1e-5, "\(InferenceISA.current), \(height)×\(width) flat: \(worstFlat)")
    }

    @Test("the direct 3×3 convolution of few channels (a stem) matches a plain loop, at stride 1 and 2", arguments: [
        (30, 30, 2, 3, 8), (17, 23, 1, 3, 4), (9, 9, 2, 1, 12), (13, 50, 2, 4, 8), (64, 64, 2, 3, 32), (5, 3, 1, 2, 4),
    ])
    func directConvolution(_ shape: (Int, Int, Int, Int, Int)) {
        let (height, width, stride, channels, filters) = shape
        var random = SeededRandom(seed: UInt64(height * 1000 + width * 10 + stride + channels * 7 + filters))
        let input = (0..<channels * height * width).map { _ in random.nextFloat() }
        let weights = (0..<filters * channels * 9).map { _ in random.nextFloat() }, bias = (0..<filters).map { _ in random.nextFloat() }
        var window = Self.window3x3(height: height, width: width, stride: stride)
        let (outHeight, outWidth) = (Int(window.out_height), Int(window.out_width))
        let outPlane = outHeight * outWidth
        var output = [Float](repeating: .nan, count: filters * outPlane + 64)
        var scratch = [Float](repeating: .nan, count: pg_conv3x3_direct_scratch_size(&window, Int32(channels)))
        pg_conv3x3_direct(&window, Int32(channels), Int32(filters), input, weights, bias, Int32(PG_ACTIVATION_CLIP), -0.4, 0.4,
                          &output, &scratch)
        var worst = 0.0
        for f in 0..<filters {
            for oy in 0..<outHeight {
                for ox in 0..<outWidth {
                    var sum = Double(bias[f])
                    for c in 0..<channels {
                        for ky in 0..<3 {
                            for kx in 0..<3 {
                                let (y, x) = (oy * stride + ky - 1, ox * stride + kx - 1)
                                guard (0..<height).contains(y), (0..<width).contains(x) else { continue }
                                sum += Double(weights[(f * channels + c) * 9 + ky * 3 + kx]) * Double(input[(c * height + y) * width + x])
                            }
                        }
                    }
                    worst = max(worst, abs(Double(output[f * outPlane + oy * outWidth + ox]) - apply(PG_ACTIVATION_CLIP, sum, -0.4, 0.4)))
                }
            }
        }
        let untouched = output[(filters * outPlane)...].allSatisfy(\.isNaN)
        #expect(untouched, "wrote past")
        #expect(worst < 1e-5, "\(InferenceISA.current), \(height)×\(width) stride \(stride), \(channels) → \(filters): \(worst)")
    }

    @Test("depthwise k×k at stride 1 matches a plain loop, for rows of blocks, of single vectors and fewer than eight", arguments: [
        (7, 7, 7), (14, 14, 7), (28, 28, 7), (56, 56, 7), (9, 33, 5), (13, 70, 5), (3, 5, 3),
    ])
    func depthwiseUnitStride(_ shape: (Int, Int, Int)) {
        let (height, width, size) = shape
        var random = SeededRandom(seed: UInt64(height * 1000 + width * 10 + size))
        let input = (0..<height * width).map { _ in random.nextFloat() }, weights = (0..<size * size).map { _ in random.nextFloat() }
        var window = pg_window(height: Int32(height), width: Int32(width), out_height: Int32(height), out_width: Int32(width),
                               kernel_y: Int32(size), kernel_x: Int32(size), stride_y: 1, stride_x: 1, dilation_y: 1, dilation_x: 1,
                               pad_top: Int32(size / 2), pad_left: Int32(size / 2))
        var output = [Float](repeating: .nan, count: height * width + 64)
        var scratch = [Float](repeating: 0, count: pg_padded_plane_size(&window) + 64)
        pg_depthwise_conv2d(&window, input, weights, 0.25, &output, &scratch)
        var worst = 0.0
        for oy in 0..<height {
            for ox in 0..<width {
                var sum = 0.25
                for ky in 0..<size {
                    for kx in 0..<size {
                        let (y, x) = (oy + ky - size / 2, ox + kx - size / 2)
                        guard (0..<height).contains(y), (0..<width).contains(x) else { continue }
                        sum += Double(weights[ky * size + kx]) * Double(input[y * width + x])
                    }
                }
                worst = max(worst, abs(Double(output[oy * width + ox]) - sum))
            }
        }
        #expect(output[(height * width)...].allSatisfy { $0.isNaN }, "wrote past the plane")
        #expect(worst < 1e-5, "\(InferenceISA.current), \(height)×\(width), \(size)×\(size): \(worst)")
    }

    @Test("every second float of a row, at every length around a vector's")
    func stridedCopy() {
        let source = (0..<200).map(Float.init)
        for count in [1, 7, 8, 9, 15, 16, 17, 31, 33, 99] {
            var destination = [Float](repeating: .nan, count: count + 1)
            pg_copy_strided(source, 2, &destination, count)
            #expect(Array(destination.prefix(count)) == (0..<count).map { Float(2 * $0) }, "\(InferenceISA.current), \(count)")
            #expect(destination[count].isNaN, "wrote past \(count)")
        }
    }

    /// A 3×3 window with a border of one ("same" at stride 1) over a height × width plane.
    private static func window3x3(height: Int, width: Int, stride: Int) -> pg_window {
        pg_window(height: Int32(height), width: Int32(width), out_height: Int32((height - 1) / stride + 1),
                  out_width: Int32((width - 1) / stride + 1), kernel_y: 3, kernel_x: 3, stride_y: Int32(stride),
                  stride_x: Int32(stride), dilation_y: 1, dilation_x: 1, pad_top: 1, pad_left: 1)
    }

    private func apply(_ activation: Int, _ value: Double, _ low: Float, _ high: Float) -> Double {
        switch activation {
        case PG_ACTIVATION_RELU: max(value, 0)
        case PG_ACTIVATION_CLIP: min(max(value, Double(low)), Double(high))
        default: value
        }
    }
}

/// A small deterministic generator (splitmix64), so that a failing shape fails the same way every run.
private struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func nextFloat() -> Float {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Float(z >> 40) / Float(1 << 24) * 2 - 1
    }
}
