import CImageCodecs
import CJPEGEighth
import Foundation
import PlantGuideImaging
import PlantGuideTestSupport
import Testing

/// The 1/8-scale DC decoder (`CJPEGEighth`) against libjpeg-turbo's own 1/8-scale decoding of the same files.
@Suite("Decoding JPEGs at 1/8 scale from DC coefficients", .cpuHeavy)
struct EighthScaleDecoderTests {
    /// libjpeg-turbo's subsampling codes: 4:4:4, 4:2:2, 4:2:0, grey, 4:4:0.
    static let subsamplings: [(name: String, code: TJSAMP)] = [
        ("4:4:4", TJSAMP_444), ("4:2:2", TJSAMP_422), ("4:2:0", TJSAMP_420), ("grey", TJSAMP_GRAY), ("4:4:0", TJSAMP_440),
    ]

    @Test("pixels equal libjpeg-turbo's at 1/8 scale (4:2:0 chroma within 2 levels), on one thread and on two",
          arguments: subsamplings.map(\.name))
    func matchesLibjpegTurbo(subsampling: String) throws {
        let code = try #require(Self.subsamplings.first { $0.name == subsampling }).code
        let jpeg = try Self.encode(Self.texturedPhoto(width: 1_200, height: 904), subsampling: code)
        #expect(jpeg.count > 256 << 10, "large enough for the two-thread split: \(jpeg.count) bytes")

        let reference = try Self.libjpegTurbo(jpeg)
        let one = try Self.eighth(jpeg, threads: 1)
        let two = try Self.eighth(jpeg, threads: 2)

        #expect(one == two, "two threads give the same pixels as one")
        let (mean, largest) = Self.difference(one, reference)
        if code == TJSAMP_420 {
            #expect(largest <= 2 && mean < 0.05, "chroma's 2×2 IDCT rounds differently: mean \(mean), largest \(largest)")
        } else {
            #expect(largest == 0, "the same pixels: mean \(mean), largest \(largest)")
        }
    }

    @Test("a camera's JPEG with restart markers splits at one and decodes as libjpeg-turbo does")
    func restartMarkers() throws {
        let jpeg = try Self.fixture("plant-photo-restarts")
        #expect(jpeg.firstRange(of: Data([0xFF, 0xDD])) != nil, "the fixture has a restart interval")

        let reference = try Self.libjpegTurbo(jpeg)
        let two = try Self.eighth(jpeg, threads: 2)

        #expect(two == (try Self.eighth(jpeg, threads: 1)))
        let (mean, largest) = Self.difference(two, reference)
        #expect(largest <= 2 && mean < 0.05, "mean \(mean), largest \(largest)")
    }

    @Test("truncated or damaged data is declined, so that libjpeg-turbo names the fault", arguments: ["truncated", "damaged"])
    func declinesBadData(damage: String) throws {
        let jpeg = try Self.encode(Self.texturedPhoto(width: 800, height: 600), subsampling: TJSAMP_420)
        var bytes = [UInt8](jpeg)
        if damage == "truncated" {
            bytes.removeLast(bytes.count / 3)
        } else {
            // A marker that does not belong, in the second half, where the second thread starts.
            bytes[bytes.count * 3 / 4] = 0xFF
            bytes[bytes.count * 3 / 4 + 1] = 0xD3
        }

        for threads in [1, 2] {
            #expect(throws: EighthError.self) { _ = try Self.eighth(Data(bytes), threads: Int32(threads)) }
        }
        let error = #expect(throws: ImagingError.self) { _ = try ImageDecoder.decode(Data(bytes), maxLongSide: 100) }
        // libjpeg-turbo calls a stray marker a "premature end of data segment": truncated, too.
        #expect(error?.code == .truncated || (damage == "damaged" && error?.code == .corrupt), "\(error?.message ?? "")")
    }

