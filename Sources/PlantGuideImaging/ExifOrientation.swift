/// The EXIF orientation of a JPEG (tag 0x0112 in IFD0 of the APP1 "Exif" segment): how to turn the stored pixels
/// to show the photo upright. Phones store portrait photos sideways with orientation 6.
public enum ExifOrientation: Int, Sendable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// True for the orientations that swap width and height (5–8).
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The orientation stored in `jpeg`, `.up` when there is none or it cannot be read. Bounds-checked: a
    /// damaged segment never reads past the buffer.
    public static func read(fromJPEG jpeg: UnsafeRawBufferPointer) -> ExifOrientation {
        var offset = 2  // after SOI
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            if marker == 0xDA || marker == 0xD9 { break }  // start of scan, end of image: no EXIF before the data
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            guard length >= 2, offset + 2 + length <= jpeg.count else { break }
            if marker == 0xE1, length >= 16,
               Array(jpeg[(offset + 4)..<(offset + 10)]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                let tiff = UnsafeRawBufferPointer(rebasing: jpeg[(offset + 10)..<(offset + 2 + length)])
                return orientation(inTIFF: tiff) ?? .up
            }
            offset += 2 + length
        }
        return .up
    }

    private static func orientation(inTIFF tiff: UnsafeRawBufferPointer) -> ExifOrientation? {
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at + 2 <= tiff.count else { return nil }
            return bigEndian ? Int(tiff[at]) << 8 | Int(tiff[at + 1]) : Int(tiff[at + 1]) << 8 | Int(tiff[at])
        }
        func u32(_ at: Int) -> Int? {
            guard let high = u16(bigEndian ? at : at + 2), let low = u16(bigEndian ? at + 2 : at) else { return nil }
            return high << 16 | low
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<min(count, 512) {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112, let value = u16(at + 8) { return ExifOrientation(rawValue: value) }
        }
        return nil
    }
}

extension RGBImage {
    /// The image turned upright for `orientation`.
    public func applying(_ orientation: ExifOrientation) -> RGBImage {
        guard orientation != .up else { return self }
        let (outWidth, outHeight) = orientation.swapsDimensions ? (height, width) : (width, height)
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // The source pixel shown at (x, y).
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (width - 1 - x, y)
                        case .down: (sx, sy) = (width - 1 - x, height - 1 - y)
                        case .downMirrored: (sx, sy) = (x, height - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, height - 1 - x)
                        case .rightMirrored: (sx, sy) = (width - 1 - y, height - 1 - x)
                        case .left: (sx, sy) = (width - 1 - y, x)
                        }
                        let from = (sy * width + sx) * 3
                        let to = (y * outWidth + x) * 3
                        target[to] = source[from]
                        target[to + 1] = source[from + 1]
                        target[to + 2] = source[from + 2]
                    }
                }
            }
        }
        return RGBImage(width: outWidth, height: outHeight, pixels: output)
    }
}
