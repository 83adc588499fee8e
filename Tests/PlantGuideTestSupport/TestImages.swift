import CImageCodecs
import Foundation
import PlantGuideImaging

/// Images made by the real encoders, for decoder tests.
public enum TestImages {
    /// Left half red, right half blue.
    public static func halves(width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 3)
        for _ in 0..<height {
            for x in 0..<width { pixels += x < width / 2 ? [220, 20, 20] : [20, 20, 220] }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// A smooth gradient, like a photo's sky (compresses realistically).
    public static func gradient(width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                pixels[offset] = UInt8(x * 255 / max(1, width - 1))
                pixels[offset + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[offset + 2] = UInt8((x ^ y) & 0x3F)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    public static func jpeg(_ image: RGBImage) throws -> Data { Data(try JPEGCodec.encode(image, quality: 90)) }

    public static func png(_ image: RGBImage) -> Data {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = UInt32(PNG_FORMAT_RGB)
        var size = 0
        _ = png_image_write_to_memory(&png, nil, &size, 0, image.pixels, 0, nil)
        var out = [UInt8](repeating: 0, count: size)
        _ = png_image_write_to_memory(&png, &out, &size, 0, image.pixels, 0, nil)
        return Data(out.prefix(size))
    }

    public static func webp(_ image: RGBImage) -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        let size = WebPEncodeRGB(image.pixels, Int32(image.width), Int32(image.height), Int32(image.width * 3), 90, &output)
        defer { WebPFree(output) }
        return Data(UnsafeBufferPointer(start: output, count: size))
    }

    /// `jpeg` with an EXIF APP1 segment saying `orientation`, inserted after SOI.
    public static func withOrientation(_ jpeg: Data, _ orientation: UInt8) -> Data {
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        return Data(jpeg.prefix(2)) + Data(segment) + Data(jpeg.dropFirst(2))
    }

    /// A valid PNG signature and IHDR declaring `width` × `height`, and nothing else: a decompression bomb's header.
    public static func pngHeader(width: UInt32, height: UInt32) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        for value in [width, height] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
        bytes += [8, 2, 0, 0, 0, 0, 0, 0, 0]  // depth 8, RGB, then a (wrong) CRC
        return Data(bytes)
    }
}