    @Test("progressive JPEGs are left to libjpeg-turbo, which still decodes them at 1/8 scale")
    func progressiveIsDeclined() throws {
        let image = Self.texturedPhoto(width: 320, height: 240)
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = image.pixels.withUnsafeBufferPointer { source in
            tjCompress2(handle, source.baseAddress, 320, 0, 240, Int32(TJPF_RGB.rawValue), &output, &size,
                        Int32(TJSAMP_420.rawValue), 90, TJFLAG_PROGRESSIVE)
        }
        defer { tjFree(output) }
        try #require(result == 0)
        let jpeg = Data(bytes: try #require(output), count: Int(size))

        let error = #expect(throws: EighthError.self) { _ = try Self.eighth(jpeg, threads: 2) }
        #expect(error?.status == JPEG_EIGHTH_UNSUPPORTED)
        let decoded = try ImageDecoder.decode(jpeg, maxLongSide: 40)
        #expect(decoded.width == 40 && decoded.height == 30)
    }

    @Test("random damage never crashes it, and what it accepts libjpeg-turbo accepts with the same pixels",
          arguments: ["plant-photo-restarts", "sample"])
    func randomDamage(file: String) throws {
        let original = [UInt8](file == "sample" ? try Self.encode(Self.texturedPhoto(width: 640, height: 480), subsampling: TJSAMP_420)
                                                : try Self.fixture(file))
        var generator = SplitMix64(seed: 43)
        var accepted = 0
        for round in 0..<300 {
            var bytes = original
            switch round % 3 {
            case 0: for _ in 0..<(1 + round % 5) { bytes[generator.next(below: bytes.count)] ^= UInt8(1 + generator.next(below: 255)) }
            case 1: bytes.removeLast(generator.next(below: bytes.count - 2))
            default:
                let at = 600 + generator.next(below: bytes.count - 602)
                (bytes[at], bytes[at + 1]) = (0xFF, UInt8(0xD0 + generator.next(below: 10)))
            }
            let damaged = Data(bytes)
            guard let two = try? Self.eighth(damaged, threads: 2) else { continue }
            accepted += 1
            #expect(two == (try Self.eighth(damaged, threads: 1)), "round \(round)")
            let reference = try? Self.libjpegTurbo(damaged)
            #expect(reference != nil, "round \(round): libjpeg-turbo refuses what the DC decoder accepts")
            if let reference, reference.count == two.count {
                #expect(Self.difference(two, reference).largest <= 2, "round \(round)")
            }
        }
        #expect(accepted < 300, "most damage is declined")
    }

    // MARK: - Helpers

    struct EighthError: Error {
        let status: jpeg_eighth_status
    }

    /// Gradients under pseudo-random texture: compresses like a detailed photo (about 1 bit per pixel at 90).
    static func texturedPhoto(width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 12_345
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = Int(state >> 27) - 16
                let base = y * width * 3 + x * 3
                pixels[base] = UInt8(clamping: x * 255 / width + noise)
                pixels[base + 1] = UInt8(clamping: y * 255 / height + noise / 2)
                pixels[base + 2] = UInt8(clamping: 128 + (x ^ y) % 64 - noise)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    static func encode(_ image: RGBImage, subsampling: TJSAMP) throws -> Data {
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = image.pixels.withUnsafeBufferPointer { source in
            tjCompress2(handle, source.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGB.rawValue),
                        &output, &size, Int32(subsampling.rawValue), 92, 0)
        }
        defer { tjFree(output) }
        try #require(result == 0)
        return Data(bytes: try #require(output), count: Int(size))
    }

    static func eighth(_ jpeg: Data, threads: Int32) throws -> [UInt8] {
        try jpeg.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var width: Int32 = 0
            var height: Int32 = 0
            let sized = jpeg_eighth_size(bytes.baseAddress, bytes.count, &width, &height)
            guard sized == JPEG_EIGHTH_OK else { throw EighthError(status: sized) }
            var pixels = [UInt8](repeating: 0, count: Int(width * height * 3))
            let status = pixels.withUnsafeMutableBufferPointer { jpeg_eighth_decode(bytes.baseAddress, bytes.count, $0.baseAddress, threads) }
            guard status == JPEG_EIGHTH_OK else { throw EighthError(status: status) }
            return pixels
        }
    }

    static func libjpegTurbo(_ jpeg: Data) throws -> [UInt8] {
        let handle = try #require(tjInitDecompress())
        defer { tjDestroy(handle) }
        return try jpeg.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var width: Int32 = 0
            var height: Int32 = 0
            var subsampling: Int32 = 0
            var colorspace: Int32 = 0
            try #require(tjDecompressHeader3(handle, bytes.baseAddress, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0)
            let (w, h) = ((Int(width) + 7) / 8, (Int(height) + 7) / 8)
            var pixels = [UInt8](repeating: 0, count: w * h * 3)
            let result = pixels.withUnsafeMutableBufferPointer {
                tjDecompress2(handle, bytes.baseAddress, UInt(bytes.count), $0.baseAddress, Int32(w), 0, Int32(h),
                              Int32(TJPF_RGB.rawValue), TJFLAG_STOPONWARNING)
            }
            try #require(result == 0)
            return pixels
        }
    }

    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (mean: Double, largest: Int) {
        guard a.count == b.count, !a.isEmpty else { return (.infinity, .max) }
        var total = 0
        var largest = 0
        for (x, y) in zip(a, b) {
            let d = abs(Int(x) - Int(y))
            total += d
            largest = max(largest, d)
        }
        return (Double(total) / Double(a.count), largest)
    }

    static func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "jpg", subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }
}
