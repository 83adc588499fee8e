/// An 8-bit RGB image in memory, rows top to bottom, no padding.
public struct RGBImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "an RGB image needs width × height × 3 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The colour at (x, y).
    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let offset = (y * width + x) * 3
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2])
    }

    /// Scaled down (or kept) so that it fits `width` × `height`, averaging the source pixels each target pixel
    /// covers (a box filter: sharp enough for thumbnails, and fast).
    public func resized(width newWidth: Int, height newHeight: Int) -> RGBImage {
        guard newWidth != width || newHeight != height else { return self }
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for y in 0..<newHeight {
                    let y0 = y * height / newHeight
                    let y1 = max(y0 + 1, (y + 1) * height / newHeight)
                    for x in 0..<newWidth {
                        let x0 = x * width / newWidth
                        let x1 = max(x0 + 1, (x + 1) * width / newWidth)
                        var sums = (0, 0, 0)
                        for sy in y0..<y1 {
                            var offset = (sy * width + x0) * 3
                            for _ in x0..<x1 {
                                sums.0 += Int(source[offset])
                                sums.1 += Int(source[offset + 1])
                                sums.2 += Int(source[offset + 2])
                                offset += 3
                            }
                        }
                        let count = (y1 - y0) * (x1 - x0)
                        let out = (y * newWidth + x) * 3
                        target[out] = UInt8(sums.0 / count)
                        target[out + 1] = UInt8(sums.1 / count)
                        target[out + 2] = UInt8(sums.2 / count)
                    }
                }
            }
        }
        return RGBImage(width: newWidth, height: newHeight, pixels: output)
    }

    /// The size that fits within `longSide` keeping the aspect ratio (never enlarging).
    public func fittingSize(longSide: Int) -> (width: Int, height: Int) {
        let long = max(width, height)
        guard long > longSide else { return (width, height) }
        return (max(1, width * longSide / long), max(1, height * longSide / long))
    }
}
